// Accounts: users, passwords, JWTs, tiers. Other features reach users only through this module.
import type { Storage } from '../../db/storage'
import type { JwtCodec } from '../../http/jwt'
import type { UsageService } from '../usage'
import type { PasswordHasher } from './passwords'
import { type AccountsService, createAccountsService } from './service'
import { sqliteAccountsStore } from './store.sqlite'
import { pgAccountsStore } from './store.pg'

export { accountsRoutes } from './routes'
export { PasswordHasher } from './passwords'
export { effectiveTier, normaliseEmail, publicUser, type AccountsService, type TierStep, type UserDeletedHook } from './service'
export type { UserRecord } from './store'

export function createAccounts(deps: {
  storage: Storage
  jwt: JwtCodec
  hasher: PasswordHasher
  usage: Pick<UsageService, 'usedToday'>
}): AccountsService {
  const { storage, ...rest } = deps
  const store = storage.engine === 'sqlite' ? sqliteAccountsStore(storage) : pgAccountsStore(storage)
  return createAccountsService({ store, transaction: (fn) => storage.transaction(fn), ...rest })
}
