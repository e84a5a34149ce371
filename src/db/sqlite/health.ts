// /api/health on SQLite: is the database file still one this process can read? The server's own
// connections cannot say: they keep the file open and its pages cached, so a database deleted,
// replaced or overwritten under them still answers `SELECT 1` (and every cached page) while the
// next real query fails. A connection of the probe's own opens the file again, never creating it,
// and reads its schema from disk.
import { Database } from 'bun:sqlite'
import { isBusy } from './client'

/**
 * How long one check's answer stands. Load balancers poll every few seconds; a benchmark thousands
 * of times a second, and a check costs a connection's open and close (~0.1 ms).
 */
export const HEALTH_CHECK_EVERY_MS = 1000

export function healthProbe(file: string, clock: () => number = () => performance.now()): () => boolean {
  if (file === ':memory:') return () => true
  let checkedAt = Number.NEGATIVE_INFINITY
  let healthy = true
  return () => {
    const now = clock()
    if (now - checkedAt >= HEALTH_CHECK_EVERY_MS) {
      healthy = readable(file)
      checkedAt = now
    }
    return healthy
  }
}

function readable(file: string): boolean {
  let db: Database | undefined
  try {
    db = new Database(file, { readwrite: true, create: false })
    db.query('SELECT count(*) AS n FROM sqlite_schema').get()
    return true
  } catch (error) {
    // A lock held a moment (a checkpoint, another process's recovery) is no broken database.
    return isBusy(error)
  } finally {
    db?.close()
  }
}
