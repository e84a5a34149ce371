// /api/user/tokens: personal access tokens for scripts (contract section 3).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { cleanLabel } from '../../http/text'
import { Int, NO_STORE, problems, strictObject } from '../../http/schemas'
import { DEFAULT_EXPIRY_DAYS, type Tokens } from './service'

const NAME_MAX = 100

const Created = t.Object({
  token_id: t.String(),
  token: t.String({ description: 'plib_pat_… — shown once, never again' }),
  name: t.String(),
  expires_at: t.String({ format: 'date-time' }),
})

const Summary = t.Object({
  token_id: t.String(),
  name: t.String(),
  created_at: t.String({ format: 'date-time' }),
  expires_at: t.String({ format: 'date-time' }),
  last_used_at: t.Nullable(t.String({ format: 'date-time' })),
})

export function tokensRoutes({ tokens, guard }: { tokens: Tokens; guard: AuthGuard }) {
  return new Elysia({ name: 'tokens' })
    .use(guard)
    .post(
      '/api/user/tokens',
      ({ user, body, set }) => {
        const created = tokens.create(user, cleanLabel(body.name, '/name', NAME_MAX), body.expires_in_days ?? DEFAULT_EXPIRY_DAYS)
        set.status = 201
        Object.assign(set.headers, NO_STORE)
        return created
      },
      {
        ...guard.jsonBody(
          { jwtOnly: true, minTier: 'starter' },
          strictObject({
            name: t.String({ maxLength: 1000, description: `a label, 1–${NAME_MAX} characters after trimming` }),
            expires_in_days: t.Optional(Int({ minimum: 1, maximum: 365, default: DEFAULT_EXPIRY_DAYS, description: '1–365, default 90 (the advised maximum)' })),
          }),
        ),
        response: { 201: Created, ...problems(400, 401, 403, 413, 415, 422) },
        detail: {
          tags: ['tokens'],
          summary: 'Create a personal access token (needs a JWT; starter tier or higher)',
          description:
            'The secret is in this response only. Tiers hold at most: starter 1, pro 3, lifetime 5 active tokens; over the maximum → 403 token_limit_reached with `limit`; free → 403 upgrade_required.',
          security: [{ bearer: [] }],
        },
      },
    )
    .get('/api/user/tokens', ({ user }) => ({ items: tokens.list(user.id) }), {
      auth: true,
      response: { 200: t.Object({ items: t.Array(Summary) }), ...problems(401, 403) },
      detail: {
        tags: ['tokens'],
        summary: 'The user’s tokens that are not revoked, newest first (never the secret)',
        security: [{ bearer: [] }],
      },
    })
    .delete(
      '/api/user/tokens/:token_id',
      ({ user, params, set }) => {
        tokens.revoke(user.id, params.token_id)
        set.status = 204
      },
      {
        auth: true,
        params: t.Object({ token_id: t.String({ maxLength: 64 }) }),
        response: { 204: t.Void(), ...problems(401, 403, 404, 422) },
        detail: { tags: ['tokens'], summary: 'Revoke a token (another user’s token is 404)', security: [{ bearer: [] }] },
      },
    )
}
