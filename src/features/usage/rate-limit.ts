// Request-rate limits in fixed one-minute windows, stored in the database so every instance
// behind a load balancer shares one budget.
import { lt, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { rateLimited } from '../../http/problem'
import { rateWindows } from './schema'

const WINDOW_MS = 60_000

/** Counts one attempt for `key`; throws 429 `rate_limited` with Retry-After when over `perMinute`. */
export function hitRateLimit(db: Db, key: string, perMinute: number, now = Date.now()): void {
  if (perMinute <= 0) return
  const windowStart = now - (now % WINDOW_MS)
  const row = db
    .insert(rateWindows)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: rateWindows.key,
      set: {
        count: sql`CASE WHEN ${rateWindows.windowStart} = excluded.window_start THEN ${rateWindows.count} + 1 ELSE 1 END`,
        windowStart: sql`excluded.window_start`,
      },
    })
    .returning({ count: rateWindows.count })
    .get()
  if (row && row.count > perMinute) {
    throw rateLimited((windowStart + WINDOW_MS - now) / 1000, 'Too many attempts from this address; wait a minute and try again.')
  }
}

export function pruneRateWindows(db: Db, now = Date.now()): void {
  db.delete(rateWindows).where(lt(rateWindows.windowStart, now - 10 * WINDOW_MS)).run()
}
