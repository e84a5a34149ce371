// Coalesces the reads that arrive in one turn of the event loop into one read transaction.
// Each SQLite read transaction in WAL mode takes and releases a shared lock with system calls;
// under load many requests arrive together, and one transaction for all of them turns that
// per-request cost into a per-batch cost. Only synchronous, read-only work may be queued.
import type { Db } from './client'

interface Pending {
  read: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export type BatchedRead = <T>(read: () => T) => Promise<T>

export function createReadBatcher(db: Db): BatchedRead {
  let queue: Pending[] = []
  let scheduled = false

  const settle = (items: Pending[]) => {
    for (const item of items) {
      try {
        item.resolve(item.read())
      } catch (error) {
        item.reject(error)
      }
    }
  }
  const inOneTransaction = db.$client.transaction(settle)

  function flush() {
    scheduled = false
    const items = queue
    queue = []
    try {
      if (items.length === 1 || db.$client.inTransaction) settle(items)
      else inOneTransaction.deferred(items)
    } catch (error) {
      // BEGIN or COMMIT failed (the database is closed or broken). Promises already settled
      // ignore this; the others must not hang.
      for (const item of items) item.reject(error)
    }
  }

  return <T>(read: () => T) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ read, resolve: resolve as (value: unknown) => void, reject })
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    })
}
