// Opens the one storage of this process: PostgreSQL when DATABASE_URL is set, else the embedded
// SQLite file in DATA_DIR. Migrations are applied here, so every command (serve, import, user …)
// works on an up-to-date schema, whichever engine.
import { join } from 'node:path'
import { DATABASE_FILE, type Synchronous } from './sqlite/client'
import { runMigrations } from './sqlite/migrate'
import { openSqlite } from './sqlite/storage'
import type { Storage } from './storage'

export type { Engine, PgStorage, SqliteStorage, Storage, Tx } from './storage'

export interface StorageConfig {
  dataDir: string
  databaseUrl: string | null
  sqlite: { lockTimeoutMs: number; synchronous: Synchronous }
}

export const databaseFile = (config: Pick<StorageConfig, 'dataDir'>) => join(config.dataDir, DATABASE_FILE)

export interface OpenStorageOptions {
  /** PostgreSQL: connections in this process's pool */
  poolSize?: number
  /**
   * SQLite: one connection for reads and writes (a command that works alone, like an import,
   * which may then switch to a rollback journal: db/sqlite/bulk.ts)
   */
  singleConnection?: boolean
}

/** Opens the storage and applies pending migrations; returns the tags applied. */
export async function openStorage(config: StorageConfig, options: OpenStorageOptions = {}): Promise<{ storage: Storage; applied: string[] }> {
  if (config.databaseUrl) {
    // Loaded only for PostgreSQL: its driver is ~10 MB of an idle SQLite server's memory.
    const [{ openPostgres }, { runPgMigrations }] = await Promise.all([import('./postgres/client'), import('./postgres/migrate')])
    const storage = openPostgres(config.databaseUrl, { max: options.poolSize })
    try {
      return { storage, applied: await runPgMigrations(storage) }
    } catch (error) {
      await storage.close()
      throw error
    }
  }
  // Opening waits up to lockTimeoutMs for another process (an import); serve.ts shortens the
  // wait for requests once it is listening.
  const storage = openSqlite(databaseFile(config), {
    lockTimeoutMs: config.sqlite.lockTimeoutMs,
    synchronous: config.sqlite.synchronous,
    singleConnection: options.singleConnection,
  })
  try {
    return { storage, applied: runMigrations(storage.writer) }
  } catch (error) {
    await storage.close()
    throw error
  }
}
