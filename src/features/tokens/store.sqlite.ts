// SQLite adapter of the tokens port. The lookup by hash is a prepared statement on the read
// connection; the limit check and the insert share one write transaction.
import { and, count, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import { isForeignKeyViolation } from '../../db/errors'
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { personalAccessTokens as pats } from './schema.sqlite'
import type { PatLookup, TokensStore } from './store'

const statements = perConnection((db: SqliteDb) => ({
  // Raw, its times kept as epoch ms: every PAT-authenticated request runs it (bun scripts/bench.ts: /me with a PAT).
  byHash: db.$client.prepare<PatLookup, [string]>(
    'SELECT id, user_id AS userId, expires_at AS expiresAt, revoked_at AS revokedAt, last_used_at AS lastUsedAt FROM personal_access_tokens WHERE token_hash = ?',
  ),
}))

export function sqliteTokensStore(storage: SqliteStorage): TokensStore {
  return {
    insertWithinLimit: (token, limit, now) =>
      storage
        .write((db) => {
          const [row] = db
            .select({ n: count() })
            .from(pats)
            .where(and(eq(pats.userId, token.userId), isNull(pats.revokedAt), gt(pats.expiresAt, now)))
            .all()
          if ((row?.n ?? 0) >= limit) return false
          db.insert(pats).values(token).run()
          return true
        })
        .catch((error: unknown) => {
          if (isForeignKeyViolation(error)) return null
          throw error
        }),

    listUnrevoked: (userId) =>
      storage.read((db) =>
        db
          .select()
          .from(pats)
          .where(and(eq(pats.userId, userId), isNull(pats.revokedAt)))
          .orderBy(desc(pats.createdAt))
          .all(),
      ),

    revoke: (userId, tokenId, now, tx) =>
      storage.write(
        (db) =>
          db
            .update(pats)
            .set({ revokedAt: now })
            .where(and(eq(pats.id, tokenId), eq(pats.userId, userId), isNull(pats.revokedAt)))
            .returning({ id: pats.id })
            .get() !== undefined,
        tx,
      ),

    revokeAll: (userId, now, tx) =>
      storage.write(
        (db) =>
          db
            .update(pats)
            .set({ revokedAt: now })
            .where(and(eq(pats.userId, userId), isNull(pats.revokedAt)))
            .returning({ id: pats.id })
            .all().length,
        tx,
      ),

    byHash: (hash) => storage.read((db) => statements(db).byHash.get(hash)),

    async touch(tokenId, now, unlessAfter) {
      // Conditional, so concurrent requests (or instances) write it once.
      await storage.write((db) =>
        db
          .update(pats)
          .set({ lastUsedAt: now })
          .where(and(eq(pats.id, tokenId), or(isNull(pats.lastUsedAt), lt(pats.lastUsedAt, unlessAfter))))
          .run(),
      )
    },

    async prune(cutoff) {
      await storage.write((db) =>
        db
          .delete(pats)
          .where(or(lt(pats.revokedAt, cutoff), lt(pats.expiresAt, cutoff)))
          .run(),
      )
    },
  }
}
