// Accounts: registration, login, profile, password change, deletion; and the JWT
// authenticator the bearer guard uses.
import { createId } from '@paralleldrive/cuid2'
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import type { BatchedRead } from '../../db/read-batch'
import type { AuthUser, Principal } from '../../http/auth'
import type { JwtCodec } from '../../http/jwt'
import { ProblemError, unauthorized, validationFailed } from '../../http/problem'
import { CONTROL_CHARS, cleanLabel } from '../../http/text'
import { type Tier, TIER_LIMITS } from '../../tiers'
import { dailyUsage, dailyUsageItems } from '../usage/schema'
import { todayUtc, userSubject } from '../usage/daily'
import { assertStrongPassword, type PasswordHasher } from './passwords'
import { users, type UserRow } from './schema'

export const NAME_MAX = 100
const EMAIL_MAX = 254
const EMAIL_SHAPE = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

function validEmail(email: string): boolean {
  return email.length <= EMAIL_MAX && EMAIL_SHAPE.test(email) && !CONTROL_CHARS.test(email)
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' || (e as { code?: string }).code === '23505') return true
  }
  return false
}

export interface UserProfile {
  id: string
  email: string
  name: string
  tier: Tier
  created_at: string
  providers: string[]
  limits: (typeof TIER_LIMITS)[Tier]
  usage: { prompts_today: number; optimizations_today: number }
}

/** What the authentication query returns for one user (see authColumns). */
export interface AuthSnapshotRow {
  id: string
  email: string
  name: string
  tier: Tier
  createdAt: Date
  tokensNotBefore: number
  hasPassword: number
  promptsToday: number
  optimizationsToday: number
}

export const publicUser = (u: Pick<UserRow, 'id' | 'email' | 'name' | 'tier'>) => ({ id: u.id, email: u.email, name: u.name, tier: u.tier })

export interface AccountsDeps {
  db: Db
  jwt: JwtCodec
  hasher: PasswordHasher
  /** how the per-request user lookup reaches the database (batched by the server) */
  read?: BatchedRead
}

const readNow: BatchedRead = async (read) => read()

// The row an AuthUser was built from rides along on it under a symbol (invisible to JSON), so
// /api/user/me needs no second query; cheaper than a WeakMap entry per request.
const SNAPSHOT = Symbol('promptlib.auth-snapshot')
type WithSnapshot = AuthUser & { [SNAPSHOT]?: AuthSnapshotRow }

