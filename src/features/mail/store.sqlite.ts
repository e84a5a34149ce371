// SQLite adapter of the mail port. A claim is one UPDATE … WHERE id IN (SELECT … LIMIT n)
// RETURNING inside a write transaction: the process's write lock and SQLite's own make it atomic.
import { and, eq, inArray, lte, or, sql } from 'drizzle-orm'
import { isUniqueViolation } from '../../db/errors'
import type { SqliteStorage } from '../../db/storage'
import { mailOutbox as outbox } from './schema.sqlite'
import type { MailStore } from './store'

export function sqliteMailStore(storage: SqliteStorage): MailStore {
  return {
    async insert(message, tx) {
      try {
        await storage.write((db) => db.insert(outbox).values(message).run(), tx)
        return true
      } catch (error) {
        if (isUniqueViolation(error)) return false
        throw error
      }
    },

    claim: (now, leaseUntil, token, limit) =>
      storage.write((db) => {
        const due = db
          .select({ id: outbox.id })
          .from(outbox)
          .where(
            or(and(eq(outbox.status, 'pending'), lte(outbox.nextAttemptAt, now)), and(eq(outbox.status, 'sending'), lte(outbox.leaseUntil, now))),
          )
          .orderBy(outbox.nextAttemptAt)
          .limit(limit)
        return db
          .update(outbox)
          .set({ status: 'sending', leaseUntil, claimToken: token, attempts: sql`${outbox.attempts} + 1` })
          .where(inArray(outbox.id, due))
          .returning()
          .all()
      }),

    markSent: (id, token, now) =>
      storage.write(
        (db) =>
          db
            .update(outbox)
            .set({ status: 'sent', sentAt: now, leaseUntil: null, claimToken: null, lastError: null })
            .where(and(eq(outbox.id, id), eq(outbox.claimToken, token)))
            .returning({ id: outbox.id })
            .all().length > 0,
      ),

    markUnsent: (id, token, retryAt, error) =>
      storage.write(
        (db) =>
          db
            .update(outbox)
            .set(
              retryAt
                ? { status: 'pending', nextAttemptAt: retryAt, leaseUntil: null, claimToken: null, lastError: error }
                : { status: 'failed', leaseUntil: null, claimToken: null, lastError: error },
            )
            .where(and(eq(outbox.id, id), eq(outbox.claimToken, token)))
            .returning({ id: outbox.id })
            .all().length > 0,
      ),

    async prune(before) {
      await storage.write((db) =>
        db
          .delete(outbox)
          .where(or(and(eq(outbox.status, 'sent'), lte(outbox.sentAt, before)), and(eq(outbox.status, 'failed'), lte(outbox.nextAttemptAt, before))))
          .run(),
      )
    },
  }
}
