// /api/auth/register, /api/auth/login, /api/user/me, /api/user/password (contract section 3).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { clientAddress } from '../../http/request-context'
import { Int, jsonBody, NO_STORE, problems, strictObject, TierSchema } from '../../http/schemas'
import { hitRateLimit } from '../usage/rate-limit'
import type { Db } from '../../db/client'
import { type Accounts, NAME_MAX, publicUser } from './service'

const PublicUser = t.Object({ id: t.String(), email: t.String({ format: 'email' }), name: t.String(), tier: TierSchema })

const AuthResponse = t.Object({
  access_token: t.String({ description: 'HS256 JWT, valid for 7 days' }),
  token_type: t.Literal('bearer'),
  user: PublicUser,
})

const Limits = t.Object({
  prompts_per_day: t.Nullable(Int()),
  optimizations_per_day: t.Nullable(Int()),
  api_access: t.Boolean(),
  skills_access: t.Boolean(),
  max_tokens: Int(),
})

const Profile = t.Object({
  ...PublicUser.properties,
  created_at: t.String({ format: 'date-time' }),
  providers: t.Array(t.String(), { description: '"password" and/or the OAuth providers linked' }),
  limits: Limits,
  usage: t.Object({ prompts_today: Int(), optimizations_today: Int() }),
})

const password = (description: string) => t.String({ description })

export interface AccountsRoutesDeps {
  db: Db
  accounts: Accounts
  guard: AuthGuard
  authRateLimit: number
}

export function accountsRoutes({ db, accounts, guard, authRateLimit }: AccountsRoutesDeps) {
  // Login and register share one per-address budget; every attempt counts, before its body is read.
  const limitAttempts = ({ request }: { request: Request }) =>
    hitRateLimit(db, `auth:${clientAddress(request)}`, authRateLimit)

  return new Elysia({ name: 'accounts' })
    .use(guard)
    .post(
      '/api/auth/register',
      async ({ body, set }) => {
        const { user, accessToken } = await accounts.register(body)
        set.status = 201
        Object.assign(set.headers, NO_STORE)
        return { access_token: accessToken, token_type: 'bearer' as const, user: publicUser(user) }
      },
      {
        ...jsonBody(
          strictObject({
            email: t.String({ maxLength: 320, description: 'trimmed and lower-cased; must be unique' }),
            password: password('8–128 characters; not the e-mail, not a common password'),
            name: t.String({ maxLength: 1000, description: `1–${NAME_MAX} characters after trimming` }),
          }),
          limitAttempts,
        ),
        response: { 201: AuthResponse, ...problems(400, 409, 413, 415, 422, 429) },
        detail: { tags: ['accounts'], summary: 'Create an account (e-mail and password)' },
      },
    )
    .post(
      '/api/auth/login',
      async ({ body, set }) => {
        const { user, accessToken } = await accounts.login(body)
        Object.assign(set.headers, NO_STORE)
        return { access_token: accessToken, token_type: 'bearer' as const, user: publicUser(user) }
      },
      {
        ...jsonBody(strictObject({ email: t.String({ maxLength: 320 }), password: t.String({ maxLength: 1024 }) }), limitAttempts),
        response: { 200: AuthResponse, ...problems(400, 401, 413, 415, 422, 429) },
        detail: { tags: ['accounts'], summary: 'Log in with e-mail and password' },
      },
    )
    .get('/api/user/me', ({ user }) => accounts.profile(user), {
      auth: true,
      response: { 200: Profile, ...problems(401, 403) },
      detail: { tags: ['accounts'], summary: 'The current user, their limits and today’s usage', security: [{ bearer: [] }] },
    })
    .delete(
      '/api/user/me',
      ({ user, set }) => {
        accounts.deleteAccount(user.id)
        set.status = 204
      },
      {
        jwtOnly: true,
        response: { 204: t.Void(), ...problems(401, 403) },
        detail: {
          tags: ['accounts'],
          summary: 'Delete the account and everything it owns (needs a JWT, not a PAT)',
          security: [{ bearer: [] }],
        },
      },
    )
    .post(
      '/api/user/password',
      async ({ user, body, set }) => {
        hitRateLimit(db, `password:${user.id}`, authRateLimit)
        await accounts.changePassword(user.id, body.current_password, body.new_password)
        set.status = 204
      },
      {
        ...guard.jsonBody(
          { jwtOnly: true },
          strictObject({
            current_password: t.String({ maxLength: 1024 }),
            new_password: password('8–128 characters; not the e-mail, not a common password'),
          }),
        ),
        response: { 204: t.Void(), ...problems(400, 401, 403, 413, 415, 422, 429) },
        detail: {
          tags: ['accounts'],
          summary: 'Change the password; every JWT issued before stops working (PATs stay)',
          security: [{ bearer: [] }],
        },
      },
    )
}

