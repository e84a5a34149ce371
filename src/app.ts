// Composition root: builds every feature from its dependencies and mounts it. No logic here.
import { Elysia } from 'elysia'
import type { Config } from './config'
import type { Job } from './db/jobs'
import type { Storage } from './db/storage'
import { accountsRoutes, createAccounts, PasswordHasher } from './features/accounts'
import { billingRoutes, createBilling } from './features/billing'
import { catalogueRoutes, createCatalogue } from './features/catalogue'
import { createFavorites, favoritesRoutes } from './features/favorites'
import { healthRoutes } from './features/health'
import { createOAuth, oauthRoutes } from './features/oauth'
import { createMail, type MailTransport } from './features/mail'
import { createMcp, mcpRoutes } from './features/mcp'
import { createOptimizer, optimizerRoutes } from './features/optimizer'
import { siteConfig, siteConfigRoutes } from './features/site-config'
import { createSkills, skillsRoutes } from './features/skills'
import { createTokens, looksLikePat, tokensRoutes } from './features/tokens'
import { createUsage, userSubject } from './features/usage'
import { createUserData, userDataRoutes } from './features/user-data'
import { authGuard, type BearerAuthenticator } from './http/auth'
import { createEdge } from './http/edge'
import { JwtCodec } from './http/jwt'
import { apiDocs } from './http/openapi'
import { plumbing } from './http/plumbing'
import type { Logger } from './log'
import { createWebApp } from './web'

const HOUR = 60 * 60 * 1000

export interface AppDeps {
  config: Config
  storage: Storage
  log: Logger
  jwtSecret: string
  /** aborted when the server shuts down: open event streams end (serve.ts) */
  shutdown?: AbortSignal
  /** register this process as a server instance (serve.ts); tests leave it off */
  registerInstance?: boolean
  /** where e-mails go instead of SMTP_URL or the log (tests) */
  mailTransport?: MailTransport
}

export function createApp({
  config,
  storage,
  log,
  jwtSecret,
  shutdown = new AbortController().signal,
  registerInstance = false,
  mailTransport,
}: AppDeps) {
  const usage = createUsage(storage)
  const accounts = createAccounts({
    storage,
    jwt: new JwtCodec(jwtSecret),
    hasher: new PasswordHasher(config.passwordHash),
    usage,
  })
  const tokens = createTokens(storage, accounts)
  const oauth = createOAuth({ storage, config, jwtSecret, accounts, tokens, log })
  const skills = createSkills(storage)
  const catalogue = createCatalogue({ storage, usage, skills })
  const favorites = createFavorites({ storage, catalogue })
  const optimizer = createOptimizer({ storage, usage, log, config, shutdown, registerInstance })
  const mail = createMail({ storage, config, log, transport: mailTransport })
  const billing = createBilling({ storage, config, accounts, mail, log })
  const userData = createUserData({ accounts, favorites, tokens, optimizer, billing })
  const mcp = createMcp({ catalogue, skills, favorites, optimizer, log })
  accounts.onUserDeleting((userId) => billing.cancelSubscriptionsOf(userId))
  accounts.onUserDeleted((userId, tx) => usage.forgetSubject(userSubject(userId), tx))

  const authenticate: BearerAuthenticator = (token) => (looksLikePat(token) ? tokens.authenticate(token) : accounts.authenticateJwt(token))
  const guard = authGuard(authenticate)

  // standardHostname off: Elysia would otherwise misroute hosts under 4 characters ("api", elysiajs/elysia#748).
  const api = new Elysia({ normalize: false, handler: { standardHostname: false } })
    .use(plumbing({ log }))
    .use(apiDocs())
    .use(healthRoutes(storage))
    .use(siteConfigRoutes(siteConfig(config)))
    .use(accountsRoutes({ accounts, usage, guard, authRateLimit: config.authRateLimit }))
    .use(tokensRoutes({ tokens, guard }))
    .use(oauthRoutes({ oauth, publicUrl: config.publicUrl }))
    .use(optimizerRoutes({ optimizer, guard, log, pingIntervalMs: config.optimizerStream.pingIntervalMs }))
    .use(catalogueRoutes({ catalogue, guard }))
    .use(skillsRoutes({ skills, guard }))
    .use(favoritesRoutes({ favorites, guard }))
    .use(billingRoutes({ billing, guard }))
    .use(userDataRoutes({ userData, guard }))
    .use(mcpRoutes({ mcp, authenticate, corsOrigins: config.corsOrigins }))

  /** The periodic work of every feature (db/jobs.ts runs them; on PostgreSQL one instance at a time). */
  const jobs: Job[] = [
    { name: 'prune-usage', everyMs: HOUR, run: () => usage.prune() },
    { name: 'prune-tokens', everyMs: HOUR, run: () => tokens.prune() },
    ...optimizer.jobs,
    ...catalogue.jobs,
    ...billing.jobs,
    { name: 'prune-mail', everyMs: 24 * HOUR, run: () => mail.prune() },
  ]
  // Process-lifetime work of a server (its instance registration, the e-mail worker), around listening.
  const start = async () => {
    await optimizer.registerProcess()
    mail.start()
  }
  const stop = async () => {
    await mail.stop()
    await optimizer.unregisterProcess()
  }

  // `handle` is what the server calls: the edge (request ids, CORS, access log) around the API and the web app.
  const edgeApp = {
    fetch: (request: Request) => api.fetch(request),
    get routes() {
      return api.routes
    },
  }
  return {
    api,
    handle: createEdge(edgeApp, { log, trustProxy: config.trustProxy, corsOrigins: config.corsOrigins, web: createWebApp() }),
    services: { usage, accounts, tokens, oauth, catalogue, skills, favorites, optimizer, mail, billing, userData, mcp },
    jobs,
    start,
    stop,
  }
}

export type App = ReturnType<typeof createApp>
export type Api = App['api']
export type Services = App['services']
