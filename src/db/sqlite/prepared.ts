// Statements prepared once per connection: the SQLite adapters run the same few statements on
// every request, and preparing them costs more than running them. A statement is bound to the
// connection it was prepared on, so reads (reader) and writes (writer) each get their own set.
import type { SqliteDb } from '../storage'

export function perConnection<T>(prepare: (db: SqliteDb) => T): (db: SqliteDb) => T {
  const cache = new WeakMap<SqliteDb, T>()
  return (db) => {
    let prepared = cache.get(db)
    if (prepared === undefined) cache.set(db, (prepared = prepare(db)))
    return prepared
  }
}
