// PostgreSQL adapter of the mail port. A claim locks the due rows it picks FOR UPDATE SKIP
// LOCKED, so workers on every instance take disjoint batches without waiting for each other.
import { and, eq, inArray, lte, or, sql } from 'drizzle-orm'
import type { PgStorage } from '../../db/storage'
import { mailOutbox as outbox } from './schema.pg'
import type { MailStore } from './store'

export function pgMailStore(storage: PgStorage): MailStore {
  const db = storage.db
  return {
    async insert(message, tx) {
      const inserted = await storage
        .use(tx)
        .insert(outbox)
        .values(message)
        .onConflictDoNothing({ target: outbox.dedupeKey })
        .returning({ id: outbox.id })
      return inserted.length > 0
    },

    async claim(now, leaseUntil, token, limit) {
      const due = db
        .select({ id: outbox.id })
        .from(outbox)
        .where(or(and(eq(outbox.status, 'pending'), lte(outbox.nextAttemptAt, now)), and(eq(outbox.status, 'sending'), lte(outbox.leaseUntil, now))))
        .orderBy(outbox.nextAttemptAt)
        .limit(limit)
        .for('update', { skipLocked: true })
      return db
        .update(outbox)
        .set({ status: 'sending', leaseUntil, claimToken: token, attempts: sql`${outbox.attempts} + 1` })
        .where(inArray(outbox.id, due))
        .returning()
    },

    markSent: async (id, token, now) =>
      (
        await db
          .update(outbox)
          .set({ status: 'sent', sentAt: now, leaseUntil: null, claimToken: null, lastError: null })
          .where(and(eq(outbox.id, id), eq(outbox.claimToken, token)))
          .returning({ id: outbox.id })
      ).length > 0,

    markUnsent: async (id, token, retryAt, error) =>
      (
        await db
          .update(outbox)
          .set(
            retryAt
              ? { status: 'pending', nextAttemptAt: retryAt, leaseUntil: null, claimToken: null, lastError: error }
              : { status: 'failed', leaseUntil: null, claimToken: null, lastError: error },
          )
          .where(and(eq(outbox.id, id), eq(outbox.claimToken, token)))
          .returning({ id: outbox.id })
      ).length > 0,

    async prune(before) {
      await db
        .delete(outbox)
        .where(or(and(eq(outbox.status, 'sent'), lte(outbox.sentAt, before)), and(eq(outbox.status, 'failed'), lte(outbox.nextAttemptAt, before))))
    },
  }
}
