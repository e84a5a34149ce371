// The accounts port: users and what signing in needs of them.
import type { Tx } from '../../db/storage'
import type { Tier } from '../../tiers'

export interface UserRecord {
  id: string
  /** trimmed and lower-cased */
  email: string
  name: string
  /** argon2id PHC string; null for accounts that only sign in through a provider */
  passwordHash: string | null
  emailVerified: boolean
  tier: Tier
  /** when set, `tier` holds until this time and `tierAfter` follows (see effectiveTier) */
  tierUntil: Date | null
  tierAfter: Tier | null
  /** JWTs issued (iat) before this Unix second are refused */
  tokensNotBefore: number
  /** sign-in providers linked to the account, space-separated and sorted ('' for none) */
  linkedProviders: string
  createdAt: Date
  updatedAt: Date
}

/** What every authenticated request reads: the user without the password hash. */
export interface AuthRecord {
  id: string
  email: string
  name: string
  tier: Tier
  tierUntil: Date | null
  tierAfter: Tier | null
  createdAt: Date
  tokensNotBefore: number
  hasPassword: boolean
  /** space-separated, sorted */
  linkedProviders: string
}

export type UserChanges = Partial<
  Pick<UserRecord, 'name' | 'passwordHash' | 'emailVerified' | 'tier' | 'tierUntil' | 'tierAfter' | 'linkedProviders'>
> & {
  /**
   * Every JWT issued so far stops working: tokens_not_before moves to at least this second, and
   * past its stored value in any case (a token issued in the second of an earlier change carries
   * that value as its iat). In the statement itself, so concurrent changes each move it on.
   */
  revokeTokensFrom?: number
}

export interface AccountsStore {
  /** false when the e-mail is taken (the unique index decides races). */
  insert(user: UserRecord, tx?: Tx): Promise<boolean>
  byId(id: string, tx?: Tx): Promise<UserRecord | null>
  byEmail(email: string, tx?: Tx): Promise<UserRecord | null>
  /** The hot lookup of every authenticated request. */
  authById(id: string): Promise<AuthRecord | null>
  /** Sets the given fields (and updated_at); null when there is no such user. */
  update(id: string, changes: UserChanges, now: Date, tx?: Tx): Promise<UserRecord | null>
  /** Sets the tier and its scheduled change (payments: once per webhook delivery); false when there is no such user. */
  setTier(id: string, tier: Tier, tierUntil: Date | null, tierAfter: Tier | null, now: Date, tx?: Tx): Promise<boolean>
  /** Deletes the user; rows of other features that reference it go with it (ON DELETE CASCADE). */
  delete(id: string, tx?: Tx): Promise<boolean>
  list(): Promise<UserRecord[]>
  /** Ids of users whose scheduled tier change (tier_until) is due at `now`, at most `limit`. */
  dueTierChanges(now: Date, limit: number): Promise<string[]>
}
