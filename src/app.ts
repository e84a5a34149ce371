// Composition root: builds every feature from its dependencies and mounts it. No logic here.
import { Elysia } from 'elysia'
import type { Config } from './config'
import type { Db } from './db/client'
import { createReadBatcher } from './db/read-batch'
import { createAccounts } from './features/accounts/service'
import { PasswordHasher } from './features/accounts/passwords'
import { accountsRoutes } from './features/accounts/routes'
import { catalogueRoutes } from './features/catalogue/routes'
import { createCatalogue } from './features/catalogue/service'
import { favoritesRoutes } from './features/favorites/routes'
import { createFavorites } from './features/favorites/service'
import { healthRoutes } from './features/health/routes'
import { createTokens } from './features/tokens/service'
import { tokensRoutes } from './features/tokens/routes'
import { looksLikePat } from './features/tokens/format'
import { createBuiltinEngine } from './features/optimizer/engines/builtin'
import { createOpenAiEngine } from './features/optimizer/engines/openai'
import { optimizerRoutes } from './features/optimizer/routes'
import { createOptimizer } from './features/optimizer/service'
import { skillsRoutes } from './features/skills/routes'
import { createSkills } from './features/skills/service'
import { authGuard, type BearerAuthenticator } from './http/auth'
import { JwtCodec } from './http/jwt'
import { apiDocs } from './http/openapi'
import { createEdge } from './http/edge'
import { plumbing } from './http/plumbing'
import type { Logger } from './log'

export interface AppDeps {
  config: Config
  db: Db
  log: Logger
  jwtSecret: string
  /** aborted when the server shuts down: open event streams end (serve.ts) */
  shutdown?: AbortSignal
  /** this server process's registration in the database (serve.ts); none in tests */
  instanceId?: string
}

export function createApp({ config, db, log, jwtSecret, shutdown = new AbortController().signal, instanceId }: AppDeps) {
  const jwt = new JwtCodec(jwtSecret)
  const read = createReadBatcher(db)
  const accounts = createAccounts({ db, jwt, hasher: new PasswordHasher(config.passwordHash), read })

  const tokens = createTokens(db, accounts, read)

  const authenticate: BearerAuthenticator = (token) => (looksLikePat(token) ? tokens.authenticate(token) : accounts.authenticateJwt(token))
  const guard = authGuard(authenticate)
  const optimizer = createOptimizer({
    db,
    log,
    // The built-in engine's JIT warm-up is left to serve.ts, after listen, so start-up stays fast.
    engine: config.optimizer ? createOpenAiEngine(config.optimizer) : createBuiltinEngine({ warmUp: false }),
    pingIntervalMs: config.optimizerStream.pingIntervalMs,
    maxOpenStreamsPerUser: config.optimizerStream.maxOpenStreamsPerUser,
    maxStreamMs: config.optimizerStream.maxStreamMs,
    shutdown,
    instanceId,
  })

  // standardHostname off: Elysia would otherwise misroute hosts under 4 characters ("api", elysiajs/elysia#748).
  const api = new Elysia({ normalize: false, handler: { standardHostname: false } })
    .use(plumbing({ log }))
    .use(apiDocs())
    .use(healthRoutes(db))
    .use(accountsRoutes({ db, accounts, guard, authRateLimit: config.authRateLimit }))
    .use(tokensRoutes({ tokens, guard }))
    .use(optimizerRoutes({ optimizer, guard }))
    .use(catalogueRoutes({ db, catalogue: createCatalogue(db), guard }))
    .use(skillsRoutes({ skills: createSkills(db), guard }))
    .use(favoritesRoutes({ favorites: createFavorites(db), guard }))

  // `handle` is what the server calls: the edge (request ids, CORS, access log) around the API.
  const edgeApp = {
    fetch: (request: Request) => api.fetch(request),
    get routes() {
      return api.routes
    },
  }
  return { api, handle: createEdge(edgeApp, { log, trustProxy: config.trustProxy, corsOrigins: config.corsOrigins }) }
}

export type App = ReturnType<typeof createApp>
export type Api = App['api']
