// TEMPORARY (two-engines conversion): the synchronous SQLite counters that the catalogue and the
// optimizer still call until they move onto the usage port (createUsage). Deleted with them.
import { and, eq, lt, sql } from 'drizzle-orm'
import { type Db, writeTransaction } from '../../db/sqlite/client'
import { type DailyQuota, type Metric, quotaOf, utcDay } from './quota'
import { dailyUsage, dailyUsageItems } from './schema.sqlite'

export * from './quota'

export interface ConsumeRequest {
  subject: string
  metric: Metric
  limit: number | null
  item?: string
  now?: Date
}

export type ConsumeResult = { allowed: true; counted: boolean; quota: DailyQuota } | { allowed: false; quota: DailyQuota }

class LimitReached extends Error {}

function usedIn(db: Db, key: { subject: string; metric: string; day: string }): number {
  return db.select({ count: dailyUsage.count }).from(dailyUsage).where(and(eq(dailyUsage.subject, key.subject), eq(dailyUsage.metric, key.metric), eq(dailyUsage.day, key.day))).get()?.count ?? 0
}

export function consumeDaily(db: Db, req: ConsumeRequest): ConsumeResult {
  const now = req.now ?? new Date()
  const day = utcDay(now)
  const key = { subject: req.subject, metric: req.metric, day }
  const refused = (): ConsumeResult => ({ allowed: false, quota: quotaOf(req.metric, now, usedIn(db, key), req.limit) })
  if (req.limit !== null && req.limit <= 0) return refused()
  const count = () =>
    db
      .insert(dailyUsage)
      .values({ ...key, count: 1 })
      .onConflictDoUpdate({ target: [dailyUsage.subject, dailyUsage.metric, dailyUsage.day], set: { count: sql`${dailyUsage.count} + 1` }, setWhere: req.limit === null ? undefined : lt(dailyUsage.count, req.limit) })
      .returning({ count: dailyUsage.count })
      .get()
  if (req.item === undefined) {
    const row = count()
    return row ? { allowed: true, counted: true, quota: quotaOf(req.metric, now, row.count, req.limit) } : refused()
  }
  try {
    return writeTransaction(db, (tx) => {
      const claimed = tx.insert(dailyUsageItems).values({ ...key, item: req.item! }).onConflictDoNothing().returning().get()
      if (!claimed) return { allowed: true as const, counted: false, quota: quotaOf(req.metric, now, usedIn(tx, key), req.limit) }
      const row = count()
      if (!row) throw new LimitReached()
      return { allowed: true as const, counted: true, quota: quotaOf(req.metric, now, row.count, req.limit) }
    })
  } catch (error) {
    if (!(error instanceof LimitReached)) throw error
    return refused()
  }
}

export function refundDaily(db: Db, subject: string, metric: Metric, day: string): void {
  db.update(dailyUsage)
    .set({ count: sql`max(${dailyUsage.count} - 1, 0)` })
    .where(and(eq(dailyUsage.subject, subject), eq(dailyUsage.metric, metric), eq(dailyUsage.day, day)))
    .run()
}

export function dailyUsed(db: Db, subject: string, metric: Metric, now = new Date()): number {
  return usedIn(db, { subject, metric, day: utcDay(now) })
}
