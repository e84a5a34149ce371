// Accounts: registration, login, profile, password change, deletion, tiers; and the JWT
// authenticator the bearer guard uses. Plain values in and out; storage behind AccountsStore.
import { createId } from '../../lib/ids'
import type { Tx } from '../../db/storage'
import type { AuthUser, Principal } from '../../http/auth'
import type { JwtCodec } from '../../http/jwt'
import { ProblemError, unauthorized, validationFailed, WWW_AUTHENTICATE_REALM } from '../../http/problem'
import { CONTROL_CHARS, cleanLabel } from '../../http/text'
import { type Tier, TIER_LIMITS } from '../../tiers'
import { todayUtc, type UsageService, userSubject } from '../usage'
import { type LoginBody, NAME_MAX, type Profile, type PublicUser, type RegisterBody } from './model'
import { assertStrongPassword, type PasswordHasher } from './passwords'
import type { AccountsStore, AuthRecord, UserRecord } from './store'

const EMAIL_MAX = 254
// Exactly what the answers declare for `email` (format "email" in model.ts, Elysia's definition),
// with the lengths of RFC 5321: dot-separated ASCII atoms (at most 64 characters) before the @,
// two or more host-name labels after it. An address outside this was stored and then failed every
// answer that carries it (register, login, /api/user/me: 422 for good). ASCII only also leaves no
// Unicode look-alikes, invisible or control characters, or NFC/NFD twins of one address.
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+"
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const EMAIL_SHAPE = new RegExp(`^(?=[^@]{1,64}@)${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${LABEL}$`)

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** For a normalised (lower-cased) address. */
function validEmail(email: string): boolean {
  return email.length <= EMAIL_MAX && EMAIL_SHAPE.test(email)
}

/** A change of tier planned for later: `tier` from `at` on (the end of a cancelled wallet subscription's period). */
export interface TierStep {
  at: Date
  tier: Tier
}

/**
 * The tier in force at `now`. A scheduled change (tier_until, tier_after) applies on read, before
 * billing's sweep writes it: the hot path pays one comparison for it.
 */
export function effectiveTier(user: { tier: Tier; tierUntil: Date | null; tierAfter: Tier | null }, now = Date.now()): Tier {
  return user.tierUntil !== null && user.tierUntil.getTime() <= now ? (user.tierAfter ?? 'free') : user.tier
}

export const publicUser = (u: Pick<UserRecord, 'id' | 'email' | 'name' | 'tier'>): PublicUser => ({
  id: u.id,
  email: u.email,
  name: u.name,
  tier: u.tier,
})

/** Work other features do when an account goes, inside the deleting transaction. */
export type UserDeletedHook = (userId: string, tx: Tx) => Promise<void>
/** Runs before the deletion's transaction (a call to another service may take seconds); throwing refuses the deletion. */
export type UserDeletingHook = (userId: string) => Promise<void>

export interface AccountsDeps {
  store: AccountsStore
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>
  jwt: JwtCodec
  hasher: PasswordHasher
  usage: Pick<UsageService, 'usedToday'>
  /** The sign-in providers linked to the account (oauth), for the profile's `providers`. */
}

// The record an AuthUser was built from rides along on it under a symbol (invisible to JSON),
// so /api/user/me needs no second lookup of the user.
const RECORD = Symbol('promptlib.auth-record')
type WithRecord = AuthUser & { [RECORD]?: AuthRecord }

const gone = () => unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
const taken = () => new ProblemError(409, 'email_taken', 'An account with this e-mail address already exists.')

/** A provider's display name made fit for `name`: no control characters, at most NAME_MAX characters; null when nothing is left. */
function tidyName(name: string | null | undefined): string | null {
  const tidy = [...(name ?? '').replace(new RegExp(CONTROL_CHARS.source, 'g'), ' ').trim()].slice(0, NAME_MAX).join('').trim()
  return tidy === '' ? null : tidy
}

