// GET /api/user/export: everything the service keeps about one user, as one JSON document.
import { t } from 'elysia'
import { ProfileSchema } from '../accounts'
import { SubscriptionSchema } from '../billing'
import { FavoriteSchema } from '../favorites'
import { HistoryItemSchema } from '../optimizer'
import { TokenSummarySchema } from '../tokens'

export const USER_EXPORT_FORMAT = 'promptlib-user-export'

export const Payment = t.Object({
  id: t.String(),
  provider: t.String({ description: 'card (Stripe) or wallet (PayPal)' }),
  provider_payment_id: t.String({ description: 'the provider’s own id of the payment' }),
  kind: t.String({ description: 'lifetime, subscription or renewal' }),
  subscription_id: t.Nullable(t.String()),
  amount: t.String({ examples: ['199.00'] }),
  currency: t.String({ examples: ['USD'] }),
  grants_lifetime: t.Boolean(),
  paid_at: t.String({ format: 'date-time' }),
})

export const UserExport = t.Object(
  {
    format: t.Literal(USER_EXPORT_FORMAT),
    version: t.Literal(1),
    exported_at: t.String({ format: 'date-time' }),
    account: ProfileSchema,
    subscription: SubscriptionSchema,
    favorites: t.Array(FavoriteSchema, { description: 'every favorite, newest first' }),
    tokens: t.Array(TokenSummarySchema, { description: 'personal access tokens not revoked: metadata only, never a secret or its hash' }),
    optimizer_history: t.Array(HistoryItemSchema, { description: 'every optimization, newest first' }),
    payments: t.Array(Payment, { description: 'every payment recorded, oldest first' }),
  },
  { description: 'The user’s own data: account, favorites, token metadata, optimizer history and payments.' },
)
export type UserExport = typeof UserExport.static
