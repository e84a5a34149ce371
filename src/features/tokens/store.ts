// The personal-access-token port.
import type { Tx } from '../../db/storage'

export interface PatRecord {
  id: string
  userId: string
  name: string
  /** SHA-256 of the whole token, hex */
  tokenHash: string
  createdAt: Date
  expiresAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

/** What authenticating with a token needs (times in epoch ms). */
export interface PatLookup {
  id: string
  userId: string
  expiresAt: number
  revokedAt: number | null
  lastUsedAt: number | null
}

export interface TokensStore {
  /**
   * Inserts the token unless the user already holds `limit` tokens that are neither revoked
   * nor expired at `now`; atomic across concurrent requests and instances. false: at the limit;
   * null: the user no longer exists (deleted while the request ran; the foreign key refused it).
   */
  insertWithinLimit(token: PatRecord, limit: number, now: Date): Promise<boolean | null>
  /** Tokens not revoked, newest first (expired ones included). */
  listUnrevoked(userId: string): Promise<PatRecord[]>
  /** false when the token is unknown, another user's, or already revoked. */
  revoke(userId: string, tokenId: string, now: Date, tx?: Tx): Promise<boolean>
  /** Revokes every token of the user (an account taken over by a verified sign-in). */
  revokeAll(userId: string, now: Date, tx?: Tx): Promise<number>
  byHash(hash: string): Promise<PatLookup | null>
  /** Sets last_used_at = now unless it is already later than `unlessAfter` (one write per minute at most). */
  touch(tokenId: string, now: Date, unlessAfter: Date): Promise<void>
  /** Deletes tokens revoked or expired before `cutoff`. */
  prune(cutoff: Date): Promise<void>
}
