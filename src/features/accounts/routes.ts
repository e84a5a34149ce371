// /api/auth/register, /api/auth/login, /api/user/me, /api/user/password (contract section 3).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { clientAddress } from '../../http/request-context'
import { jsonBody, NO_STORE, problems } from '../../http/schemas'
import type { UsageService } from '../usage'
import { AuthResponse, LoginBody, PasswordBody, Profile, RegisterBody } from './model'
import { type AccountsService, publicUser } from './service'

export interface AccountsRoutesDeps {
  accounts: AccountsService
  usage: Pick<UsageService, 'hitRateLimit'>
  guard: AuthGuard
  authRateLimit: number
}

export function accountsRoutes({ accounts, usage, guard, authRateLimit }: AccountsRoutesDeps) {
  // Login and register share one per-address budget; every attempt counts, before its body is read.
  const limitAttempts = ({ request }: { request: Request }) =>
    usage.hitRateLimit(`auth:${clientAddress(request)}`, authRateLimit, 'Too many attempts from this address; wait a minute and try again.')

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
        ...jsonBody(RegisterBody, limitAttempts),
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
        ...jsonBody(LoginBody, limitAttempts),
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
      async ({ user, set }) => {
        await accounts.deleteAccount(user.id)
        set.status = 204
      },
      {
        jwtOnly: true,
        response: { 204: t.Void(), ...problems(401, 403, 502) },
        detail: {
          tags: ['accounts'],
          summary: 'Delete the account and everything it owns (needs a JWT, not a PAT)',
          description:
            'A subscription that would charge again is cancelled at its provider first; when the provider cannot be reached: 502 upstream_unavailable, nothing deleted.',
          security: [{ bearer: [] }],
        },
      },
    )
    .post(
      '/api/user/password',
      async ({ user, body, set }) => {
        await usage.hitRateLimit(`password:${user.id}`, authRateLimit, 'Too many password changes; wait a minute and try again.')
        await accounts.changePassword(user.id, body.current_password, body.new_password)
        set.status = 204
      },
      {
        ...guard.jsonBody({ jwtOnly: true }, PasswordBody),
        response: { 204: t.Void(), ...problems(400, 401, 403, 413, 415, 422, 429) },
        detail: {
          tags: ['accounts'],
          summary:
            'Change the password (or set the first one of an account created through a provider); every JWT issued before stops working (PATs stay)',
          security: [{ bearer: [] }],
        },
      },
    )
}
