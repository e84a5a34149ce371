// Personal access tokens: the PAT format, the port and its adapters, the authenticator.
import type { Storage } from '../../db/storage'
import type { AccountsService } from '../accounts'
import { createTokensService, type TokensService } from './service'
import { sqliteTokensStore } from './store.sqlite'
import { pgTokensStore } from './store.pg'

export { TokenSummary as TokenSummarySchema } from './model'
export { looksLikePat, PAT_PREFIX } from './format'
export { tokensRoutes } from './routes'
export type { TokensService } from './service'

export function createTokens(storage: Storage, accounts: Pick<AccountsService, 'authUserById'>): TokensService {
  return createTokensService(storage.engine === 'sqlite' ? sqliteTokensStore(storage) : pgTokensStore(storage), accounts)
}
