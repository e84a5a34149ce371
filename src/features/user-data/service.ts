// A user's own data, gathered from the features that keep it (each through its service), for
// GET /api/user/export. The export holds everything: the optimizer history is read in one query
// (paged by offset, a hundred at a time with a count per page, a history of 100,000 took 8 s on
// SQLite, with the server answering nothing else meanwhile, and 16 s on PostgreSQL; an entry
// written between two pages showed one twice); favorites, whose titles are looked up by a list
// of ids, in pages of 1,000.
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

/** Favorites per page: their titles are read with one bound parameter per id (PostgreSQL allows 65,535). */
const FAVORITES_PAGE = 1000

/** Every row at once (the largest integer the databases take as a LIMIT). */
const EVERY_ROW = Number.MAX_SAFE_INTEGER

async function all<T>(page: (limit: number, offset: number) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const items: T[] = []
  for (;;) {
    const { items: got } = await page(FAVORITES_PAGE, items.length)
    items.push(...got)
    if (got.length < FAVORITES_PAGE) return items
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
        optimizer.history(user.id, EVERY_ROW, 0).then((page) => page.items),
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
