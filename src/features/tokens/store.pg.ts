// PostgreSQL adapter of the tokens port. The limit check takes a per-user advisory lock for the
// transaction: READ COMMITTED alone would let two instances count the same tokens and both insert.
import { and, count, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import { isForeignKeyViolation } from '../../db/errors'
import { batchedLookup } from '../../db/postgres/batched-lookup'
import { cannotBeStored } from '../../db/postgres/text'
import type { PgStorage } from '../../db/storage'
import { personalAccessTokens as pats } from './schema.pg'
import type { TokensStore } from './store'

export function pgTokensStore(storage: PgStorage): TokensStore {
  const db = storage.db
  // Every PAT request: a named statement, planned once per connection, and the lookups of a
  // turn go as one query (scripts/bench-engines.ts).
  const patsByHash = db
    .select({
      hash: pats.tokenHash,
      id: pats.id,
      userId: pats.userId,
      expiresAt: pats.expiresAt,
      revokedAt: pats.revokedAt,
      lastUsedAt: pats.lastUsedAt,
    })
    .from(pats)
    .where(sql`${pats.tokenHash} = ANY(${sql.placeholder('hashes')})`)
    .prepare('tokens_by_hashes')
  const patsWithHash = batchedLookup(
    (hashes) => patsByHash.execute({ hashes }),
    (row) => row.hash,
  )
  return {
    insertWithinLimit: (token, limit, now) =>
      db
        .transaction(async (tx) => {
          await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`pat:${token.userId}`}, 0))`)
          const [row] = await tx
            .select({ n: count() })
            .from(pats)
            .where(and(eq(pats.userId, token.userId), isNull(pats.revokedAt), gt(pats.expiresAt, now)))
          if ((row?.n ?? 0) >= limit) return false
          await tx.insert(pats).values(token)
          return true
        })
        .catch((error: unknown) => {
          if (isForeignKeyViolation(error)) return null
          throw error
        }),

    listUnrevoked: (userId) =>
      db
        .select()
        .from(pats)
        .where(and(eq(pats.userId, userId), isNull(pats.revokedAt)))
        .orderBy(desc(pats.createdAt)),

    revoke: async (userId, tokenId, now, tx) =>
      !cannotBeStored(tokenId) &&
      (
        await storage
          .use(tx)
          .update(pats)
          .set({ revokedAt: now })
          .where(and(eq(pats.id, tokenId), eq(pats.userId, userId), isNull(pats.revokedAt)))
          .returning({ id: pats.id })
      ).length > 0,

    // Under the lock insertWithinLimit holds: a token being created right now is committed first
    // and revoked with the rest, never left standing beside an account that was just taken over.
    revokeAll: (userId, now, tx) =>
      storage.transaction(async (t) => {
        const q = storage.use(t)
        await q.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`pat:${userId}`}, 0))`)
        const rows = await q
          .update(pats)
          .set({ revokedAt: now })
          .where(and(eq(pats.userId, userId), isNull(pats.revokedAt)))
          .returning({ id: pats.id })
        return rows.length
      }, tx),

    async byHash(hash) {
      const [row] = await patsWithHash(hash)
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
