// A user's own data, gathered from the features that keep it (each through its service), for
// GET /api/user/export. Lists are read page by page to their end: the export holds everything.
import type { AuthUser } from '../../http/auth'
import type { AccountsService } from '../accounts'
import type { BillingService } from '../billing'
import type { FavoritesService } from '../favorites'
import type { OptimizerService } from '../optimizer'
import type { TokensService } from '../tokens'
import { USER_EXPORT_FORMAT, type UserExport } from './model'

export interface UserDataDeps {
  accounts: Pick<AccountsService, 'profile'>
  favorites: Pick<FavoritesService, 'list'>
  tokens: Pick<TokensService, 'list'>
  optimizer: Pick<OptimizerService, 'history'>
  billing: Pick<BillingService, 'subscription' | 'payments'>
}

const PAGE = 100

async function all<T>(page: (limit: number, offset: number) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const items: T[] = []
  for (;;) {
    const { items: got } = await page(PAGE, items.length)
    items.push(...got)
    if (got.length < PAGE) return items
  }
}

export function createUserData({ accounts, favorites, tokens, optimizer, billing }: UserDataDeps) {
  return {
    async export(user: AuthUser): Promise<UserExport> {
      const [account, subscription, favoriteList, tokenList, history, payments] = await Promise.all([
        accounts.profile(user),
        billing.subscription(user),
        all((limit, offset) => favorites.list(user.id, { limit, offset })),
        tokens.list(user.id),
        all((limit, offset) => optimizer.history(user.id, limit, offset)),
        billing.payments(user.id),
      ])
      return {
        format: USER_EXPORT_FORMAT,
        version: 1,
        exported_at: new Date().toISOString(),
        account,
        subscription,
        favorites: favoriteList,
        tokens: tokenList,
        optimizer_history: history,
        payments: payments.map((p) => ({
          id: p.id,
          provider: p.provider,
          provider_payment_id: p.providerPaymentId,
          kind: p.kind,
          subscription_id: p.subscriptionId,
          amount: p.amount,
          currency: p.currency,
          grants_lifetime: p.grantsLifetime,
          paid_at: p.paidAt.toISOString(),
        })),
      }
    },
  }
}

export type UserDataService = ReturnType<typeof createUserData>