export function createAccounts({ db, jwt, hasher, read = readNow }: AccountsDeps) {
  // Prepared once: this lookup runs on every authenticated request.
  const userById = db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare()
  // The one query of an authenticated request: the user (fresh tier) plus what /api/user/me
  // shows, so that endpoint needs no second round-trip to the database. Other authenticators
  // (PATs) select the same columns in their own single query and hand the row to adoptAuthRow.
  const usedToday = (metric: string) =>
    sql<number>`coalesce((SELECT ${dailyUsage.count} FROM ${dailyUsage} WHERE ${dailyUsage.subject} = 'user:' || ${users.id} AND ${dailyUsage.metric} = ${metric} AND ${dailyUsage.day} = ${sql.placeholder('day')}), 0)`
  // Flat and only what is used: every column mapped is work on every request.
  const authColumns = {
    id: users.id,
    email: users.email,
    name: users.name,
    tier: users.tier,
    createdAt: users.createdAt,
    tokensNotBefore: users.tokensNotBefore,
    hasPassword: sql<number>`${users.passwordHash} IS NOT NULL`,
    promptsToday: usedToday('prompts'),
    optimizationsToday: usedToday('optimizations'),
  }
  const authLookup = db.select(authColumns).from(users).where(eq(users.id, sql.placeholder('id'))).prepare()

  function adoptAuthRow(found: AuthSnapshotRow): AuthUser {
    const user: WithSnapshot = { id: found.id, email: found.email, name: found.name, tier: found.tier, createdAt: found.createdAt, [SNAPSHOT]: found }
    return user
  }

  function loadAuthUser(id: string): { user: AuthUser; row: AuthSnapshotRow } | undefined {
    const found = authLookup.get({ id, day: todayUtc() })
    return found && { user: adoptAuthRow(found), row: found }
  }
  const userByEmail = db.select().from(users).where(eq(users.email, sql.placeholder('email'))).prepare()

  /** A token never predates the user's not-before second, or it would be born revoked. */
  function issueToken(user: UserRow): string {
    const now = Math.floor(Date.now() / 1000)
    return jwt.sign({ user_id: user.id, email: user.email }, Math.max(now, user.tokensNotBefore))
  }

  return {
    issueToken,

    /**
     * For other authenticators: select these columns (joined with `users`, placeholder `day` =
     * utcDay(now)) in your own query, then turn the row into the request's user with adoptAuthRow.
     */
    authColumns,
    adoptAuthRow,

    findByEmail(email: string): UserRow | undefined {
      return userByEmail.get({ email: normaliseEmail(email) })
    },

    async register(input: { email: string; password: string; name: string }) {
      const email = normaliseEmail(input.email)
      if (!validEmail(email)) throw validationFailed([{ path: '/email', message: 'must be a valid e-mail address' }])
      const name = cleanLabel(input.name, '/name', NAME_MAX)
      assertStrongPassword(input.password, email)
      const taken = () => new ProblemError(409, 'email_taken', 'An account with this e-mail address already exists.')
      if (userByEmail.get({ email })) throw taken()
      const passwordHash = await hasher.hash(input.password)
      const now = new Date()
      try {
        const user = db
          .insert(users)
          .values({ id: createId(), email, name, passwordHash, createdAt: now, updatedAt: now })
          .returning()
          .get()
        return { user, accessToken: issueToken(user) }
      } catch (error) {
        // Two registrations raced past the check above; the unique index decides.
        if (isUniqueViolation(error)) throw taken()
        throw error
      }
    },

    /** Unknown e-mail and wrong password fail alike, in body and in time. */
    async login(input: { email: string; password: string }) {
      const user = userByEmail.get({ email: normaliseEmail(input.email) })
      const ok = user?.passwordHash
        ? await hasher.verify(input.password, user.passwordHash)
        : await hasher.verifyAgainstDummy(input.password)
      if (!user || !ok) throw new ProblemError(401, 'invalid_credentials', 'The e-mail or password is wrong.', {}, { 'www-authenticate': 'Bearer realm="promptlib"' })
      return { user, accessToken: issueToken(user) }
    },

    async authenticateJwt(token: string): Promise<Principal> {
      const result = jwt.verify(token)
      if (!result.ok) {
        if (result.reason === 'expired') throw unauthorized('token_expired', 'The access token has expired; log in again.')
        throw unauthorized('invalid_token', 'The access token is not valid.')
      }
      const userId = result.claims.user_id
      const found = await read(() => loadAuthUser(userId))
      if (!found) throw unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
      if (result.claims.iat < found.row.tokensNotBefore) {
        throw unauthorized('token_revoked', 'This token was issued before the password or sign-in methods changed; log in again.')
      }
      return { user: found.user, via: 'jwt', tokenId: null }
    },

    profile(user: AuthUser): UserProfile {
      const snapshot = (user as WithSnapshot)[SNAPSHOT] ?? loadAuthUser(user.id)?.row
      if (!snapshot) throw unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
      return {
        ...publicUser(user),
        created_at: user.createdAt.toISOString(),
        providers: snapshot.hasPassword ? ['password'] : [],
        limits: TIER_LIMITS[user.tier],
        usage: { prompts_today: snapshot.promptsToday, optimizations_today: snapshot.optimizationsToday },
      }
    },

    async changePassword(userId: string, currentPassword: string, newPassword: string) {
      const user = userById.get({ id: userId })
      if (!user) throw unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
      const ok = user.passwordHash ? await hasher.verify(currentPassword, user.passwordHash) : false
      if (!ok) {
        const detail = user.passwordHash ? 'The current password is wrong.' : 'This account has no password; it signs in through an identity provider.'
        throw new ProblemError(422, 'invalid_current_password', detail, { errors: [{ path: '/current_password', message: detail }] })
      }
      assertStrongPassword(newPassword, user.email, '/new_password')
      const passwordHash = await hasher.hash(newPassword)
      // Every JWT issued up to this second stops working; new logins get iat >= this value.
      const notBefore = Math.floor(Date.now() / 1000) + 1
      db.update(users).set({ passwordHash, tokensNotBefore: notBefore, updatedAt: new Date() }).where(eq(users.id, userId)).run()
    },

    /** Deletes the user; their rows in other features go with it (ON DELETE CASCADE). */
    deleteAccount(userId: string): void {
      db.transaction((tx) => {
        tx.delete(dailyUsage).where(eq(dailyUsage.subject, userSubject(userId))).run()
        tx.delete(dailyUsageItems).where(eq(dailyUsageItems.subject, userSubject(userId))).run()
        tx.delete(users).where(eq(users.id, userId)).run()
      })
    },

    setTier(email: string, tier: Tier): UserRow | undefined {
      return db.update(users).set({ tier, updatedAt: new Date() }).where(eq(users.email, normaliseEmail(email))).returning().get()
    },

    list(): UserRow[] {
      return db.select().from(users).orderBy(users.createdAt).all()
    },
  }
}

export type Accounts = ReturnType<typeof createAccounts>
