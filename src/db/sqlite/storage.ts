// The SQLite storage: one read connection, one write connection, one file. Reads never see a
// transaction another request has open (WAL gives each read a committed snapshot); writes are
// serialised by the process's write lock, so an asynchronous transaction may await between
// statements without anything else slipping into it.
import type { SqliteDb, SqliteStorage, Tx } from '../storage'
import { isBusy, type OpenOptions, openDatabase, REQUEST_LOCK_TIMEOUT_MS } from './client'
import { healthProbe } from './health'
import { createReadBatcher, type ReadBatcher } from './read-batch'
import { createWriteBatcher } from './write-batch'
import { WriteLock } from './write-lock'

/** The longest pause between two tries of BEGIN IMMEDIATE while another connection writes. */
const MAX_RETRY_WAIT_MS = 8

function connectionOf(tx: Tx): SqliteDb {
  if (tx.engine !== 'sqlite') throw new Error('a PostgreSQL transaction handed to the SQLite storage')
  return tx.db
}

export function openSqlite(file: string, { singleConnection = false, ...options }: OpenOptions & { singleConnection?: boolean } = {}): SqliteStorage {
  const writer = openDatabase(file, options)
  let reader: SqliteDb = writer
  try {
    if (!singleConnection) reader = openDatabase(file, options)
  } catch (error) {
    writer.$client.close()
    throw error
  }
  const lock = new WriteLock()
  let savepoints = 0
  const fileReadable = healthProbe(file)
  let lockTimeoutMs = options.lockTimeoutMs ?? REQUEST_LOCK_TIMEOUT_MS
  const begin = writer.$client.prepare('BEGIN IMMEDIATE')
  /**
   * BEGIN IMMEDIATE; when another connection holds the write lock, tried again on a timer until
   * the lock timeout (a promise then, else nothing: an uncontended write pays no extra turn).
   * Once the server listens the write connection's busy handler is off (waitForLocks): it would
   * sleep, and the whole event loop with it, through each of the checkpointer's RESTARTs (a few
   * ms, about two a second under load: scripts/load.ts) or another process's import (seconds).
   */
  function beginImmediate(): Promise<void> | undefined {
    const deadline = Date.now() + lockTimeoutMs
    const attempt = () => {
      try {
        begin.run()
        return true
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error
        return false
      }
    }
    if (attempt()) return
    return (async () => {
      for (let waitMs = 1; ; waitMs = Math.min(waitMs * 2, MAX_RETRY_WAIT_MS)) {
        await Bun.sleep(waitMs)
        if (attempt()) return
      }
    })()
  }
  // One connection (an import) has no separate reader whose snapshot could be shared.
  // Writes end the read snapshot first: a checkpoint's RESTART holds the write lock while it
  // waits for readers, so our write must never wait on our own reader.
  const turn: ReadBatcher = singleConnection ? { read: async (fn) => fn(), refresh() {} } : createReadBatcher(reader)
  const inTx: Tx = { engine: 'sqlite', db: writer }

  /** One write transaction (BEGIN IMMEDIATE … COMMIT) around `body`, under the process's write lock. */
  async function writeTransaction<T>(body: () => T | Promise<T>): Promise<T> {
    await lock.acquire()
    const client = writer.$client
    try {
      turn.refresh()
      const waiting = beginImmediate()
      if (waiting) await waiting
      const result = await body()
      client.run('COMMIT')
      return result
    } catch (error) {
      if (client.inTransaction) client.run('ROLLBACK')
      throw error
    } finally {
      turn.refresh()
      lock.release()
    }
  }
  const writes = createWriteBatcher(writer, writeTransaction)

  return {
    engine: 'sqlite',
    file,
    reader,
    writer,

    read(fn, tx) {
      if (tx) return Promise.resolve(fn(connectionOf(tx)))
      return turn.read(() => fn(reader))
    },

    async write(fn, tx) {
      // Inside a transaction: a savepoint of it (bun:sqlite nests transactions that way).
      if (tx) return connectionOf(tx).$client.transaction(() => fn(writer))()
      return writes.write(fn)
    },

    async transaction(fn, tx) {
      if (tx) return fn(tx)
      return writeTransaction(() => fn(inTx))
    },

    async savepoint(fn, tx) {
      const client = connectionOf(tx).$client
      const name = `savepoint_${++savepoints}`
      client.run(`SAVEPOINT ${name}`)
      try {
        const result = await fn(tx)
        client.run(`RELEASE ${name}`)
        return result
      } catch (error) {
        client.run(`ROLLBACK TO ${name}`)
        client.run(`RELEASE ${name}`)
        throw error
      }
    },

    async snapshot(fn) {
      // A deferred BEGIN on a connection of its own: WAL keeps its snapshot from its first read
      // to COMMIT, and it never takes the write lock. The request reads on the read connection
      // go on seeing new commits meanwhile.
      const own = singleConnection ? writer : openDatabase(file, options)
      const client = own.$client
      client.run('BEGIN')
      try {
        return await fn({ engine: 'sqlite', db: own })
      } finally {
        if (client.inTransaction) client.run('COMMIT')
        if (own !== writer) client.close()
      }
    },

    waitForLocks(ms) {
      lockTimeoutMs = ms
      reader.$client.run(`PRAGMA busy_timeout = ${ms}`)
      // One connection (an import) has no other requests to keep going: it waits in SQLite.
      if (reader !== writer) writer.$client.run('PRAGMA busy_timeout = 0')
    },

    healthy() {
      // This process's connection first (closed at shutdown), then the file itself (health.ts).
      try {
        reader.$client.query('SELECT 1 AS ok').get()
      } catch {
        return false
      }
      return fileReadable()
    },

    async close() {
      if (reader !== writer) reader.$client.close()
      writer.$client.close()
    },
  }
}
