// SQLite adapter of the billing port. The statements of a webhook's transaction are prepared once
// per connection (scripts/bench-payments.ts: a delivery is about ten of them).
import { and, asc, eq, lt, sql } from 'drizzle-orm'
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { billingCustomers, payments, subscriptions, webhookEvents } from './schema.sqlite'
import type { SubscriptionRecord, SubscriptionStatus } from './state'
import type { BillingStore, PaymentRecord } from './store'

const p = sql.placeholder

const statements = perConnection((db: SqliteDb) => ({
  recordEvent: db
    .insert(webhookEvents)
    .values({ provider: p('provider'), eventId: p('eventId'), type: p('type'), outcome: p('outcome'), receivedAt: p('receivedAt') })
    .onConflictDoNothing()
    .returning({ id: webhookEvents.eventId })
    .prepare(),
  setOutcome: db
    .update(webhookEvents)
    .set({ outcome: sql`${p('outcome')}` })
    .where(and(eq(webhookEvents.provider, p('provider')), eq(webhookEvents.eventId, p('eventId'))))
    .prepare(),
  subscription: db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.provider, p('provider')), eq(subscriptions.providerSubscriptionId, p('id'))))
    .prepare(),
  subscriptionsOf: db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, p('userId')))
    .orderBy(asc(subscriptions.createdAt))
    .prepare(),
  lifetime: db
    .select({ provider: payments.provider })
    .from(payments)
    .where(and(eq(payments.userId, p('userId')), eq(payments.grantsLifetime, true)))
    .orderBy(asc(payments.paidAt))
    .limit(1)
    .prepare(),
  saveSubscription: db
    .insert(subscriptions)
    .values({
      id: p('id'),
      provider: p('provider'),
      providerSubscriptionId: p('providerSubscriptionId'),
      userId: p('userId'),
      tier: p('tier'),
      status: p('status'),
      // Not through the column's mapping: drizzle maps a placeholder's null as a Date (and throws).
      currentPeriodEnd: sql`${p('currentPeriodEnd')}`,
      cancelAtPeriodEnd: p('cancelAtPeriodEnd'),
      version: p('version'),
      suspendedVersion: p('suspendedVersion'),
      resumedVersion: p('resumedVersion'),
      cancelPeriodEnd: sql`${p('cancelPeriodEnd')}`,
      createdAt: p('createdAt'),
      updatedAt: p('updatedAt'),
    })
    .onConflictDoUpdate({
      target: [subscriptions.provider, subscriptions.providerSubscriptionId],
      set: {
        userId: sql`excluded.user_id`,
        tier: sql`excluded.tier`,
        status: sql`excluded.status`,
        currentPeriodEnd: sql`excluded.current_period_end`,
        cancelAtPeriodEnd: sql`excluded.cancel_at_period_end`,
        version: sql`excluded.version`,
        suspendedVersion: sql`excluded.suspended_version`,
        resumedVersion: sql`excluded.resumed_version`,
        cancelPeriodEnd: sql`excluded.cancel_period_end`,
        updatedAt: sql`excluded.updated_at`,
      },
    })
    .prepare(),
  userOfCustomer: db
    .select({ userId: billingCustomers.userId })
    .from(billingCustomers)
    .where(and(eq(billingCustomers.provider, p('provider')), eq(billingCustomers.customerId, p('customerId'))))
    .prepare(),
}))

const toSubscription = (row: typeof subscriptions.$inferSelect): SubscriptionRecord => ({ ...row, status: row.status as SubscriptionStatus })

export function sqliteBillingStore(storage: SqliteStorage): BillingStore {
  return {
    recordEvent: (event, tx) => storage.write((db) => statements(db).recordEvent.all({ ...event }).length > 0, tx),

    async setEventOutcome(provider, eventId, outcome, tx) {
      await storage.write((db) => statements(db).setOutcome.run({ provider, eventId, outcome }), tx)
    },

    // One writer at a time already: the process's write lock, and SQLite's across processes.
    lockUser: async () => {},

    customerOf: (userId, provider) =>
      storage.read(
        (db) =>
          db
            .select({ id: billingCustomers.customerId })
            .from(billingCustomers)
            .where(and(eq(billingCustomers.userId, userId), eq(billingCustomers.provider, provider)))
            .get()?.id ?? null,
      ),

    userOfCustomer: (provider, customerId, tx) =>
      storage.read((db) => statements(db).userOfCustomer.get({ provider, customerId })?.userId ?? null, tx),

    linkCustomer: (userId, provider, customerId, tx) =>
      storage.write((db) => {
        db.insert(billingCustomers).values({ userId, provider, customerId, createdAt: new Date() }).onConflictDoNothing().run()
        return (
          db
            .select({ id: billingCustomers.customerId })
            .from(billingCustomers)
            .where(and(eq(billingCustomers.userId, userId), eq(billingCustomers.provider, provider)))
            .get()?.id ?? null
        )
      }, tx),

    subscription: (provider, id, tx) =>
      storage.read((db) => {
        const row = statements(db).subscription.get({ provider, id })
        return row ? toSubscription(row) : null
      }, tx),

    async saveSubscription(sub, tx) {
      await storage.write(
        (db) =>
          statements(db).saveSubscription.run({
            ...sub,
            currentPeriodEnd: sub.currentPeriodEnd?.getTime() ?? null,
            cancelPeriodEnd: sub.cancelPeriodEnd?.getTime() ?? null,
          }),
        tx,
      )
    },

    subscriptionsOf: (userId, tx) => storage.read((db) => statements(db).subscriptionsOf.all({ userId }).map(toSubscription), tx),

    insertPayment: (payment, tx) =>
      storage.write((db) => db.insert(payments).values(payment).onConflictDoNothing().returning({ id: payments.id }).all().length > 0, tx),

    lifetimeProvider: (userId, tx) => storage.read((db) => statements(db).lifetime.get({ userId })?.provider ?? null, tx),

    paymentsOf: (userId) =>
      storage.read((db) => db.select().from(payments).where(eq(payments.userId, userId)).orderBy(asc(payments.paidAt)).all() as PaymentRecord[]),

    async pruneEvents(before) {
      await storage.write((db) => db.delete(webhookEvents).where(lt(webhookEvents.receivedAt, before)).run())
    },
  }
}
