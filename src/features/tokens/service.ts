// Personal access tokens: create (tier maximum, atomic), list, revoke, and the authenticator
// that lets a PAT stand in for a JWT (contract section 3).
import { createId } from '@paralleldrive/cuid2'
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import { type Db, writeTransaction } from '../../db/client'
import type { BatchedRead } from '../../db/read-batch'
import { upgradeRequired, type Principal } from '../../http/auth'
import { notFound, ProblemError, unauthorized } from '../../http/problem'
import { TIER_LIMITS, type Tier } from '../../tiers'
import { users } from '../accounts/schema'
import type { Accounts } from '../accounts/service'
import { todayUtc } from '../usage/daily'
import { generatePat, hashPat, isWellFormedPat } from './format'
import { personalAccessTokens as pats, type PatRow } from './schema'

export const DEFAULT_EXPIRY_DAYS = 90
const DAY_MS = 86_400_000
const LAST_USED_RESOLUTION_MS = 60_000
const HASH_CACHE_SIZE = 10_000
/** Revoked and long-expired tokens are deleted by the periodic sweep after this long. */
const KEEP_DEAD_TOKENS_MS = 30 * DAY_MS

export interface TokenSummary {
  token_id: string
  name: string
  created_at: string
  expires_at: string
  last_used_at: string | null
}

const summary = (row: PatRow): TokenSummary => ({
  token_id: row.id,
  name: row.name,
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
})

const active = (now: Date) => and(isNull(pats.revokedAt), gt(pats.expiresAt, now))

export function createTokens(db: Db, accounts: Pick<Accounts, 'authColumns' | 'adoptAuthRow'>, read: BatchedRead = async (r) => r()) {
  // One statement per PAT-authenticated request: the user (with the /me snapshot columns) found
  // through the token, and the token's own fields. Written with scalar subqueries instead of a
  // JOIN: with bun:sqlite a two-table join costs several times more per execution here.
  const tokenWhere = sql`${pats.tokenHash} = ${sql.placeholder('hash')}`
  const byHash = db
    .select({
      ...accounts.authColumns,
      // [id, expires_at, revoked_at, last_used_at] in one lookup
      token: sql<string>`(SELECT json_array(${pats.id}, ${pats.expiresAt}, ${pats.revokedAt}, ${pats.lastUsedAt}) FROM ${pats} WHERE ${tokenWhere})`,
    })
    .from(users)
    .where(sql`${users.id} = (SELECT ${pats.userId} FROM ${pats} WHERE ${tokenWhere})`)
    .prepare()

  // Scripts send the same token again and again: its digest is remembered (the database still
  // decides on every request whether the token is valid).
  const hashes = new Map<string, string>()

  return {
    /** Needs the caller's current tier; holds the tier's maximum under concurrency. */
    create(user: { id: string; tier: Tier }, name: string, expiresInDays = DEFAULT_EXPIRY_DAYS) {
      const limit = TIER_LIMITS[user.tier].max_tokens
      if (limit === 0) throw upgradeRequired('starter')
      const token = generatePat()
      const now = new Date()
      const row = writeTransaction(db, (tx) => {
        const [{ count }] = tx.select({ count: sql<number>`count(*)` }).from(pats).where(and(eq(pats.userId, user.id), active(now))).all() as [{ count: number }]
        if (count >= limit) {
          throw new ProblemError(403, 'token_limit_reached', `Your tier allows ${limit} active personal access token(s); revoke one first.`, { limit })
        }
        return tx
          .insert(pats)
          .values({ id: createId(), userId: user.id, name, tokenHash: hashPat(token), createdAt: now, expiresAt: new Date(now.getTime() + expiresInDays * DAY_MS) })
          .returning()
          .get()
      })
      return { token_id: row.id, token, name: row.name, expires_at: row.expiresAt.toISOString() }
    },

    /** Tokens not revoked, newest first; expired ones stay listed (their expires_at says why a script stopped). */
    list(userId: string): TokenSummary[] {
      return db.select().from(pats).where(and(eq(pats.userId, userId), isNull(pats.revokedAt))).orderBy(desc(pats.createdAt)).all().map(summary)
    },

    /** Another user's token, an unknown id and an already revoked token are all 404. */
    revoke(userId: string, tokenId: string): void {
      const row = db
        .update(pats)
        .set({ revokedAt: new Date() })
        .where(and(eq(pats.id, tokenId), eq(pats.userId, userId), isNull(pats.revokedAt)))
        .returning({ id: pats.id })
        .get()
      if (!row) throw notFound('No such token.')
    },

    async authenticate(token: string): Promise<Principal> {
      // Shape and checksum first: a mistyped or made-up token costs no database query.
      let hash = hashes.get(token)
      if (hash === undefined) {
        if (!isWellFormedPat(token)) throw unauthorized('invalid_token', 'The personal access token is not valid.')
        hash = hashPat(token)
        if (hashes.size >= HASH_CACHE_SIZE) hashes.clear()
        hashes.set(token, hash)
      }
      const params = { hash, day: todayUtc() }
      const found = await read(() => byHash.get(params))
      if (!found) throw unauthorized('invalid_token', 'The personal access token is not valid.')
      const [tokenId, expiresAt, revokedAt, lastUsedAt] = JSON.parse(found.token) as [string, number, number | null, number | null]
      const now = Date.now()
      if (revokedAt !== null) throw unauthorized('token_revoked', 'This personal access token has been revoked.')
      if (expiresAt <= now) throw unauthorized('token_expired', 'This personal access token has expired.')
      const user = accounts.adoptAuthRow(found)
      if (!TIER_LIMITS[user.tier].api_access) {
        throw new ProblemError(403, 'api_access_required', `API access with personal access tokens needs the starter tier or higher; your tier is ${user.tier}.`, {
          required_tier: 'starter',
        })
      }
      if (now - (lastUsedAt ?? 0) >= LAST_USED_RESOLUTION_MS) {
        // Conditional, so concurrent requests (or instances) write it once.
        db.update(pats)
          .set({ lastUsedAt: new Date(now) })
          .where(and(eq(pats.id, tokenId), or(isNull(pats.lastUsedAt), lt(pats.lastUsedAt, new Date(now - LAST_USED_RESOLUTION_MS)))))
          .run()
      }
      return { user, via: 'pat', tokenId }
    },
  }
}

/** Deletes tokens revoked or expired more than 30 days ago (run by the periodic sweep). */
export function pruneDeadTokens(db: Db, now = Date.now()): void {
  const cutoff = new Date(now - KEEP_DEAD_TOKENS_MS)
  db.delete(pats).where(or(lt(pats.revokedAt, cutoff), lt(pats.expiresAt, cutoff))).run()
}

export type Tokens = ReturnType<typeof createTokens>
