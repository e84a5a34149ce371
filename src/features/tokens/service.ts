// Personal access tokens: create (tier maximum, atomic), list, revoke, and the authenticator
// that lets a PAT stand in for a JWT (contract section 3).
import { createId } from '../../lib/ids'
import type { Tx } from '../../db/storage'
import { type Principal, upgradeRequired } from '../../http/auth'
import { notFound, ProblemError, unauthorized } from '../../http/problem'
import { type Tier, TIER_LIMITS } from '../../tiers'
import type { AccountsService } from '../accounts'
import { generatePat, hashPat, isWellFormedPat } from './format'
import { type CreatedToken, DEFAULT_EXPIRY_DAYS, type TokenSummary } from './model'
import type { PatRecord, TokensStore } from './store'

const DAY_MS = 86_400_000
const LAST_USED_RESOLUTION_MS = 60_000
const HASH_CACHE_SIZE = 10_000
/** Revoked and long-expired tokens are deleted by the periodic sweep after this long. */
const KEEP_DEAD_TOKENS_MS = 30 * DAY_MS

const summary = (row: PatRecord): TokenSummary => ({
  token_id: row.id,
  name: row.name,
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
})

const invalid = () => unauthorized('invalid_token', 'The personal access token is not valid.')

export function createTokensService(store: TokensStore, accounts: Pick<AccountsService, 'authUserById' | 'jwtStatus'>) {
  // Scripts send the same token again and again: its digest is remembered (the database still
  // decides on every request whether the token is valid), and so is its user once looked up: a
  // token never changes hands, so that user is then read beside the token instead of after it. On
  // PostgreSQL that is one round trip less per request: /api/user/me by PAT from one client, p50
  // 0.66–0.75 → 0.57–0.65 ms (under many connections the lookups were already batched per turn).
  const known = new Map<string, { hash: string; userId?: string }>()

  return {
    /**
     * Needs the caller's current tier; holds the tier's maximum under concurrency. `jwtIssuedAt`:
     * the `iat` of the JWT that authorised the request, checked again once the token is stored.
     */
    async create(
      user: { id: string; tier: Tier },
      name: string,
      expiresInDays = DEFAULT_EXPIRY_DAYS,
      jwtIssuedAt: number | null = null,
    ): Promise<CreatedToken> {
      const limit = TIER_LIMITS[user.tier].max_tokens
      if (limit === 0) throw upgradeRequired('starter')
      const token = generatePat()
      const now = new Date()
      const row: PatRecord = {
        id: createId(),
        userId: user.id,
        name,
        tokenHash: hashPat(token),
        createdAt: now,
        expiresAt: new Date(now.getTime() + expiresInDays * DAY_MS),
        lastUsedAt: null,
        revokedAt: null,
      }
      const inserted = await store.insertWithinLimit(row, limit, now)
      // The account was deleted while this request ran: its token is as dead as the account.
      if (inserted === null) throw unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
      if (!inserted) {
        throw new ProblemError(403, 'token_limit_reached', `Your tier allows ${limit} active personal access token(s); revoke one first.`, { limit })
      }
      // The JWT may have been revoked while this request ran (a password change, or a takeover by
      // a verified sign-in, which revokes every PAT): a new PAT must not outlive it. Checked after
      // the insert: a revocation committed before it is seen here, one committed after it
      // revokes this token with the others (on PostgreSQL revokeAll waits for this insert's lock).
      if (jwtIssuedAt !== null) {
        const status = await accounts.jwtStatus(user.id, jwtIssuedAt)
        if (status !== 'valid') {
          await store.revoke(user.id, row.id, new Date())
          if (status === 'gone') throw unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
          throw unauthorized('token_revoked', 'This token was issued before the password or sign-in methods changed; log in again.')
        }
      }
      return { token_id: row.id, token, name: row.name, expires_at: row.expiresAt.toISOString() }
    },

    /** Tokens not revoked, newest first; expired ones stay listed (their expires_at says why a script stopped). */
    list: async (userId: string): Promise<TokenSummary[]> => (await store.listUnrevoked(userId)).map(summary),

    /** Another user's token, an unknown id and an already revoked token are all 404. */
    async revoke(userId: string, tokenId: string): Promise<void> {
      if (!(await store.revoke(userId, tokenId, new Date()))) throw notFound('No such token.')
    },

    revokeAll: (userId: string, tx?: Tx) => store.revokeAll(userId, new Date(), tx),

    async authenticate(token: string): Promise<Principal> {
      // Shape and checksum first: a mistyped or made-up token costs no database query.
      let entry = known.get(token)
      if (entry === undefined) {
        if (!isWellFormedPat(token)) throw invalid()
        entry = { hash: hashPat(token) }
        if (known.size >= HASH_CACHE_SIZE) known.clear()
        known.set(token, entry)
      }
      const early = entry.userId === undefined ? undefined : accounts.authUserById(entry.userId)
      // Not awaited when the token turns out invalid: its failure must not go unhandled.
      early?.catch(() => {})
      const found = await store.byHash(entry.hash)
      if (!found) throw invalid()
      const now = Date.now()
      if (found.revokedAt !== null) throw unauthorized('token_revoked', 'This personal access token has been revoked.')
      if (found.expiresAt <= now) throw unauthorized('token_expired', 'This personal access token has expired.')
      const user = await (early !== undefined && entry.userId === found.userId ? early : accounts.authUserById(found.userId))
      entry.userId = found.userId
      if (!user) throw invalid()
      if (!TIER_LIMITS[user.tier].api_access) {
        throw new ProblemError(
          403,
          'api_access_required',
          `API access with personal access tokens needs the starter tier or higher; your tier is ${user.tier}.`,
          {
            required_tier: 'starter',
          },
        )
      }
      if (now - (found.lastUsedAt ?? 0) >= LAST_USED_RESOLUTION_MS) {
        await store.touch(found.id, new Date(now), new Date(now - LAST_USED_RESOLUTION_MS))
      }
      return { user, via: 'pat', tokenId: found.id, issuedAt: null }
    },

    /** Deletes tokens revoked or expired more than 30 days ago (the periodic sweep). */
    prune: (now = Date.now()) => store.prune(new Date(now - KEEP_DEAD_TOKENS_MS)),
  }
}

export type TokensService = ReturnType<typeof createTokensService>
