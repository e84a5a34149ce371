// The billing port: customers, subscriptions, payments and the record of webhook deliveries.
import type { Tx } from '../../db/storage'
import type { PaidTier, Provider, SubscriptionRecord } from './state'

export interface PaymentRecord {
  id: string
  provider: Provider
  providerPaymentId: string
  userId: string
  kind: 'lifetime' | 'subscription' | 'renewal'
  subscriptionId: string | null
  amount: string
  currency: string
  grantsLifetime: boolean
  paidAt: Date
  createdAt: Date
}

export interface WebhookEventRecord {
  provider: Provider
  eventId: string
  type: string
  outcome: string
  receivedAt: Date
}

export interface BillingStore {
  /**
   * Records a delivery by its event id, first thing in the effect's transaction; false when it
   * was recorded before (on PostgreSQL a concurrent insert of the same id waits for the other
   * transaction, then finds it committed, or takes over if it rolled back).
   */
  recordEvent(event: WebhookEventRecord, tx: Tx): Promise<boolean>
  setEventOutcome(provider: Provider, eventId: string, outcome: string, tx: Tx): Promise<void>
  /** Serialises the effects on one user's billing state across instances (PostgreSQL; SQLite's write lock already does). */
  lockUser(userId: string, tx: Tx): Promise<void>

  customerOf(userId: string, provider: Provider): Promise<string | null>
  userOfCustomer(provider: Provider, customerId: string, tx?: Tx): Promise<string | null>
  /**
   * Links the customer unless the user has one at this provider already; returns the one that
   * stands, or null when the customer is another user's (the first link stands: a customer is one user's).
   */
  linkCustomer(userId: string, provider: Provider, customerId: string, tx?: Tx): Promise<string | null>

  subscription(provider: Provider, providerSubscriptionId: string, tx?: Tx): Promise<SubscriptionRecord | null>
  /** Inserts or replaces the subscription (by provider and provider subscription id). */
  saveSubscription(sub: SubscriptionRecord, tx: Tx): Promise<void>
  subscriptionsOf(userId: string, tx?: Tx): Promise<SubscriptionRecord[]>

  /** false when the provider's payment was recorded before (a capture and its webhook are one payment). */
  insertPayment(payment: PaymentRecord, tx: Tx): Promise<boolean>
  /** The provider of the user's first lifetime payment that granted the tier, or null. */
  lifetimeProvider(userId: string, tx?: Tx): Promise<Provider | null>
  paymentsOf(userId: string): Promise<PaymentRecord[]>

  /** Forgets deliveries received before `before` (far beyond every provider's retry window). */
  pruneEvents(before: Date): Promise<void>
}

export type { PaidTier }
