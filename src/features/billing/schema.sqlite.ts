import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/schema.sqlite'

const PROVIDERS = ['card', 'wallet'] as const

/** The user's customer record at a provider (Stripe), created once and reused by every checkout. */
export const billingCustomers = sqliteTable(
  'billing_customers',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: PROVIDERS }).notNull(),
    customerId: text('customer_id').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.provider] }), uniqueIndex('billing_customers_provider_id').on(t.provider, t.customerId)],
)

/** Recurring subscriptions at either provider, as the providers' events describe them. */
export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    provider: text('provider', { enum: PROVIDERS }).notNull(),
    providerSubscriptionId: text('provider_subscription_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tier: text('tier', { enum: ['starter', 'pro'] }),
    status: text('status').notNull(),
    currentPeriodEnd: integer('current_period_end', { mode: 'timestamp_ms' }),
    cancelAtPeriodEnd: integer('cancel_at_period_end', { mode: 'boolean' }).notNull().default(false),
    /** order key of the last status event applied (billing/state.ts): older events change no status */
    version: text('version'),
    /** order keys of the latest suspension and activation (wallet provider): suspended when cancelled? */
    suspendedVersion: text('suspended_version'),
    resumedVersion: text('resumed_version'),
    /** the period end a wallet cancellation states, while it is the latest status event (billing/state.ts) */
    cancelPeriodEnd: integer('cancel_period_end', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('subscriptions_provider_id').on(t.provider, t.providerSubscriptionId), index('subscriptions_user').on(t.userId)],
)

/** Every payment received: a lifetime purchase, a subscription's first payment, a renewal. */
export const payments = sqliteTable(
  'payments',
  {
    id: text('id').primaryKey(),
    provider: text('provider', { enum: PROVIDERS }).notNull(),
    /** Stripe checkout session or invoice; PayPal sale or capture: one payment, however often reported */
    providerPaymentId: text('provider_payment_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['lifetime', 'subscription', 'renewal'] }).notNull(),
    /** the provider's subscription id, for subscription payments */
    subscriptionId: text('subscription_id'),
    /** decimal string in major units, exactly as paid ("199.00") */
    amount: text('amount').notNull(),
    currency: text('currency').notNull(),
    /** a lifetime payment grants the tier only when amount and currency match the price */
    grantsLifetime: integer('grants_lifetime', { mode: 'boolean' }).notNull().default(false),
    paidAt: integer('paid_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('payments_provider_id').on(t.provider, t.providerPaymentId), index('payments_user').on(t.userId)],
)

/**
 * Every webhook delivery processed, by the provider's event id: inserted first in the transaction
 * of its effect, so a repeat (on any instance) finds it and changes nothing.
 */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    provider: text('provider', { enum: PROVIDERS }).notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    /** applied, stale, ignored, … (billing/service.ts) */
    outcome: text('outcome').notNull(),
    receivedAt: integer('received_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] }), index('webhook_events_received').on(t.receivedAt)],
)
