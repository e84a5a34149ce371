// PostgreSQL adapter of the billing port. Effects on one user's billing state are serialised by a
// transaction-scoped advisory lock on the user (lockUser): two instances applying two events of
// the same subscription at once would otherwise both read the old row and one write would be lost.
import { and, asc, eq, lt, sql } from 'drizzle-orm'
import type { PgStorage } from '../../db/storage'
import { billingCustomers, payments, subscriptions, webhookEvents } from './schema.pg'
import type { SubscriptionRecord, SubscriptionStatus } from './state'
import type { BillingStore } from './store'

const toSubscription = (row: typeof subscriptions.$inferSelect): SubscriptionRecord => ({ ...row, status: row.status as SubscriptionStatus })

export function pgBillingStore(storage: PgStorage): BillingStore {
  const customerOf = async (userId: string, provider: 'card' | 'wallet', tx?: Parameters<PgStorage['use']>[0]) => {
    const [row] = await storage
      .use(tx)
      .select({ id: billingCustomers.customerId })
      .from(billingCustomers)
      .where(and(eq(billingCustomers.userId, userId), eq(billingCustomers.provider, provider)))
    return row?.id ?? null
  }
  return {
    // ON CONFLICT DO NOTHING waits for a concurrent transaction holding the same id to end.
    recordEvent: async (event, tx) =>
      (await storage.use(tx).insert(webhookEvents).values(event).onConflictDoNothing().returning({ id: webhookEvents.eventId })).length > 0,

    async setEventOutcome(provider, eventId, outcome, tx) {
      await storage
        .use(tx)
        .update(webhookEvents)
        .set({ outcome })
        .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventId, eventId)))
    },

    async lockUser(userId, tx) {
      await storage.use(tx).execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`billing:${userId}`}, 0))`)
    },

    customerOf: (userId, provider) => customerOf(userId, provider),

    async userOfCustomer(provider, customerId, tx) {
      const [row] = await storage
        .use(tx)
        .select({ userId: billingCustomers.userId })
        .from(billingCustomers)
        .where(and(eq(billingCustomers.provider, provider), eq(billingCustomers.customerId, customerId)))
      return row?.userId ?? null
    },

    async linkCustomer(userId, provider, customerId, tx) {
      await storage.use(tx).insert(billingCustomers).values({ userId, provider, customerId, createdAt: new Date() }).onConflictDoNothing()
      return customerOf(userId, provider, tx)
    },

    async subscription(provider, id, tx) {
      const [row] = await storage
        .use(tx)
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.provider, provider), eq(subscriptions.providerSubscriptionId, id)))
      return row ? toSubscription(row) : null
    },

    async saveSubscription(sub, tx) {
      const { id, provider, providerSubscriptionId, createdAt, ...changes } = sub
      await storage
        .use(tx)
        .insert(subscriptions)
        .values(sub)
        .onConflictDoUpdate({ target: [subscriptions.provider, subscriptions.providerSubscriptionId], set: changes })
    },

    subscriptionsOf: async (userId, tx) =>
      (await storage.use(tx).select().from(subscriptions).where(eq(subscriptions.userId, userId)).orderBy(asc(subscriptions.createdAt))).map(
        toSubscription,
      ),

    insertPayment: async (payment, tx) =>
      (await storage.use(tx).insert(payments).values(payment).onConflictDoNothing().returning({ id: payments.id })).length > 0,

    async lifetimeProvider(userId, tx) {
      const [row] = await storage
        .use(tx)
        .select({ provider: payments.provider })
        .from(payments)
        .where(and(eq(payments.userId, userId), eq(payments.grantsLifetime, true)))
        .orderBy(asc(payments.paidAt))
        .limit(1)
      return row?.provider ?? null
    },

    paymentsOf: (userId) => storage.db.select().from(payments).where(eq(payments.userId, userId)).orderBy(asc(payments.paidAt)),

    async pruneEvents(before) {
      await storage.db.delete(webhookEvents).where(lt(webhookEvents.receivedAt, before))
    },
  }
}
