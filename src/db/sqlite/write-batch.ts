// Group commit: the synchronous writes made close together share one write transaction.
//
// A write transaction costs more than its statements: BEGIN IMMEDIATE takes the write lock with
// fcntl calls, and COMMIT appends every page it changed to the WAL, where writes made together
// often change the same pages (a favorite's prompt row, the day's usage row). Under load the
// reads of a turn are answered together (read-batch.ts), and the requests they answer go on to
// write in that same moment. So a write waits until the microtask queue has gone a few rounds
// without another, and one transaction then runs every write queued meanwhile, each in a
// savepoint of its own: a write that throws is rolled back alone and only its caller sees the
// error. Every caller is answered after the COMMIT, so nothing is acknowledged before it is
// stored; when BEGIN or COMMIT fails, every write of the group fails with that error.
// scripts/load.ts, alternated runs: 5,800–6,900 → 6,600–7,800 requests/s. Waiting for the end
// of the turn (setImmediate) instead grouped more but cost each reading-then-writing request a
// turn more (6,500–7,400).
import type { SqliteDb } from '../storage'

interface Pending {
  write: (db: SqliteDb) => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/**
 * Microtask rounds without a new write before the writes queued so far are committed: fewer than
 * read-batch.ts's QUIET_ROUNDS, so that a request reading after its write still reads at once.
 */
const QUIET_ROUNDS = 16

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

export interface WriteBatcher {
  /** Runs `write` (synchronous) in the group's write transaction, once the microtasks go quiet. */
  write<T>(write: (db: SqliteDb) => T): Promise<T>
}

/**
 * @param transaction runs `body` inside one write transaction (BEGIN IMMEDIATE … COMMIT, under
 * the process's write lock), rolling it back when `body` or the COMMIT throws
 */
export function createWriteBatcher(db: SqliteDb, transaction: (body: () => void) => Promise<void>): WriteBatcher {
  const client = db.$client
  const savepoint = client.prepare('SAVEPOINT turn_write')
  const release = client.prepare('RELEASE turn_write')
  const rollbackTo = client.prepare('ROLLBACK TO turn_write')
  let queue: Pending[] = []
  let scheduled = false

  /** One write in its savepoint; a write that leaves no transaction behind (SQLite rolled it all back) fails the turn. */
  function runOne(item: Pending): Outcome {
    savepoint.run()
    try {
      const value = item.write(db)
      release.run()
      return { ok: true, value }
    } catch (error) {
      if (!client.inTransaction) throw error
      rollbackTo.run()
      release.run()
      return { ok: false, error }
    }
  }

  async function flush() {
    scheduled = false
    const items = queue
    queue = []
    const outcomes: Outcome[] = []
    try {
      await transaction(() => {
        // One write alone needs no savepoint: its failure rolls the transaction back.
        if (items.length === 1) outcomes.push({ ok: true, value: items[0]!.write(db) })
        else for (const item of items) outcomes.push(runOne(item))
      })
    } catch (error) {
      for (const item of items) item.reject(error)
      return
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  let quietRounds = 0
  const flushWhenQuiet = () => {
    if (++quietRounds < QUIET_ROUNDS) return queueMicrotask(flushWhenQuiet)
    void flush()
  }

  return {
    write: <T>(write: (db: SqliteDb) => T) =>
      new Promise<T>((resolve, reject) => {
        queue.push({ write, resolve: resolve as (value: unknown) => void, reject })
        quietRounds = 0
        if (!scheduled) {
          scheduled = true
          queueMicrotask(flushWhenQuiet)
        }
      }),
  }
}
