// Statements prepared once per connection: the SQLite adapters run the same few statements on
// every request, and preparing them costs more than running them. A statement is bound to the
// connection it was prepared on, so reads (reader) and writes (writer) each get their own set.
import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite'
import type { SqliteDb } from '../storage'

export function perConnection<T>(prepare: (db: SqliteDb) => T): (db: SqliteDb) => T {
  const cache = new WeakMap<SqliteDb, T>()
  return (db) => {
    let prepared = cache.get(db)
    if (prepared === undefined) cache.set(db, (prepared = prepare(db)))
    return prepared
  }
}

/**
 * Statements by SQL text, for queries built in a few variants (filters, IN lists of page sizes).
 * The connection keeps what it prepared (client.ts), so a variant is prepared once; this only
 * gives the statement its row type.
 */
export function statementsBySql(client: Database): <R>(sql: string) => Statement<R, SQLQueryBindings[]> {
  return <R>(sql: string) => client.prepare<R, SQLQueryBindings[]>(sql)
}
