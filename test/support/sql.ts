// Raw SQL for test set-up and inspection (expire a token, count rows), on either engine.
// Write it with PostgreSQL placeholders ($1, $2 …); Dates are bound as timestamps on
// PostgreSQL and as epoch milliseconds on SQLite, the way each schema stores them.
import { openStorage } from '../../src/db'
import type { Storage } from '../../src/db/storage'

type Param = string | number | boolean | null | Date

export async function sqlRows<T = Record<string, unknown>>(storage: Storage, query: string, params: Param[] = []): Promise<T[]> {
  if (storage.engine === 'postgres') {
    const bound = params.map((p) => (p instanceof Date ? p.toISOString() : p))
    return (await storage.db.$client.unsafe(query, bound as never[])) as unknown as T[]
  }
  const sqliteQuery = query.replace(/\$(\d+)/g, '?$1')
  const bound = params.map((p) => (p instanceof Date ? p.getTime() : typeof p === 'boolean' ? Number(p) : p))
  return storage.write((db) => db.$client.query(sqliteQuery).all(...(bound as never[])) as T[])
}

export async function sqlRun(storage: Storage, query: string, params: Param[] = []): Promise<void> {
  await sqlRows(storage, query, params)
}

/** The first column of the first row, as a number (count(*) and the like). */
export async function sqlNumber(storage: Storage, query: string, params: Param[] = []): Promise<number> {
  const [row] = await sqlRows(storage, query, params)
  return Number(Object.values(row ?? {})[0] ?? 0)
}

/** Opens the storage a promptlib process started with `env` uses (processEnv()), for set-up, then closes it. */
export async function withStorage<T>(env: Record<string, string>, fn: (storage: Storage) => Promise<T>): Promise<T> {
  const { storage } = await openStorage(
    { dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL ?? null, sqlite: { lockTimeoutMs: 5000, synchronous: 'normal' } },
    { poolSize: 2 },
  )
  try {
    return await fn(storage)
  } finally {
    await storage.close()
  }
}
