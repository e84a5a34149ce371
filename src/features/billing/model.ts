// The shapes billing answers with and accepts, declared once: routes validate with them, the
// OpenAPI document is generated from them.
import { t } from 'elysia'
import { StringEnum, strictObject, TierSchema } from '../../http/schemas'
import { PROVIDERS, SUBSCRIPTION_STATUSES } from './state'

export const CheckoutBody = strictObject({ tier: StringEnum(['starter', 'pro', 'lifetime'], { description: 'the tier to buy' }) })

export const CardCheckout = t.Object({
  checkout_url: t.String({ format: 'uri', description: 'send the browser here (the card provider’s hosted checkout)' }),
  session_id: t.String(),
})

export const WalletCheckout = t.Object({
  approval_url: t.String({ format: 'uri', description: 'send the browser here (the wallet provider’s approval page)' }),
  id: t.String({ description: 'the wallet order (lifetime) or subscription (starter, pro) id' }),
})

export const Subscription = t.Object({
  tier: TierSchema,
  status: StringEnum([...SUBSCRIPTION_STATUSES, 'none'], { description: 'the card provider’s vocabulary; `none` for a user who never paid' }),
  provider: t.Nullable(StringEnum(PROVIDERS, { description: 'card (Stripe) or wallet (PayPal)' })),
  current_period_end: t.Nullable(t.String({ format: 'date-time', description: 'null for lifetime' })),
  cancel_at_period_end: t.Boolean(),
})

export const WebhookReceipt = t.Object({
  received: t.Literal(true),
  outcome: t.String({ description: 'applied, duplicate, stale, ignored, unknown_user, recorded, duplicate_payment, amount_mismatch or unchanged' }),
})

/** PayPal's order ids are short; a longer `token` is no order of ours (a redirect to status=error, as any other). */
export const ORDER_ID_MAX = 200
// Unbounded here: a browser that lands on the return URL gets the redirect whatever it carries, never a 422.
export const ReturnQuery = t.Object({
  token: t.Optional(t.String({ description: 'the order id PayPal appends' })),
  PayerID: t.Optional(t.String()),
})

/** The webhook bodies, for the OpenAPI document only: each route reads its raw body itself. */
export const webhookRequestBody = (description: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema: { type: 'object' as const, additionalProperties: true } } },
})
