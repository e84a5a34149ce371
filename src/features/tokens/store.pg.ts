// PostgreSQL adapter of the tokens port. The limit check takes a per-user advisory lock for the
// transaction: READ COMMITTED alone would let two instances count the same tokens and both insert.
import { and, count, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { PgStorage } from '../../db/storage'
import { personalAccessTokens as pats } from './schema.pg'
import type { TokensStore } from './store'

export function pgTokensStore(storage: PgStorage): TokensStore {
  const db = storage.db
  // Every PAT request: a named statement, parsed and planned once per connection (scripts/bench-engines.ts).
  const patByHash = db
    .select({ id: pats.id, userId: pats.userId, expiresAt: pats.expiresAt, revokedAt: pats.revokedAt, lastUsedAt: pats.lastUsedAt })
    .from(pats)
    .where(eq(pats.tokenHash, sql.placeholder('hash')))
    .prepare('tokens_by_hash')
  return {
    insertWithinLimit: (token, limit, now) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`pat:${token.userId}`}, 0))`)
        const [row] = await tx
          .select({ n: count() })
          .from(pats)
          .where(and(eq(pats.userId, token.userId), isNull(pats.revokedAt), gt(pats.expiresAt, now)))
        if ((row?.n ?? 0) >= limit) return false
        await tx.insert(pats).values(token)
        return true
      }),

    listUnrevoked: (userId) =>
      db
        .select()
        .from(pats)
        .where(and(eq(pats.userId, userId), isNull(pats.revokedAt)))
        .orderBy(desc(pats.createdAt)),

    revoke: async (userId, tokenId, now, tx) =>
      (
        await storage
          .use(tx)
          .update(pats)
          .set({ revokedAt: now })
          .where(and(eq(pats.id, tokenId), eq(pats.userId, userId), isNull(pats.revokedAt)))
          .returning({ id: pats.id })
      ).length > 0,

    revokeAll: async (userId, now, tx) =>
      (
        await storage
          .use(tx)
          .update(pats)
          .set({ revokedAt: now })
          .where(and(eq(pats.userId, userId), isNull(pats.revokedAt)))
          .returning({ id: pats.id })
      ).length,

    async byHash(hash) {
      const [row] = await patByHash.execute({ hash })
      return row
        ? {
            id: row.id,
            userId: row.userId,
            expiresAt: row.expiresAt.getTime(),
            revokedAt: row.revokedAt?.getTime() ?? null,
            lastUsedAt: row.lastUsedAt?.getTime() ?? null,
          }
        : null
    },

    async touch(tokenId, now, unlessAfter) {
      await db
        .update(pats)
        .set({ lastUsedAt: now })
        .where(and(eq(pats.id, tokenId), or(isNull(pats.lastUsedAt), lt(pats.lastUsedAt, unlessAfter))))
    },

    async prune(cutoff) {
      await db.delete(pats).where(or(lt(pats.revokedAt, cutoff), lt(pats.expiresAt, cutoff)))
    },
  }
}
