// Sign-in through two OAuth 2.0 / OpenID Connect providers (provider-a: Google preset,
// provider-b: GitHub preset). Uses accounts and tokens only through their index.ts.
import type { Config } from '../../config'
import type { Storage } from '../../db/storage'
import type { Logger } from '../../log'
import type { AccountsService } from '../accounts'
import type { TokensService } from '../tokens'
import { providerClient } from './client'
import { FlowSealer } from './flow-state'
import { PROVIDERS, providerSettings, type ProviderName } from './providers'
import { type ConfiguredProvider, createOAuthService, type OAuthService } from './service'
import { sqliteOAuthStore } from './store.sqlite'
import { pgOAuthStore } from './store.pg'

export { oauthRoutes } from './routes'
export { PROVIDERS, type ProviderName } from './providers'
export type { OAuthService } from './service'

export interface OAuthDeps {
  storage: Storage
  config: Pick<Config, 'oauth' | 'publicUrl' | 'frontendUrl' | 'oauthTimeoutMs'>
  jwtSecret: string
  accounts: Pick<AccountsService, 'byId' | 'findByEmail' | 'createVerified' | 'confirmEmail' | 'issueToken' | 'noteProviderLinked'>
  tokens: Pick<TokensService, 'revokeAll'>
  log: Logger
}

export function createOAuth({ storage, config, jwtSecret, accounts, tokens, log }: OAuthDeps): OAuthService {
  const providers: Partial<Record<ProviderName, ConfiguredProvider>> = {}
  for (const name of PROVIDERS) {
    const settings = providerSettings(config, name)
    if (settings) providers[name] = { client: providerClient(settings), issuer: settings.userinfoUrl }
  }
  return createOAuthService({
    store: storage.engine === 'sqlite' ? sqliteOAuthStore(storage) : pgOAuthStore(storage),
    transaction: (fn) => storage.transaction(fn),
    accounts,
    tokens,
    providers,
    sealer: new FlowSealer(jwtSecret),
    frontendUrl: config.frontendUrl,
    timeoutMs: config.oauthTimeoutMs,
    log,
  })
}
