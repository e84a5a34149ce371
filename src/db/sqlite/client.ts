// bun:sqlite behind Drizzle: opening a connection with the pragmas every connection needs.
import { Database as SqliteDatabase, type SQLQueryBindings, SQLiteError, type Statement } from 'bun:sqlite'
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import type { SqliteDb } from '../storage'
import { WAL_SIZE_LIMIT_BYTES } from './wal'

export type Db = SqliteDb

export const DATABASE_FILE = 'promptlib.db'

/** How long a request's statement waits for another connection's lock before it fails. */
export const REQUEST_LOCK_TIMEOUT_MS = 5000

export type Synchronous = 'normal' | 'full'

export interface OpenOptions {
  /** how long opening (and then each statement, via busy_timeout) waits for another connection's lock */
  lockTimeoutMs?: number
  /** NORMAL: a commit survives a killed process; FULL: also a power cut (README, "Durability") */
  synchronous?: Synchronous
}

/** How many statements a connection keeps prepared by their SQL text before it starts over. */
const STATEMENT_CACHE_SIZE = 500

/** bun:sqlite's own spelling of a statement's parameter list (`any[]`, which `unknown[]` does not match). */
// biome-ignore lint/suspicious/noExplicitAny: the base class's signature
type Params<P> = P extends any[] ? P : [P]

/**
 * A connection that keeps the statements it prepared, by SQL text. Drizzle prepares its query's
 * statement again on every call, and preparing costs more than running it (a favorite, a
 * webhook, the outbox: ~2 % of the server's CPU under scripts/load.ts). A statement is only ever
 * run synchronously here, so one prepared statement can serve every call of the same text.
 */
class StatementCachingDatabase extends SqliteDatabase {
  private readonly statements = new Map<string, Statement>()

  override prepare<R, P extends SQLQueryBindings | SQLQueryBindings[]>(sql: string, params?: P): Statement<R, Params<P>> {
    if (params !== undefined) return super.prepare<R, P>(sql, params)
    let statement = this.statements.get(sql)
    if (statement === undefined) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.clear()
      statement = super.prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement as Statement<R, Params<P>>
  }
}

/**
 * SQLite's own 4 KiB pages, set explicitly. 16 KiB pages imported 100,000 prompts faster (7.8 vs
 * 8.7 s) but every commit writes whole pages to the log: a favorite (5 pages) went from 27,000
 * to 7,300 commits/s, and under 16 writing clients the log outran the checkpointer (450 MB).
 * A database created with another page size keeps it.
 */
const PAGE_SIZE = 4096
/**
 * Each connection's page cache: 4 MiB (1,024 pages), twice SQLite's default: search p50 on
 * 100,000 prompts 2.3-2.4 ms at the default, 2.0-2.2 ms here; 8 MiB searched no faster and added
 * 11 MB to the 200 MCP clients' peak RSS (bench-mcp.ts).
 */
const CACHE_KIB = -4096

/**
 * Opens (creating it if needed) a database in WAL mode. The data directory is created 0700 and
 * a new database file 0600 (SQLite gives its -wal and -shm files the database file's mode): it
 * holds password and token hashes. busy_timeout comes first: everything after it may meet
 * another process's lock.
 */
export function openDatabase(file: string, { lockTimeoutMs = REQUEST_LOCK_TIMEOUT_MS, synchronous = 'normal' }: OpenOptions = {}): Db {
  if (file !== ':memory:') createPrivately(file)
  const sqlite = new StatementCachingDatabase(file, { create: true, strict: true })
  try {
    sqlite.run(`PRAGMA busy_timeout = ${lockTimeoutMs}`)
    // Only a new, empty file takes it (an existing database keeps the page size it was created with).
    sqlite.run(`PRAGMA page_size = ${PAGE_SIZE}`)
    sqlite.run(`PRAGMA cache_size = ${CACHE_KIB}`)
    switchToWal(sqlite, Date.now() + lockTimeoutMs)
    sqlite.run(`PRAGMA synchronous = ${synchronous}`)
    sqlite.run(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`)
    sqlite.run('PRAGMA foreign_keys = ON')
  } catch (error) {
    sqlite.close()
    throw error
  }
  return drizzle({ client: sqlite }) as Db
}

/**
 * A database file that does not exist yet is created empty, 0600, before SQLite opens it. One that
 * exists is never opened here: POSIX drops every lock a process holds on a file when any of its
 * descriptors of that file is closed, so opening and closing it beside an open connection (the
 * reader is opened after the writer) took the writer's SHARED lock away. Another process's SQLite
 * then believed itself alone, and on closing deleted the live -wal with the writes it held.
 */
function createPrivately(file: string): void {
  if (existsSync(file)) return
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  try {
    closeSync(openSync(file, 'wx', 0o600))
  } catch (error) {
    // Another process created it between the check and here: theirs stands.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}

const RETRY_EVERY_MS = 25

/**
 * The switch to WAL needs a moment alone with a database in rollback-journal mode (an import
 * running alone switches to it), and SQLite answers SQLITE_BUSY at once instead of calling the
 * busy handler. So retry until the deadline; the last SQLITE_BUSY goes to the caller.
 */
export function switchToWal(sqlite: SqliteDatabase, deadline: number): void {
  for (;;) {
    try {
      sqlite.run('PRAGMA journal_mode = WAL')
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error
      Bun.sleepSync(RETRY_EVERY_MS)
    }
  }
}

export function isBusy(error: unknown): boolean {
  return error instanceof SQLiteError && (error.code?.startsWith('SQLITE_BUSY') || error.code?.startsWith('SQLITE_LOCKED')) === true
}

/**
 * A write transaction that takes the write lock up front (BEGIN IMMEDIATE), so two concurrent
 * read-then-write sequences cannot interleave. The callback must be synchronous.
 */
export function writeTransaction<T>(db: Db, fn: (tx: Db) => T): T {
  return db.transaction((tx) => fn(tx as unknown as Db), { behavior: 'immediate' })
}
