// `promptlib serve`: open the storage (migrations applied), listen; stop cleanly on SIGTERM/SIGINT.
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { createApp } from '../app'
import { type Config, ConfigError, resolveJwtSecret } from '../config'
import { startJobs } from '../db/jobs'
import { startBackgroundCheckpoints } from '../db/sqlite/checkpointer'
import { REQUEST_LOCK_TIMEOUT_MS } from '../db/sqlite/client'
import type { Storage } from '../db/storage'
import { loadDemoCatalogueIfEmpty } from '../features/catalogue'
import { warmUpBuiltinEngineGradually } from '../features/optimizer/engines/builtin'
import type { Logger } from '../log'
import { VERSION } from '../version'
import { warmUpWebApp } from '../web'
import { databaseName, openCommandStorage } from './context'

const WARM_UP_AFTER_MS = 100

/**
 * JWT_SECRET, or one generated once: kept in DATA_DIR on SQLite, in the database on PostgreSQL
 * (a cluster's instances share no directory, and must all accept each other's tokens).
 */
async function jwtSecret(config: Config, storage: Storage, log: Logger): Promise<string> {
  if (config.jwtSecret) return config.jwtSecret
  if (storage.engine === 'postgres') {
    const { sharedSetting } = await import('../db/postgres/settings')
    const { value, created } = await sharedSetting(storage, 'jwt_secret', () => randomBytes(48).toString('base64url'))
    if (created) log.warn('JWT_SECRET is not set; generated one and kept it in the database for every instance')
    return value
  }
  const { secret, source } = resolveJwtSecret(config)
  if (source === 'generated')
    log.warn('JWT_SECRET is not set; generated one and kept it in the data directory', { file: join(config.dataDir, 'jwt-secret') })
  return secret
}

export async function serve(config: Config, log: Logger): Promise<void> {
  // The storage first: on SQLite it creates the data directory (0700) and waits for another
  // process's lock; on PostgreSQL instances starting together apply migrations once.
  const { storage, applied } = await openCommandStorage(config)
  if (applied.length > 0) log.info('migrations applied', { migrations: applied })
  const secret = await jwtSecret(config, storage, log)

  // Signalled first thing on shutdown: open optimizer streams end (history → aborted) instead of
  // holding server.stop() open for as long as an upstream model keeps talking.
  const shutdownStreams = new AbortController()
  const app = createApp({ config, storage, log, jwtSecret: secret, shutdown: shutdownStreams.signal, registerInstance: true })
  if (config.demoCatalogue) await loadDemoCatalogueIfEmpty(app.services.catalogue, log)
  // This process's registration (and the end of what dead processes left running), before the first request.
  await app.start()
  const jobs = startJobs(storage, app.jobs, log)
  await jobs.runAll()

  let checkpoints: { stop(): Promise<void> } | null = null
  if (storage.engine === 'sqlite') {
    // Started: from now on a request waits only briefly for a lock.
    storage.waitForLocks(REQUEST_LOCK_TIMEOUT_MS)
    checkpoints = startBackgroundCheckpoints(storage.writer, storage.file, log)
  }

  const server = listen({
    port: config.port,
    hostname: config.host,
    fetch: app.handle,
    // No limit of Bun's: its 413 is a bare text answer, without problem+json or X-Request-Id.
    // Every body is read through http/body.ts, which refuses a declared length over 1 MiB before
    // reading a byte and stops reading a chunked one at 1 MiB; Bun never buffers a body unread.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Streams (the optimizer's) send pings every 15 s; an idle connection may rest longer.
    idleTimeout: 60,
  })
  log.info('listening', {
    url: `http://${config.host}:${server.port}`,
    version: VERSION,
    engine: storage.engine,
    database: databaseName(config),
    startup_ms: Math.round(performance.now()),
  })
  // JIT warm-up of the built-in optimizer after listen, in small steps: start-up stays fast and
  // requests interleave with it, while the first optimizations still find warm code. It waits a
  // moment so the readiness probes that follow a start are answered first.
  if (!config.optimizer) setTimeout(() => void warmUpBuiltinEngineGradually(), WARM_UP_AFTER_MS).unref()
  // The web app's files are read (in the binary) or bundled (from source) before the first visit asks.
  setTimeout(() => warmUpWebApp().catch((error: unknown) => log.error('the web app could not be loaded', { error })), WARM_UP_AFTER_MS).unref()

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal (Ctrl+C again): the requests still in flight are cut off, where one slow
      // client held the stop for as long as its request could last. The stop then goes on as usual.
      log.warn('stopping now: requests still in flight are cut off', { signal })
      void server.stop(true)
      return
    }
    stopping = true
    log.info('shutting down', { signal })
    jobs.stop()
    shutdownStreams.abort()
    // Stop accepting; in-flight requests finish (the promise resolves when they have).
    await server.stop(false)
    // Our streams have ended; the registration goes (a row still running is swept by the next instance).
    await app.stop()
    // Access-log lines are written just after each response is sent; let those run first.
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    await checkpoints?.stop()
    await storage.close()
    log.info('stopped')
    log.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

/**
 * Bun.serve, with its refusals named by the setting that caused them: a HOST that is no address
 * of this machine (or a name that does not resolve) is an EINVAL that named nothing.
 */
function listen(options: Parameters<typeof Bun.serve>[0] & { port: number; hostname: string }): ReturnType<typeof Bun.serve> {
  try {
    return Bun.serve(options)
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    if (code === 'EINVAL' || code === 'EADDRNOTAVAIL')
      throw new ConfigError(
        'HOST',
        `cannot listen on "${options.hostname}": not an address of this machine, or a name that does not resolve (${code})`,
      )
    if (code === 'EADDRINUSE') throw new ConfigError('PORT', `port ${options.port} on ${options.hostname} is in use by another process (${code})`)
    throw error
  }
}
