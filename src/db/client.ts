// bun:sqlite behind Drizzle. All storage goes through here so a PostgreSQL driver can
// replace it later without touching the features.
import { Database as SqliteDatabase } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import * as schema from './schema'

export type Db = BunSQLiteDatabase<typeof schema> & { $client: SqliteDatabase }

export const DATABASE_FILE = 'promptlib.db'

export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const sqlite = new SqliteDatabase(file, { create: true, strict: true })
  sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA foreign_keys = ON')
  return drizzle({ client: sqlite, schema }) as Db
}

/** A cheap liveness probe for /api/health. */
export function databaseIsUsable(db: Db): boolean {
  try {
    return db.$client.query('SELECT 1 AS ok').get() !== null
  } catch {
    return false
  }
}

/**
 * A write transaction that takes the write lock up front (BEGIN IMMEDIATE), so two concurrent
 * read-then-write sequences cannot interleave. The callback must be synchronous.
 */
export function writeTransaction<T>(db: Db, fn: (tx: Db) => T): T {
  return db.transaction((tx) => fn(tx as unknown as Db), { behavior: 'immediate' })
}