export function createAccountsService({ store, transaction, jwt, hasher, usage }: AccountsDeps) {
  const deletedHooks: UserDeletedHook[] = []
  const deletingHooks: UserDeletingHook[] = []

  /**
   * A token never predates the user's not-before second, or it would be born revoked. `checkedAt`
   * (Unix seconds, default now) is when the credential was checked: a token is stamped no later,
   * so a password change or takeover that commits after that check revokes it too.
   */
  /** The second after this one: what a JWT issued now carries as its iat stops working from there. */
  const nextSecond = () => Math.floor(Date.now() / 1000) + 1

  function issueToken(user: Pick<UserRecord, 'id' | 'email' | 'tokensNotBefore'>, checkedAt = Math.floor(Date.now() / 1000)): string {
    return jwt.sign({ user_id: user.id, email: user.email }, Math.max(checkedAt, user.tokensNotBefore))
  }

  function authUser(record: AuthRecord): AuthUser {
    const user: WithRecord = {
      id: record.id,
      email: record.email,
      name: record.name,
      tier: effectiveTier(record),
      createdAt: record.createdAt,
      [RECORD]: record,
    }
    return user
  }

  return {
    issueToken,

    /** The request's user for an id another authenticator (a PAT) resolved, or null when the account is gone. */
    async authUserById(id: string): Promise<AuthUser | null> {
      const record = await store.authById(id)
      return record && authUser(record)
    },

    findByEmail: (email: string, tx?: Tx) => store.byEmail(normaliseEmail(email), tx),

    byId: (id: string, tx?: Tx) => store.byId(id, tx),

    /**
     * An account for an e-mail a provider has verified, without a password (it signs in through
     * the provider until it sets one). null when the e-mail is taken or not a valid address.
     */
    async createVerified(input: { email: string; name: string | null }, tx?: Tx): Promise<UserRecord | null> {
      const email = normaliseEmail(input.email)
      if (!validEmail(email)) return null
      const now = new Date()
      const user: UserRecord = {
        id: createId(),
        email,
        name: tidyName(input.name) ?? tidyName(email.slice(0, email.indexOf('@'))) ?? 'User',
        passwordHash: null,
        emailVerified: true,
        tier: 'free',
        tierUntil: null,
        tierAfter: null,
        tokensNotBefore: 0,
        linkedProviders: '',
        createdAt: now,
        updatedAt: now,
      }
      return (await store.insert(user, tx)) ? user : null
    },

    /**
     * A provider has proven the account's e-mail. An account whose e-mail was never proven was
     * registered by whoever typed the address first (contract section 4, pre-hijacking): its
     * password is cleared and every JWT issued so far stops working (`tookOver`; the caller
     * revokes its personal access tokens in the same transaction). null when there is no such user.
     */
    async confirmEmail(userId: string, tx?: Tx): Promise<{ user: UserRecord; tookOver: boolean } | null> {
      const user = await store.byId(userId, tx)
      if (!user) return null
      if (user.emailVerified) return { user, tookOver: false }
      const updated = await store.update(userId, { emailVerified: true, passwordHash: null, revokeTokensFrom: nextSecond() }, new Date(), tx)
      return updated && { user: updated, tookOver: true }
    },

    /** Notes a provider the user now signs in with (oauth, in its linking transaction): /api/user/me lists it. */
    async noteProviderLinked(userId: string, provider: string, tx?: Tx): Promise<void> {
      const user = await store.byId(userId, tx)
      if (!user) return
      const linked = new Set(user.linkedProviders === '' ? [] : user.linkedProviders.split(' '))
      if (linked.has(provider)) return
      await store.update(userId, { linkedProviders: [...linked, provider].sort().join(' ') }, new Date(), tx)
    },

    async register(input: RegisterBody): Promise<{ user: UserRecord; accessToken: string }> {
      const email = normaliseEmail(input.email)
      if (!validEmail(email)) throw validationFailed([{ path: '/email', message: 'must be a valid e-mail address' }])
      const name = cleanLabel(input.name, '/name', NAME_MAX)
      assertStrongPassword(input.password, email)
      if (await store.byEmail(email)) throw taken()
      const now = new Date()
      const user: UserRecord = {
        id: createId(),
        email,
        name,
        passwordHash: await hasher.hash(input.password),
        emailVerified: false,
        tier: 'free',
        tierUntil: null,
        tierAfter: null,
        tokensNotBefore: 0,
        linkedProviders: '',
        createdAt: now,
        updatedAt: now,
      }
      // Two registrations may race past the check above; the unique index decides.
      if (!(await store.insert(user))) throw taken()
      return { user, accessToken: issueToken(user) }
    },

    /** Unknown e-mail and wrong password fail alike, in body and in time. */
    async login(input: LoginBody): Promise<{ user: UserRecord; accessToken: string }> {
      const wrong = () =>
        new ProblemError(401, 'invalid_credentials', 'The e-mail or password is wrong.', {}, { 'www-authenticate': WWW_AUTHENTICATE_REALM })
      // The verification takes a while (argon2id); the password may change, or a provider sign-in
      // clear it, meanwhile. The password checked is the one read here, so the token is stamped
      // with this second (a change committed later sets a later not-before and revokes it), and
      // a login whose password is no longer the account's fails like a wrong password.
      const readAt = Math.floor(Date.now() / 1000)
      const user = await store.byEmail(normaliseEmail(input.email))
      const ok = user?.passwordHash ? await hasher.verify(input.password, user.passwordHash) : await hasher.verifyAgainstDummy(input.password)
      if (!user || !ok) throw wrong()
      const current = await store.byId(user.id)
      if (!current || current.passwordHash !== user.passwordHash) throw wrong()
      return { user: current, accessToken: issueToken(current, readAt) }
    },

    async authenticateJwt(token: string): Promise<Principal> {
      const result = jwt.verify(token)
      if (!result.ok) {
        if (result.reason === 'expired') throw unauthorized('token_expired', 'The access token has expired; log in again.')
        throw unauthorized('invalid_token', 'The access token is not valid.')
      }
      const record = await store.authById(result.claims.user_id)
      if (!record) throw gone()
      if (result.claims.iat < record.tokensNotBefore) {
        throw unauthorized('token_revoked', 'This token was issued before the password or sign-in methods changed; log in again.')
      }
      return { user: authUser(record), via: 'jwt', tokenId: null, issuedAt: result.claims.iat }
    },

    /**
     * Whether a JWT issued at `issuedAt` still stands now: a request authenticated with it may
     * have raced a password change, a takeover by a verified sign-in, or the account's deletion.
     */
    async jwtStatus(userId: string, issuedAt: number): Promise<'valid' | 'revoked' | 'gone'> {
      const record = await store.authById(userId)
      if (!record) return 'gone'
      return issuedAt < record.tokensNotBefore ? 'revoked' : 'valid'
    },

    async profile(user: AuthUser): Promise<Profile> {
      const record = (user as WithRecord)[RECORD] ?? (await store.authById(user.id))
      if (!record) throw gone()
      const used = await usage.usedToday(userSubject(user.id), todayUtc())
      const linked = record.linkedProviders === '' ? [] : record.linkedProviders.split(' ')
      return {
        ...publicUser(user),
        created_at: user.createdAt.toISOString(),
        providers: record.hasPassword ? ['password', ...linked] : linked,
        limits: TIER_LIMITS[user.tier],
        usage: { prompts_today: used.prompts, optimizations_today: used.optimizations },
      }
    },

    /**
     * `currentPassword` must be right, except for an account that has no password yet (created
     * through a provider): it sets its first one without, and must not send one.
     */
    async changePassword(userId: string, currentPassword: string | undefined, newPassword: string): Promise<void> {
      const user = await store.byId(userId)
      if (!user) throw gone()
      const refuse = (detail: string) => {
        throw new ProblemError(422, 'invalid_current_password', detail, { errors: [{ path: '/current_password', message: detail }] })
      }
      if (user.passwordHash === null) {
        if (currentPassword !== undefined) refuse('This account has no password yet; leave out current_password to set one.')
      } else if (currentPassword === undefined) {
        refuse('current_password is required to change the password.')
      } else if (!(await hasher.verify(currentPassword, user.passwordHash))) {
        refuse('The current password is wrong.')
      }
      assertStrongPassword(newPassword, user.email, '/new_password')
      const passwordHash = await hasher.hash(newPassword)
      // Every JWT issued so far stops working; new logins get iat >= the new not-before time.
      await store.update(userId, { passwordHash, revokeTokensFrom: nextSecond() }, new Date())
    },

    /** Other features register what they do when an account goes (their rows without a foreign key). */
    onUserDeleted(hook: UserDeletedHook): void {
      deletedHooks.push(hook)
    },

    /** What other features must do before an account goes, outside its transaction (billing: stop its subscriptions at the providers). */
    onUserDeleting(hook: UserDeletingHook): void {
      deletingHooks.push(hook)
    },

    /** Deletes the user and everything it owns, in one transaction, once every onUserDeleting hook has done its part. */
    async deleteAccount(userId: string): Promise<void> {
      for (const hook of deletingHooks) await hook(userId)
      await transaction(async (tx) => {
        for (const hook of deletedHooks) await hook(userId, tx)
        await store.delete(userId, tx)
      })
    },

    /**
     * The one way a tier changes (payments, the CLI); null when there is no such user. `next`
     * schedules the tier that follows at a given time (applied on read at once, persisted by
     * billing's sweep); without it any scheduled change is dropped.
     */
    setTier: (userId: string, tier: Tier, tx?: Tx, next: TierStep | null = null): Promise<boolean> =>
      store.setTier(userId, tier, next?.at ?? null, next?.tier ?? null, new Date(), tx),

    async setTierByEmail(email: string, tier: Tier): Promise<UserRecord | null> {
      const user = await store.byEmail(normaliseEmail(email))
      return user && store.update(user.id, { tier, tierUntil: null, tierAfter: null }, new Date())
    },

    /**
     * The user with the tier in force now (a due scheduled change applied), inside `tx` when given;
     * null when there is no such user. (authUserById reads outside any transaction: on PostgreSQL
     * that takes a second connection, which a transaction must never wait for.)
     */
    async userById(userId: string, tx?: Tx): Promise<Pick<AuthUser, 'id' | 'email' | 'name' | 'tier'> | null> {
      const user = await store.byId(userId, tx)
      return user && { id: user.id, email: user.email, name: user.name, tier: effectiveTier(user) }
    },

    /** Users whose scheduled tier change is due: billing's sweep recomputes and persists them. */
    dueTierChanges: (now = new Date(), limit = 500) => store.dueTierChanges(now, limit),

    list: () => store.list(),
  }
}

export type AccountsService = ReturnType<typeof createAccountsService>
