// The shapes accounts answers with and accepts, declared once: routes validate with them, the
// OpenAPI document is generated from them, and the service's types are their `.static`.
import { t } from 'elysia'
import { MAX_CHARACTERS } from '../../http/openapi-finish'
import { Int, strictObject, TierSchema } from '../../http/schemas'

export const NAME_MAX = 100

export const PublicUser = t.Object({ id: t.String(), email: t.String({ format: 'email' }), name: t.String(), tier: TierSchema })
export type PublicUser = typeof PublicUser.static

export const AuthResponse = t.Object({
  access_token: t.String({ description: 'HS256 JWT, valid for 7 days' }),
  token_type: t.Literal('bearer'),
  user: PublicUser,
})
export type AuthResponse = typeof AuthResponse.static

export const Limits = t.Object({
  prompts_per_day: t.Nullable(Int()),
  optimizations_per_day: t.Nullable(Int()),
  api_access: t.Boolean(),
  skills_access: t.Boolean(),
  max_tokens: Int(),
})

export const Profile = t.Object({
  ...PublicUser.properties,
  created_at: t.String({ format: 'date-time' }),
  providers: t.Array(t.String(), { description: '"password" and/or the OAuth providers linked' }),
  limits: Limits,
  usage: t.Object({ prompts_today: Int(), optimizations_today: Int() }),
})
export type Profile = typeof Profile.static

const password = (description: string) => t.String({ description })

export const RegisterBody = strictObject({
  email: t.String({
    // Loose: the service refuses past 254 with a message that says why.
    maxLength: 320,
    [MAX_CHARACTERS]: 254,
    description:
      'trimmed and lower-cased; must be unique; an ASCII address (local part at most 64 characters, host-name labels; an internationalised domain in its xn-- form)',
  }),
  password: password(
    '8–128 characters (counted after Unicode NFC normalisation, in which passwords are also compared); not the e-mail, not a common password',
  ),
  name: t.String({ maxLength: 1000, description: `1–${NAME_MAX} characters after trimming` }),
})
export type RegisterBody = typeof RegisterBody.static

export const LoginBody = strictObject({ email: t.String({ maxLength: 320 }), password: t.String({ maxLength: 1024 }) })
export type LoginBody = typeof LoginBody.static

export const PasswordBody = strictObject({
  current_password: t.Optional(
    t.String({ maxLength: 1024, description: 'required, except for an account that has no password yet (created through a provider)' }),
  ),
  new_password: password(
    '8–128 characters (counted after Unicode NFC normalisation, in which passwords are also compared); not the e-mail, not a common password',
  ),
})
