// Personal access tokens: the PAT format, the port and its adapters, the authenticator.
import type { Storage } from '../../db/storage'
import type { AccountsService } from '../accounts'
import { createTokensService, type TokensService } from './service'
import { sqliteTokensStore } from './store.sqlite'

export { TokenSummary as TokenSummarySchema } from './model'
export { looksLikePat, PAT_PREFIX } from './format'
export { tokensRoutes } from './routes'
export type { TokensService } from './service'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

export function createTokens(storage: Storage, accounts: Pick<AccountsService, 'authUserById' | 'jwtStatus'>): TokensService {
  return createTokensService(storage.engine === 'sqlite' ? sqliteTokensStore(storage) : pgStore().pgTokensStore(storage), accounts)
}
