// The pure side of daily quotas: UTC days, the quota a caller sees, the headers and the 429
// that carry it. No storage here.
import { ProblemError } from '../../http/problem'

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

export function quotaOf(metric: Metric, now: Date, used: number, limit: number | null): DailyQuota {
  return {
    metric,
    day: utcDay(now),
    used,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resetsAt: nextUtcMidnight(now),
  }
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
