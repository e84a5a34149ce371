// `promptlib serve`: open the database, apply migrations, listen; stop cleanly on SIGTERM/SIGINT.
import { createApp } from '../app'
import { type Config, resolveJwtSecret } from '../config'
import { DATABASE_FILE, openDatabase } from '../db/client'
import { runMigrations } from '../db/migrate'
import { loadDemoCatalogueIfEmpty } from '../features/catalogue/demo'
import { pruneDailyUsage } from '../features/usage/daily'
import { pruneRateWindows } from '../features/usage/rate-limit'
import type { Logger } from '../log'
import { VERSION } from '../version'
import { join } from 'node:path'

const SWEEP_EVERY_MS = 60 * 60 * 1000

export async function serve(config: Config, log: Logger): Promise<void> {
  const { secret, source } = resolveJwtSecret(config)
  if (source === 'generated') {
    log.warn('JWT_SECRET is not set; generated one and kept it in the data directory', { file: join(config.dataDir, 'jwt-secret') })
  }
  const db = openDatabase(join(config.dataDir, DATABASE_FILE))
  const applied = runMigrations(db)
  if (applied.length > 0) log.info('migrations applied', { migrations: applied })
  if (config.demoCatalogue) loadDemoCatalogueIfEmpty(db, log)

  const sweep = () => {
    pruneDailyUsage(db)
    pruneRateWindows(db)
  }
  sweep()
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS)
  sweeper.unref()

  const app = createApp({ config, db, log, jwtSecret: secret })
  app.listen({
    port: config.port,
    hostname: config.host,
    // Our own limit (1 MiB) answers with problem+json; this only stops absurd uploads early.
    maxRequestBodySize: 16 * 1024 * 1024,
  })
  const server = app.server!
  log.info('listening', { url: `http://${config.host}:${server.port}`, version: VERSION, data_dir: config.dataDir })

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal })
    clearInterval(sweeper)
    // Stop accepting; in-flight requests finish (the promise resolves when they have).
    await server.stop(false)
    db.$client.close()
    log.info('stopped')
    log.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
