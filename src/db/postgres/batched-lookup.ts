// Looks rows up by key, the lookups of one event-loop turn in one query (`WHERE key = ANY($1)`).
//
// Every authenticated request looks its user (and a PAT request its token) up by key, and
// /api/user/me reads the user's usage of the day. One round trip each costs more in PostgreSQL
// and in the driver than the rest of /api/user/me together, and under load dozens of such
// lookups arrive in the same turn: sent as one query they cost about what one costs
// (scripts/bench-engines.ts). A lookup waits at most until the
// end of the turn it was asked in, and the query is sent after it was asked, so it sees every
// commit that preceded the request, as a query of its own would.

/** Keys in one query at most; a longer queue is split. */
const MAX_KEYS = 500

interface Waiting<R> {
  resolve: (rows: R[]) => void
  reject: (error: unknown) => void
}

/**
 * `load(keys)` returns the rows found for distinct `keys`, in any order (rows of other keys are
 * ignored); `keyOf(row)` names a row's key. A lookup resolves to the rows with its key, maybe none.
 */
export function batchedLookup<R>(load: (keys: string[]) => Promise<R[]>, keyOf: (row: R) => string): (key: string) => Promise<R[]> {
  let waiting = new Map<string, Waiting<R>[]>()
  let scheduled = false

  const send = async (batch: Map<string, Waiting<R>[]>) => {
    try {
      const found = new Map<string, R[]>()
      for (const row of await load([...batch.keys()])) {
        const key = keyOf(row)
        const rows = found.get(key)
        if (rows) rows.push(row)
        else found.set(key, [row])
      }
      for (const [key, waiters] of batch) {
        const rows = found.get(key) ?? []
        for (const w of waiters) w.resolve(rows)
      }
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error)
    }
  }

  const flush = () => {
    scheduled = false
    const all = waiting
    waiting = new Map()
    let batch = new Map<string, Waiting<R>[]>()
    for (const [key, waiters] of all) {
      batch.set(key, waiters)
      if (batch.size === MAX_KEYS) {
        void send(batch)
        batch = new Map()
      }
    }
    if (batch.size > 0) void send(batch)
  }

  return (key) =>
    new Promise<R[]>((resolve, reject) => {
      const waiters = waiting.get(key)
      if (waiters) waiters.push({ resolve, reject })
      else waiting.set(key, [{ resolve, reject }])
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    })
}
