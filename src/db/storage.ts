// The one storage a process opens (db/index.ts): embedded SQLite, or PostgreSQL when
// DATABASE_URL says so. Features never see which: their services talk to a store port
// (features/<name>/store.ts) and the composition root hands each port the adapter that matches
// `storage.engine`. Only db/ and the store.*.ts adapters touch the types below.
import type { Database } from 'bun:sqlite'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'

export type SqliteDb = BunSQLiteDatabase & { $client: Database }
export type PgDb = PostgresJsDatabase & { $client: Sql }
export type PgTx = Parameters<Parameters<PgDb['transaction']>[0]>[0]

/**
 * Proof that the caller is inside a write transaction, handed to store methods so that work
 * of several features commits or rolls back together (a webhook's event record, the tier it
 * grants and the e-mail it queues). Opaque to services; each adapter reads its own engine's side.
 */
export type Tx = { readonly engine: 'sqlite'; readonly db: SqliteDb } | { readonly engine: 'postgres'; readonly db: PgTx }

interface StorageBase {
  /** One write transaction around async work; nested calls with the same `tx` join it. */
  transaction<T>(fn: (tx: Tx) => Promise<T>, tx?: Tx): Promise<T>
  /** `fn` inside `tx`, undone alone when it throws (a savepoint); the error goes on. */
  savepoint<T>(fn: (tx: Tx) => Promise<T>, tx: Tx): Promise<T>
  /**
   * A read-only transaction: every read inside it (through `tx`) sees one committed state of the
   * database while others keep writing (an export). Never blocks writers.
   */
  snapshot<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /** true when a trivial query answers (GET /api/health); synchronous on SQLite */
  healthy(): boolean | Promise<boolean>
  close(): Promise<void>
}

export interface SqliteStorage extends StorageBase {
  readonly engine: 'sqlite'
  readonly file: string
  /** The read connection: sees committed data only, never another request's open transaction. */
  readonly reader: SqliteDb
  /** The write connection: used only while this process's write lock is held (write / transaction). */
  readonly writer: SqliteDb
  /**
   * Synchronous reads queued in one turn of the event loop share one read transaction (each
   * SQLite read transaction costs system calls for its lock). Inside a transaction (`tx`), the
   * read runs at once on the write connection, so it sees that transaction's own writes.
   */
  read<T>(fn: (db: SqliteDb) => T, tx?: Tx): Promise<T>
  /**
   * A synchronous write transaction (BEGIN IMMEDIATE) on the write connection, serialised with
   * every other write of this process. Inside `tx` it runs in a savepoint of that transaction.
   */
  write<T>(fn: (db: SqliteDb) => T, tx?: Tx): Promise<T>
  /**
   * From now on a statement waits at most `ms` for another connection's lock (`promptlib serve`
   * once it listens; until then the open options' longer wait). A write waits on timers, not in
   * SQLite's busy handler, so the other requests go on meanwhile.
   */
  waitForLocks(ms: number): void
}

export interface PgStorage extends StorageBase {
  readonly engine: 'postgres'
  readonly db: PgDb
  /**
   * The same pool, its statements never prepared: each planned for its own values. For queries
   * whose best plan depends on them (full-text search: how common the words are). A prepared
   * statement switches to one generic plan after five runs, and for search that plan walks the
   * whole table backwards for a rare word (50 ms instead of 3 on 100,000 prompts).
   */
  readonly unprepared: PgDb
  /** `tx`'s connection when given, else the pool */
  use(tx?: Tx): PgDb | PgTx
}

export type Storage = SqliteStorage | PgStorage
export type Engine = Storage['engine']
