// The optimizer's rows: opened (`running`) before a stream starts, together with the daily quota
// and the open-stream cap in one write transaction, and finished when the stream ends.
import { and, count, desc, eq, gt, isNotNull, isNull, lt, notInArray, sql } from 'drizzle-orm'
import { type Db, writeTransaction } from '../../db/sqlite/client'
import { rateLimited } from '../../http/problem'
import { consumeDaily, type DailyQuota, dailyLimitReached, refundDaily, userSubject, utcDay } from '../usage/daily'
import { historyId } from './ids'
import { removeDeadInstances, type ServerInstance } from './instances'
import type { OptimizationMode } from './modes'
import { type OptimizationStatus, optimizationHistory as history, serverInstances } from './schema'

/** No stream lives longer than this: the engine is stopped with upstream_timeout. */
export const MAX_STREAM_MS = 10 * 60_000
/**
 * A `running` row older than this belongs to a process that died mid-stream (no stream lives
 * that long): it no longer counts against the cap, and the sweep marks it `aborted`. The last
 * resort: rows of a dead server process are normally ended within seconds (see instances.ts).
 */
export const STALE_RUNNING_MS = MAX_STREAM_MS + 5 * 60_000
/** What Retry-After says when the open-stream cap is reached: streams usually end in seconds. */
const CAP_RETRY_AFTER_SECONDS = 5

export interface OpenRequest {
  userId: string
  /** the tier's daily limit; null = unlimited (still counted) */
  dailyLimit: number | null
  maxOpenStreams: number
  mode: OptimizationMode
  prompt: string
  targetModel: string | null
  engine: string
  model: string | null
  /** the server process that streams it (instances.ts); null when none is registered (tests) */
  instanceId: string | null
  now?: Date
}

export interface Opened {
  id: string
  quota: DailyQuota
}

export interface Finish {
  status: Exclude<OptimizationStatus, 'running'>
  optimizedPrompt: string | null
  errorCode: string | null
  inputTokens: number | null
  outputTokens: number | null
}

export interface HistoryItem {
  id: string
  mode: string
  prompt: string
  optimized_prompt: string | null
  engine: string
  model: string | null
  status: OptimizationStatus
  created_at: string
}

