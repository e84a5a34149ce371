// PostgreSQL adapter of the usage port. The counter is one conditional upsert (the row lock of
// ON CONFLICT makes concurrent takes queue, so the limit holds across instances); a take with
// an item claims the item first in the same transaction, and a refusal rolls the claim back.
import { and, eq, lt, sql } from 'drizzle-orm'
import { batchedLookup } from '../../db/postgres/batched-lookup'
import type { PgDb, PgStorage, PgTx } from '../../db/storage'
import { dailyUsage, dailyUsageItems, rateWindows } from './schema.pg'
import type { CounterKey, TakeOutcome, UsageStore } from './store'

class Refused extends Error {}

const whereKey = (key: CounterKey) => and(eq(dailyUsage.subject, key.subject), eq(dailyUsage.metric, key.metric), eq(dailyUsage.day, key.day))

async function usedIn(db: PgDb | PgTx, key: CounterKey): Promise<number> {
  const [row] = await db.select({ count: dailyUsage.count }).from(dailyUsage).where(whereKey(key))
  return row?.count ?? 0
}

async function count(db: PgDb | PgTx, key: CounterKey, limit: number | null): Promise<number | null> {
  const [row] = await db
    .insert(dailyUsage)
    .values({ ...key, count: 1 })
    .onConflictDoUpdate({
      target: [dailyUsage.subject, dailyUsage.metric, dailyUsage.day],
      set: { count: sql`${dailyUsage.count} + 1` },
      setWhere: limit === null ? undefined : lt(dailyUsage.count, limit),
    })
    .returning({ count: dailyUsage.count })
  return row?.count ?? null
}

export function pgUsageStore(storage: PgStorage): UsageStore {
  // Every /api/user/me: a named statement, planned once per connection, and the lookups of a turn
  // go as one query (scripts/bench-engines.ts). Keys are "day subject"; a turn rarely spans two
  // days, and rows of pairs nobody asked for are dropped.
  const usageOfDays = storage.db
    .select({ subject: dailyUsage.subject, day: dailyUsage.day, metric: dailyUsage.metric, count: dailyUsage.count })
    .from(dailyUsage)
    .where(and(sql`${dailyUsage.subject} = ANY(${sql.placeholder('subjects')})`, sql`${dailyUsage.day} = ANY(${sql.placeholder('days')})`))
    .prepare('usage_of_days')
  const usageLookups = batchedLookup(
    (keys) => {
      const days = new Set<string>()
      const subjects = new Set<string>()
      for (const key of keys) {
        const space = key.indexOf(' ')
        days.add(key.slice(0, space))
        subjects.add(key.slice(space + 1))
      }
      return usageOfDays.execute({ days: [...days], subjects: [...subjects] })
    },
    (row) => `${row.day} ${row.subject}`,
  )
  return {
    async take(key, limit, item, tx): Promise<TakeOutcome> {
      const db = storage.use(tx)
      if (item === undefined) {
        const used = await count(db, key, limit)
        return used === null ? { outcome: 'refused', used: await usedIn(db, key) } : { outcome: 'counted', used }
      }
      try {
        // A savepoint inside the caller's transaction, or a transaction of its own.
        return await db.transaction(async (t): Promise<TakeOutcome> => {
          const [claimed] = await t
            .insert(dailyUsageItems)
            .values({ ...key, item })
            .onConflictDoNothing()
            .returning({ item: dailyUsageItems.item })
          if (!claimed) return { outcome: 'repeat', used: await usedIn(t, key) }
          const used = await count(t, key, limit)
          if (used === null) throw new Refused()
          return { outcome: 'counted', used }
        })
      } catch (error) {
        if (!(error instanceof Refused)) throw error
        return { outcome: 'refused', used: await usedIn(db, key) }
      }
    },

    async peek(key, item) {
      const db = storage.db
      const [used, counted] = await Promise.all([
        usedIn(db, key),
        item === undefined
          ? []
          : db
              .select({ item: dailyUsageItems.item })
              .from(dailyUsageItems)
              .where(
                and(
                  eq(dailyUsageItems.subject, key.subject),
                  eq(dailyUsageItems.metric, key.metric),
                  eq(dailyUsageItems.day, key.day),
                  eq(dailyUsageItems.item, item),
                ),
              ),
      ])
      return { used, repeat: counted.length > 0 }
    },

    async refund(key, tx) {
      await storage
        .use(tx)
        .update(dailyUsage)
        .set({ count: sql`greatest(${dailyUsage.count} - 1, 0)` })
        .where(whereKey(key))
    },

    used: (key, tx) => usedIn(storage.use(tx), key),

    async usedOn(subject, day) {
      const rows = await usageLookups(`${day} ${subject}`)
      return Object.fromEntries(rows.map((r) => [r.metric, r.count]))
    },

    async hit(key, windowStart) {
      const [row] = await storage.db
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
      return row!.count
    },

    async forgetSubject(subject, tx) {
      const db = storage.use(tx)
      await db.delete(dailyUsage).where(eq(dailyUsage.subject, subject))
      await db.delete(dailyUsageItems).where(eq(dailyUsageItems.subject, subject))
    },

    async prune(keepFromDay, windowsBefore) {
      await storage.db.delete(dailyUsage).where(lt(dailyUsage.day, keepFromDay))
      await storage.db.delete(dailyUsageItems).where(lt(dailyUsageItems.day, keepFromDay))
      await storage.db.delete(rateWindows).where(lt(rateWindows.windowStart, windowsBefore))
    },
  }
}
