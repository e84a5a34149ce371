import { t } from 'elysia'
import { Int, StringEnum, TierSchema } from '../../http/schemas'

const PaidTier = StringEnum(['starter', 'pro', 'lifetime'])

export const SiteConfig = t.Object({
  sign_in: t.Object({
    providers: t.Array(
      t.Object({
        id: StringEnum(['provider-a', 'provider-b'], { description: 'start the sign-in at GET /api/auth/{id}' }),
        name: t.String({ description: 'what to call it on a button: the preset (Google, GitHub) or the host of the configured authorization URL' }),
      }),
      { description: 'configured providers only; an empty list when none is' },
    ),
  }),
  payments: t.Object({
    card: t.Array(PaidTier, {
      description: 'tiers on sale through POST /api/payments/checkout (Stripe); empty when card payments are not configured',
    }),
    wallet: t.Array(PaidTier, { description: 'tiers on sale through POST /api/payments/altpay/checkout (PayPal); empty when not configured' }),
    lifetime_price: t.String({ examples: ['199.00'] }),
    currency: t.String({ examples: ['USD'] }),
  }),
  tiers: t.Array(
    t.Object({
      id: TierSchema,
      prompts_per_day: t.Nullable(Int({ description: 'null = unlimited' })),
      optimizations_per_day: t.Nullable(Int({ description: 'null = unlimited' })),
      api_access: t.Boolean(),
      skills_access: t.Boolean(),
      max_tokens: Int({ description: 'personal access tokens held at once' }),
    }),
    { description: 'every tier with its limits, free first' },
  ),
})

export type SiteConfig = typeof SiteConfig.static
