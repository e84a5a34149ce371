// Daily counters (SPEC "Limits"): per user, or per client address for anonymous callers;
// UTC days; atomic. The prompt detail and the optimizer both meter through here.
import { and, eq, lt, sql } from 'drizzle-orm'
import { type Db, writeTransaction } from '../../db/client'
import { ProblemError } from '../../http/problem'
import { dailyUsage, dailyUsageItems } from './schema'

export type Metric = 'prompts' | 'optimizations'

export interface DailyQuota {
  metric: Metric
  day: string
  used: number
  /** null: unlimited */
  limit: number | null
  remaining: number | null
  resetsAt: Date
}

export const userSubject = (userId: string) => `user:${userId}`
export const addressSubject = (address: string) => `ip:${address}`

export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10)
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
}

let today = { day: '', from: 0, until: 0 }
/** utcDay(new Date(nowMs)), worked out once per day: every authenticated request asks for it. */
export function todayUtc(nowMs = Date.now()): string {
  if (nowMs < today.from || nowMs >= today.until) {
    const now = new Date(nowMs)
    const until = nextUtcMidnight(now).getTime()
    today = { day: utcDay(now), from: until - 86_400_000, until }
  }
  return today.day
}

function quota(metric: Metric, now: Date, used: number, limit: number | null): DailyQuota {
  return {
    metric,
    day: utcDay(now),
    used,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resetsAt: nextUtcMidnight(now),
  }
}

export interface ConsumeRequest {
  subject: string
  metric: Metric
  /** null: unlimited (still counted, for usage figures) */
  limit: number | null
  /** for metrics where re-use is free: the same item twice in a day counts once */
  item?: string
  now?: Date
}

export type ConsumeResult = { allowed: true; counted: boolean; quota: DailyQuota } | { allowed: false; quota: DailyQuota }

class LimitReached extends Error {}

function prepareStatements(db: Db) {
  const counterKey = [dailyUsage.subject, dailyUsage.metric, dailyUsage.day]
  const upsert = (setWhere?: ReturnType<typeof lt>) =>
    db
      .insert(dailyUsage)
      .values({ subject: sql.placeholder('subject'), metric: sql.placeholder('metric'), day: sql.placeholder('day'), count: 1 })
      .onConflictDoUpdate({ target: counterKey, set: { count: sql`${dailyUsage.count} + 1` }, setWhere })
      .returning({ count: dailyUsage.count })
      .prepare()
  return {
    claimItem: db
      .insert(dailyUsageItems)
      .values({ subject: sql.placeholder('subject'), metric: sql.placeholder('metric'), day: sql.placeholder('day'), item: sql.placeholder('item') })
      .onConflictDoNothing()
      .returning()
      .prepare(),
    countUnlimited: upsert(),
    countBelowLimit: upsert(lt(dailyUsage.count, sql.placeholder('limit'))),
    used: db
      .select({ count: dailyUsage.count })
      .from(dailyUsage)
      .where(
        and(
          eq(dailyUsage.subject, sql.placeholder('subject')),
          eq(dailyUsage.metric, sql.placeholder('metric')),
          eq(dailyUsage.day, sql.placeholder('day')),
        ),
      )
      .prepare(),
  }
}

// Prepared once per connection: metering runs on every metered request, and building and
// compiling these statements each time cost more than running them. drizzle's transaction
// objects share their database's session, and a statement prepared on a connection runs
// inside that connection's transactions.
const preparedBySession = new WeakMap<object, ReturnType<typeof prepareStatements>>()

function statements(db: Db): ReturnType<typeof prepareStatements> {
  const session = (db as unknown as { session: object }).session
  let prepared = preparedBySession.get(session)
  if (!prepared) preparedBySession.set(session, (prepared = prepareStatements(db)))
  return prepared
}

/**
 * Takes one unit, atomically. The item is claimed first (insert-or-nothing), then the counter
 * is raised only while below the limit, in one statement; a refusal rolls the claim back. The
 * same two statements are race-free on PostgreSQL, where transactions do not serialise.
 * Without an item the counter statement alone decides, atomically, so no transaction is opened
 * (called inside the caller's transaction, it simply joins it).
 */
export function consumeDaily(db: Db, req: ConsumeRequest): ConsumeResult {
  const now = req.now ?? new Date()
  const day = utcDay(now)
  const key = { subject: req.subject, metric: req.metric, day }
  const s = statements(db)
  const refused = (): ConsumeResult => ({ allowed: false, quota: quota(req.metric, now, usedIn(db, key), req.limit) })
  if (req.limit !== null && req.limit <= 0) return refused()
  const count = () => (req.limit === null ? s.countUnlimited.get(key) : s.countBelowLimit.get({ ...key, limit: req.limit }))
  if (req.item === undefined) {
    const row = count()
    return row ? { allowed: true, counted: true, quota: quota(req.metric, now, row.count, req.limit) } : refused()
  }
  try {
    return writeTransaction(db, (tx) => {
      const claimed = s.claimItem.get({ ...key, item: req.item })
      if (!claimed) return { allowed: true as const, counted: false, quota: quota(req.metric, now, usedIn(tx, key), req.limit) }
      const row = count()
      if (!row) throw new LimitReached()
      return { allowed: true as const, counted: true, quota: quota(req.metric, now, row.count, req.limit) }
    })
  } catch (error) {
    if (!(error instanceof LimitReached)) throw error
    return refused()
  }
}

function usedIn(db: Db, key: { subject: string; metric: string; day: string }): number {
  return statements(db).used.get(key)?.count ?? 0
}

/** Gives back one unit taken on `day` (a call that failed before producing anything). */
export function refundDaily(db: Db, subject: string, metric: Metric, day: string): void {
  db.update(dailyUsage)
    .set({ count: sql`max(${dailyUsage.count} - 1, 0)` })
    .where(and(eq(dailyUsage.subject, subject), eq(dailyUsage.metric, metric), eq(dailyUsage.day, day)))
    .run()
}

export function dailyUsed(db: Db, subject: string, metric: Metric, now = new Date()): number {
  return usedIn(db, { subject, metric, day: utcDay(now) })
}

/** The headers every metered response carries (IETF RateLimit fields; reset in seconds). */
export function rateLimitHeaders(q: DailyQuota, now = new Date()): Record<string, string> {
  if (q.limit === null) return {}
  return {
    'ratelimit-limit': String(q.limit),
    'ratelimit-remaining': String(q.remaining ?? 0),
    'ratelimit-reset': String(Math.max(1, Math.ceil((q.resetsAt.getTime() - now.getTime()) / 1000))),
  }
}

export function dailyLimitReached(q: DailyQuota, what: string, now = new Date()): ProblemError {
  const headers = rateLimitHeaders(q, now)
  return new ProblemError(
    429,
    'daily_limit_reached',
    `You have used all ${q.limit} ${what} of your tier for today (UTC); the counter resets at ${q.resetsAt.toISOString()}.`,
    { limit: q.limit, used: q.used, resets_at: q.resetsAt.toISOString() },
    { ...headers, 'retry-after': headers['ratelimit-reset'] ?? '60' },
  )
}

/** Drops counters older than yesterday; run at start and by the periodic sweep. */
export function pruneDailyUsage(db: Db, now = new Date()): void {
  const keepFrom = utcDay(new Date(now.getTime() - 2 * 86_400_000))
  db.delete(dailyUsage).where(lt(dailyUsage.day, keepFrom)).run()
  db.delete(dailyUsageItems).where(lt(dailyUsageItems.day, keepFrom)).run()
}