export function createOptimizerHistory(db: Db) {
  // Prepared once: these run on every optimize call. Placeholders in WHERE take raw values
  // (ms for timestamps); placeholders in VALUES/SET go through the column's mapping (Dates).
  const runningSince = db
    .select({ open: count() })
    .from(history)
    .where(and(eq(history.userId, sql.placeholder('userId')), eq(history.status, 'running'), gt(history.createdAt, sql.placeholder('since'))))
    .prepare()
  const insertRunning = db
    .insert(history)
    .values({
      id: sql.placeholder('id'),
      userId: sql.placeholder('userId'),
      mode: sql.placeholder('mode'),
      prompt: sql.placeholder('prompt'),
      targetModel: sql.placeholder('targetModel'),
      engine: sql.placeholder('engine'),
      model: sql.placeholder('model'),
      instanceId: sql.placeholder('instanceId'),
      status: 'running',
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare()
  // drizzle maps SET placeholders at run time but does not type them
  const setTo = (name: string) => sql.placeholder(name) as never
  const finishRow = db
    .update(history)
    .set({
      status: setTo('status'),
      optimizedPrompt: setTo('optimizedPrompt'),
      errorCode: setTo('errorCode'),
      inputTokens: setTo('inputTokens'),
      outputTokens: setTo('outputTokens'),
      finishedAt: setTo('finishedAt'),
    })
    .where(eq(history.id, sql.placeholder('id')))
    .prepare()
  const markText = db
    .update(history)
    .set({ firstTextAt: setTo('at') })
    .where(and(eq(history.id, sql.placeholder('id')), isNull(history.firstTextAt)))
    .prepare()

  return {
    /**
     * Authorises one call and records it as running, atomically: the daily unit is taken, the
     * open streams counted, the row written; a refusal (429) rolls all of it back, so a call
     * refused for the cap costs no quota.
     */
    open(req: OpenRequest): Opened {
      const now = req.now ?? new Date()
      return writeTransaction(db, (tx) => {
        const taken = consumeDaily(tx, { subject: userSubject(req.userId), metric: 'optimizations', limit: req.dailyLimit, now })
        if (!taken.allowed) throw dailyLimitReached(taken.quota, 'optimizations', now)
        const open = runningSince.get({ userId: req.userId, since: now.getTime() - STALE_RUNNING_MS })?.open ?? 0
        if (open >= req.maxOpenStreams) {
          throw rateLimited(
            CAP_RETRY_AFTER_SECONDS,
            `You already have ${open} optimizations streaming; at most ${req.maxOpenStreams} may run at once. Wait for one to finish.`,
          )
        }
        const id = historyId()
        insertRunning.run({
          id,
          userId: req.userId,
          mode: req.mode,
          prompt: req.prompt,
          targetModel: req.targetModel,
          engine: req.engine,
          model: req.model,
          instanceId: req.instanceId,
          createdAt: now,
        })
        return { id, quota: taken.quota }
      })
    },

    /** Notes that text reached the client: from now on a crash no longer refunds the call. */
    markTextSent(id: string, now = new Date()): void {
      markText.run({ id, at: now })
    },

    finish(id: string, outcome: Finish, now = new Date()): void {
      finishRow.run({ id, ...outcome, finishedAt: now })
    },

    list(userId: string, limit: number, offset: number): { items: HistoryItem[]; total: number } {
      const rows = db
        .select()
        .from(history)
        .where(eq(history.userId, userId))
        // rowid breaks ties within a millisecond in insertion order (cuid2 ids are not ordered)
        .orderBy(desc(history.createdAt), desc(sql`${history}.rowid`))
        .limit(limit)
        .offset(offset)
        .all()
      const total = db.select({ total: count() }).from(history).where(eq(history.userId, userId)).get()?.total ?? 0
      return {
        total,
        items: rows.map((row) => ({
          id: row.id,
          mode: row.mode,
          prompt: row.prompt,
          optimized_prompt: row.optimizedPrompt,
          engine: row.engine,
          model: row.model,
          status: row.status,
          created_at: row.createdAt.toISOString(),
        })),
      }
    },
  }
}

export type OptimizerHistory = ReturnType<typeof createOptimizerHistory>

/**
 * Ends the `running` rows of server processes that died (and of any owner no longer registered):
 * `aborted`, and the quota unit refunded on the day it was taken when no text had gone out. Run
 * at start and with every heartbeat; the open-stream cap stops counting them at once.
 */
export function sweepDeadInstances(db: Db, self: ServerInstance, now = new Date()): number {
  removeDeadInstances(db, self, now)
  return writeTransaction(db, (tx) => {
    const live = tx.select({ id: serverInstances.id }).from(serverInstances)
    const ended = tx
      .update(history)
      .set({ status: 'aborted', errorCode: 'server_died', finishedAt: now })
      .where(and(eq(history.status, 'running'), isNotNull(history.instanceId), notInArray(history.instanceId, live)))
      .returning({ userId: history.userId, createdAt: history.createdAt, firstTextAt: history.firstTextAt })
      .all()
    for (const row of ended) {
      if (row.firstTextAt === null) refundDaily(tx, userSubject(row.userId), 'optimizations', utcDay(row.createdAt))
    }
    return ended.length
  })
}

/** Marks `running` rows older than any stream can live as `aborted`; at start and hourly (the last resort). */
export function sweepStaleOptimizations(db: Db, now = new Date()): number {
  const cutoff = new Date(now.getTime() - STALE_RUNNING_MS)
  return db
    .update(history)
    .set({ status: 'aborted', finishedAt: now })
    .where(and(eq(history.status, 'running'), lt(history.createdAt, cutoff)))
    .returning({ id: history.id })
    .all().length
}
