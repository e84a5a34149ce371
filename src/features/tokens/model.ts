// The shapes of /api/user/tokens, declared once (routes, OpenAPI and the service's types).
import { t } from 'elysia'
import { Int, strictObject } from '../../http/schemas'

export const DEFAULT_EXPIRY_DAYS = 90
export const TOKEN_NAME_MAX = 100

export const CreateTokenBody = strictObject({
  name: t.String({ maxLength: 1000, description: `a label, 1–${TOKEN_NAME_MAX} characters after trimming` }),
  expires_in_days: t.Optional(
    Int({ minimum: 1, maximum: 365, default: DEFAULT_EXPIRY_DAYS, description: '1–365, default 90 (the advised maximum)' }),
  ),
})

export const CreatedToken = t.Object({
  token_id: t.String(),
  token: t.String({ description: 'plib_pat_… — shown once, never again' }),
  name: t.String(),
  expires_at: t.String({ format: 'date-time' }),
})
export type CreatedToken = typeof CreatedToken.static

export const TokenSummary = t.Object({
  token_id: t.String(),
  name: t.String(),
  created_at: t.String({ format: 'date-time' }),
  expires_at: t.String({ format: 'date-time' }),
  last_used_at: t.Nullable(t.String({ format: 'date-time' })),
})
export type TokenSummary = typeof TokenSummary.static
