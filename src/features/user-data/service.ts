// A user's own data, gathered from the features that keep it (each through its service), for
// GET /api/user/export. The export holds everything: the optimizer history is read in one query
// (paged by offset, a hundred at a time with a count per page, a history of 100,000 took 8 s on
// SQLite, with the server answering nothing else meanwhile, and 16 s on PostgreSQL; an entry
// written between two pages showed one twice); favorites likewise, in one query (paged by offset
// they showed a favorite twice, or skipped one, when the user added or removed one meanwhile),
// their titles then looked up a thousand ids at a time.
import type { AuthUser } from '../../http/auth'
import type { AccountsService } from '../accounts'
import type { BillingService } from '../billing'
import type { FavoritesService } from '../favorites'
import type { OptimizerService } from '../optimizer'
import type { TokensService } from '../tokens'
import { USER_EXPORT_FORMAT, type UserExport } from './model'

export interface UserDataDeps {
  accounts: Pick<AccountsService, 'profile'>
  favorites: Pick<FavoritesService, 'all'>
  tokens: Pick<TokensService, 'list'>
  optimizer: Pick<OptimizerService, 'history'>
  billing: Pick<BillingService, 'subscription' | 'payments'>
}

/** Every row at once (the largest integer the databases take as a LIMIT). */
const EVERY_ROW = Number.MAX_SAFE_INTEGER

export function createUserData({ accounts, favorites, tokens, optimizer, billing }: UserDataDeps) {
  return {
    async export(user: AuthUser): Promise<UserExport> {
      const [account, subscription, favoriteList, tokenList, history, payments] = await Promise.all([
        accounts.profile(user),
        billing.subscription(user),
        favorites.all(user.id),
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
