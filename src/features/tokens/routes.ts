// /api/user/tokens: personal access tokens for scripts (contract section 3).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { NO_STORE, problems } from '../../http/schemas'
import { cleanLabel } from '../../http/text'
import { CreatedToken, CreateTokenBody, DEFAULT_EXPIRY_DAYS, TOKEN_NAME_MAX, TokenSummary } from './model'
import type { TokensService } from './service'

export function tokensRoutes({ tokens, guard }: { tokens: TokensService; guard: AuthGuard }) {
  return new Elysia({ name: 'tokens' })
    .use(guard)
    .post(
      '/api/user/tokens',
      async ({ user, principal, body, set }) => {
        const created = await tokens.create(
          user,
          cleanLabel(body.name, '/name', TOKEN_NAME_MAX),
          body.expires_in_days ?? DEFAULT_EXPIRY_DAYS,
          principal.issuedAt,
        )
        set.status = 201
        Object.assign(set.headers, NO_STORE)
        return created
      },
      {
        ...guard.jsonBody({ jwtOnly: true, minTier: 'starter' }, CreateTokenBody),
        response: { 201: CreatedToken, ...problems(400, 401, 403, 413, 415, 422) },
        detail: {
          tags: ['tokens'],
          summary: 'Create a personal access token (needs a JWT; starter tier or higher)',
          description:
            'The secret is in this response only. Tiers hold at most: starter 1, pro 3, lifetime 5 active tokens; over the maximum → 403 token_limit_reached with `limit`; free → 403 upgrade_required.',
          security: [{ bearer: [] }],
        },
      },
    )
    .get('/api/user/tokens', async ({ user }) => ({ items: await tokens.list(user.id) }), {
      auth: true,
      response: { 200: t.Object({ items: t.Array(TokenSummary) }), ...problems(401, 403) },
      detail: {
        tags: ['tokens'],
        summary: 'The user’s tokens that are not revoked, newest first (never the secret)',
        security: [{ bearer: [] }],
      },
    })
    .delete(
      '/api/user/tokens/:token_id',
      async ({ user, params, set }) => {
        await tokens.revoke(user.id, params.token_id)
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
