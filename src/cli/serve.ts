// `promptlib serve`: open the database, apply migrations, listen; stop cleanly on SIGTERM/SIGINT.
import { createApp } from '../app'
import { type Config, resolveJwtSecret } from '../config'
import { REQUEST_LOCK_TIMEOUT_MS } from '../db/client'
import { startBackgroundCheckpoints } from '../db/checkpointer'
import { warmUpBuiltinEngineGradually } from '../features/optimizer/engines/builtin'
import { sweepDeadInstances, sweepStaleOptimizations } from '../features/optimizer/history'
import { currentProcess, HEARTBEAT_EVERY_MS, heartbeat, unregisterInstance } from '../features/optimizer/instances'
import { loadDemoCatalogueIfEmpty } from '../features/catalogue/demo'
import { pruneDailyUsage } from '../features/usage/daily'
import { pruneRateWindows } from '../features/usage/rate-limit'
import { pruneDeadTokens } from '../features/tokens/service'
import type { Logger } from '../log'
import { VERSION } from '../version'
import { join } from 'node:path'
import { databaseFile, openCommandDatabase } from './context'

const SWEEP_EVERY_MS = 60 * 60 * 1000
const WARM_UP_AFTER_MS = 100

export async function serve(config: Config, log: Logger): Promise<void> {
  // The database first: it creates the data directory (0700) and waits for another process's lock.
  const { db, applied } = openCommandDatabase(config)
  if (applied.length > 0) log.info('migrations applied', { migrations: applied })
  const { secret, source } = resolveJwtSecret(config)
  if (source === 'generated') {
    log.warn('JWT_SECRET is not set; generated one and kept it in the data directory', { file: join(config.dataDir, 'jwt-secret') })
  }
  if (config.demoCatalogue) await loadDemoCatalogueIfEmpty(db, log)

  const sweep = () => {
    pruneDailyUsage(db)
    pruneRateWindows(db)
    pruneDeadTokens(db)
    // `running` rows older than any stream can live, whatever their owner (the last resort)
    sweepStaleOptimizations(db)
  }
  sweep()
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS)
  sweeper.unref()
  // This process's registration and heartbeat; with each beat, the optimizer streams that a dead
  // process (a previous run of this one, or another instance) left `running` are ended.
  const instance = currentProcess()
  const beat = () => {
    try {
      heartbeat(db, instance)
      const ended = sweepDeadInstances(db, instance)
      if (ended > 0) log.warn('optimizer streams of a dead server process ended', { count: ended })
    } catch (error) {
      log.error('instance heartbeat failed', { error })
    }
  }
  beat() // registers this process, before the first request
  const beater = setInterval(beat, HEARTBEAT_EVERY_MS)
  beater.unref()
  // Started: from now on a request waits only briefly for a lock (the JS thread waits with it).
  db.$client.run(`PRAGMA busy_timeout = ${REQUEST_LOCK_TIMEOUT_MS}`)
  const checkpoints = startBackgroundCheckpoints(db, databaseFile(config), log)

  // Signalled first thing on shutdown: open optimizer streams end (history → aborted) instead of
  // holding server.stop() open for as long as an upstream model keeps talking.
  const shutdownStreams = new AbortController()
  const { handle } = createApp({ config, db, log, jwtSecret: secret, shutdown: shutdownStreams.signal, instanceId: instance.id })
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: handle,
    // Our own limit (1 MiB) answers with problem+json; this only stops absurd uploads early.
    maxRequestBodySize: 16 * 1024 * 1024,
    // Streams (the optimizer's) send pings every 15 s; an idle connection may rest longer.
    idleTimeout: 60,
  })
  log.info('listening', { url: `http://${config.host}:${server.port}`, version: VERSION, data_dir: config.dataDir, startup_ms: Math.round(performance.now()) })
  // JIT warm-up of the built-in optimizer after listen, in small steps: start-up stays fast and
  // requests interleave with it, while the first optimizations still find warm code. It waits a
  // moment so the readiness probes that follow a start are answered first.
  if (!config.optimizer) setTimeout(() => void warmUpBuiltinEngineGradually(), WARM_UP_AFTER_MS).unref()

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal })
    clearInterval(sweeper)
    clearInterval(beater)
    shutdownStreams.abort()
    // Stop accepting; in-flight requests finish (the promise resolves when they have).
    await server.stop(false)
    // Our streams have ended; a row still running (its end not recorded) is swept by the next instance.
    unregisterInstance(db, instance.id)
    // Access-log lines are written just after each response is sent; let those run first.
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    await checkpoints.stop()
    db.$client.close()
    log.info('stopped')
    log.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
