// Composition root: builds every feature from its dependencies and mounts it. No logic here.
import { Elysia } from 'elysia'
import type { Config } from './config'
import type { Db } from './db/client'
import { createAccounts } from './features/accounts/service'
import { PasswordHasher } from './features/accounts/passwords'
import { accountsRoutes } from './features/accounts/routes'
import { catalogueRoutes } from './features/catalogue/routes'
import { createCatalogue } from './features/catalogue/service'
import { favoritesRoutes } from './features/favorites/routes'
import { createFavorites } from './features/favorites/service'
import { healthRoutes } from './features/health/routes'
import { skillsRoutes } from './features/skills/routes'
import { createSkills } from './features/skills/service'
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
  const accounts = createAccounts({ db, jwt, hasher: new PasswordHasher(config.passwordHash) })

  const authenticate: BearerAuthenticator = (token) => accounts.authenticateJwt(token)
  const guard = authGuard(authenticate)

  return new Elysia({ normalize: false })
    .use(plumbing({ log, trustProxy: config.trustProxy, corsOrigins: config.corsOrigins }))
    .use(apiDocs())
    .use(healthRoutes(db))
    .use(accountsRoutes({ db, accounts, guard, authRateLimit: config.authRateLimit }))
    .use(catalogueRoutes({ db, catalogue: createCatalogue(db), guard }))
    .use(skillsRoutes({ skills: createSkills(db), guard }))
    .use(favoritesRoutes({ favorites: createFavorites(db), guard }))
}

export type App = ReturnType<typeof createApp>
