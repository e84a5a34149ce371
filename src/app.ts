// Composition root: builds every feature from its dependencies and mounts it. No logic here.
import { Elysia } from 'elysia'
import type { Config } from './config'
import type { Db } from './db/client'
import { createReadBatcher } from './db/read-batch'
import { createAccounts } from './features/accounts/service'
import { PasswordHasher } from './features/accounts/passwords'
import { accountsRoutes } from './features/accounts/routes'
import { healthRoutes } from './features/health/routes'
import { createTokens } from './features/tokens/service'
import { tokensRoutes } from './features/tokens/routes'
import { looksLikePat } from './features/tokens/format'
import { authGuard, type BearerAuthenticator } from './http/auth'
import { JwtCodec } from './http/jwt'
import { apiDocs } from './http/openapi'
import { plumbing } from './http/plumbing'
import type { Logger } from './log'

export interface AppDeps {
  config: Config
  db: Db
  log: Logger
  jwtSecret: string
}

export function createApp({ config, db, log, jwtSecret }: AppDeps) {
  const jwt = new JwtCodec(jwtSecret)
  const read = createReadBatcher(db)
  const accounts = createAccounts({ db, jwt, hasher: new PasswordHasher(config.passwordHash), read })

  const tokens = createTokens(db, accounts, read)

  const authenticate: BearerAuthenticator = (token) => (looksLikePat(token) ? tokens.authenticate(token) : accounts.authenticateJwt(token))
  const guard = authGuard(authenticate)

  return new Elysia({ normalize: false })
    .use(plumbing({ log, trustProxy: config.trustProxy, corsOrigins: config.corsOrigins }))
    .use(apiDocs())
    .use(healthRoutes(db))
    .use(accountsRoutes({ db, accounts, guard, authRateLimit: config.authRateLimit }))
    .use(tokensRoutes({ tokens, guard }))
}

export type App = ReturnType<typeof createApp>
