// PostgreSQL through postgres-js (drizzle-orm/bun-sql still mishandles timestamps and JSONB on
// drizzle 0.45). One pool per process; every instance of a cluster opens its own.
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import type { PgDb, PgStorage, PgTx, Tx } from '../storage'
import { sessionName } from './sessions'
import { redactUrl } from './url'

export interface PostgresOptions {
  /** connections in this process's pool */
  max?: number
}

/**
 * Every statement as a prepared statement. drizzle asks postgres-js for unnamed statements unless
 * a query is given a name, and PostgreSQL then parses and plans each one on every execution
 * (scripts/bench-engines.ts: ~200 µs per query under load instead of ~35 µs, a sixth of /me's
 * throughput). postgres-js keeps one prepared statement per distinct query text per connection.
 */
function preparing<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (key === 'unsafe') {
        return (query: string, params?: unknown[], options?: Record<string, unknown>) =>
          (value as (...args: unknown[]) => unknown).call(target, query, params, { ...options, prepare: true })
      }
      // Transactions and savepoints hand their callback a client of their own: the same for it.
      if (key === 'begin' || key === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (client: object) => unknown
          return (value as (...args: unknown[]) => unknown).call(target, ...args, (inner: object) => fn(preparing(inner)))
        }
      }
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/**
 * A timestamptz as PostgreSQL writes it in a UTC session ("0001-01-01 00:00:00.5+00"), in ISO 8601
 * for drizzle's `new Date(text)`: JavaScript reads PostgreSQL's own form as 2001 for any year below
 * 100, and not at all with the seconds of a local mean time offset ("+00:09:21", Paris before 1911),
 * hence the UTC sessions too.
 */
function isoTimestamp(text: string): string {
  const match = /^(\d{4,})-(\d\d)-(\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)\+00$/.exec(text)
  return match ? `${match[1]}-${match[2]}-${match[3]}T${match[4]}Z` : text
}

/** PostgreSQL's type oid of timestamptz. */
const TIMESTAMPTZ = 1184

export function openPostgres(url: string, { max = 10 }: PostgresOptions = {}): PgStorage {
  const applicationName = sessionName(url)
  const client = postgres(url, {
    max,
    // NOTICEs (e.g. "relation already exists, skipping") are not errors; keep them out of stdout.
    onnotice: () => {},
    connect_timeout: 10,
    idle_timeout: 60,
    connection: { TimeZone: 'UTC', ...(applicationName ? { application_name: applicationName } : {}) },
    // Timestamps travel as timestamptz and come back as Date; bigint ids as numbers (mode: 'number').
  })
  const db = drizzle({ client: preparing(client) }) as PgDb
  const unprepared = drizzle({ client }) as PgDb
  // drizzle has postgres-js hand it timestamps as PostgreSQL's text; as ISO text instead (isoTimestamp).
  client.options.parsers[TIMESTAMPTZ] = isoTimestamp
  const txOf = (tx: Tx): PgTx => {
    if (tx.engine !== 'postgres') throw new Error('a SQLite transaction handed to the PostgreSQL storage')
    return tx.db
  }
  return {
    engine: 'postgres',
    db,
    unprepared,
    use: (tx) => (tx ? txOf(tx) : db),
    transaction: (fn, tx) => (tx ? fn(tx) : db.transaction((t) => fn({ engine: 'postgres', db: t }))),
    // drizzle runs a transaction inside a transaction as a savepoint.
    savepoint: (fn, tx) => txOf(tx).transaction((t) => fn({ engine: 'postgres', db: t })),
    snapshot: (fn) => db.transaction((t) => fn({ engine: 'postgres', db: t }), { isolationLevel: 'repeatable read', accessMode: 'read only' }),
    async healthy() {
      try {
        await db.execute(sql`SELECT 1`)
        return true
      } catch {
        return false
      }
    },
    close: () => client.end({ timeout: 5 }),
  }
}
