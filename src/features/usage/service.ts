// Daily counters (SPEC "Limits"): per user, or per client address for anonymous callers, in UTC
// days; and request-rate limits in fixed one-minute windows. Both live in the database so every
// instance behind a load balancer shares one budget.
import type { Tx } from '../../db/storage'
import { rateLimited } from '../../http/problem'
import { type DailyQuota, type Metric, quotaOf, utcDay } from './quota'
import type { UsageStore } from './store'

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

const WINDOW_MS = 60_000
/** Counters older than yesterday and windows older than ten minutes are pruned. */
const KEEP_DAYS = 2
const KEEP_WINDOWS_MS = 10 * WINDOW_MS

export function createUsageService(store: UsageStore) {
  return {
    /** Takes one unit, atomically; a refusal changes nothing. */
    async consume(req: ConsumeRequest, tx?: Tx): Promise<ConsumeResult> {
      const now = req.now ?? new Date()
      const key = { subject: req.subject, metric: req.metric, day: utcDay(now) }
      if (req.limit !== null && req.limit <= 0) {
        return { allowed: false, quota: quotaOf(req.metric, now, await store.used(key, tx), req.limit) }
      }
      const taken = await store.take(key, req.limit, req.item, tx)
      const quota = quotaOf(req.metric, now, taken.used, req.limit)
      return taken.outcome === 'refused' ? { allowed: false, quota } : { allowed: true, counted: taken.outcome === 'counted', quota }
    },

    /**
     * What `consume` would answer, changing nothing: HEAD of a metered resource reports its
     * status and quota without spending a unit.
     */
    async peek(req: ConsumeRequest): Promise<ConsumeResult> {
      const now = req.now ?? new Date()
      const { used, repeat } = await store.peek({ subject: req.subject, metric: req.metric, day: utcDay(now) }, req.item)
      const quota = quotaOf(req.metric, now, used, req.limit)
      if (repeat) return { allowed: true, counted: false, quota }
      return req.limit === null || used < req.limit ? { allowed: true, counted: false, quota } : { allowed: false, quota }
    },

    /** Gives back one unit taken on `day` (a call that failed before producing anything). */
    refund: (subject: string, metric: Metric, day: string, tx?: Tx) => store.refund({ subject, metric, day }, tx),

    /** Takes again, whatever the limit, a unit given back on `day` for a call that then produced its result after all. */
    takeAgain: async (subject: string, metric: Metric, day: string, tx?: Tx) => {
      await store.take({ subject, metric, day }, null, undefined, tx)
    },

    used: (subject: string, metric: Metric, now = new Date()) => store.used({ subject, metric, day: utcDay(now) }),

    /** Today's counts of every metric for one subject (GET /api/user/me). */
    async usedToday(subject: string, day: string): Promise<Record<Metric, number>> {
      const counts = await store.usedOn(subject, day)
      return { prompts: counts.prompts ?? 0, optimizations: counts.optimizations ?? 0 }
    },

    /** Counts one attempt for `key`; throws 429 `rate_limited` with Retry-After when over `perMinute`. */
    async hitRateLimit(key: string, perMinute: number, detail: string, now = Date.now()): Promise<void> {
      if (perMinute <= 0) return
      const windowStart = now - (now % WINDOW_MS)
      if ((await store.hit(key, windowStart)) > perMinute) throw rateLimited((windowStart + WINDOW_MS - now) / 1000, detail)
    },

    forgetSubject: (subject: string, tx?: Tx) => store.forgetSubject(subject, tx),

    prune: (now = Date.now()) => store.prune(utcDay(new Date(now - KEEP_DAYS * 86_400_000)), now - KEEP_WINDOWS_MS),
  }
}

export type UsageService = ReturnType<typeof createUsageService>
