// The optimizer: authorises a call (daily quota, open-stream cap and history row, atomically),
// then runs the engine and yields the contract's events, and records how the run ended. Also the
// sweeps that end the runs a dead server process or a lost row left `running`.
import type { Tx } from '../../db/storage'
import type { AuthUser } from '../../http/auth'
import { rateLimited, unauthorized } from '../../http/problem'
import type { Logger } from '../../log'
import { TIER_LIMITS } from '../../tiers'
import { type DailyQuota, dailyLimitReached, type UsageService, userSubject, utcDay } from '../usage'
import { EngineError, type EngineRun, type OptimizeRequest, type OptimizerEngine } from './engines/types'
import { createId } from '../../lib/ids'
import { isDead, type ServerInstance } from './instances'
import type { HistoryItem, OptimizerErrorEvent, OptimizerEvent } from './model'
import type { OptimizerStore, RunOutcome } from './store'

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

export interface OptimizerDeps {
  store: OptimizerStore
  /** one write transaction spanning the optimizer's store and usage (storage.transaction) */
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>
  usage: Pick<UsageService, 'consume' | 'refund' | 'takeAgain' | 'used'>
  log: Logger
  engine: OptimizerEngine
  maxOpenStreamsPerUser: number
  /** aborted when the server shuts down: every open stream ends */
  shutdown: AbortSignal
  /** the longest a stream may run (default MAX_STREAM_MS); tests shorten it */
  maxStreamMs?: number
  /** this server process's registration (instances.ts), recorded on each running row */
  instanceId?: string | null
}

export interface StartOptions {
  /** aborted when the client goes away: the engine stops at once and the run is `aborted` */
  signal: AbortSignal
  /** for the log lines of this call */
  requestId: string
}

/** An authorised call: its history id, the quota after it, and its events (start, delta…, done | error). */
export interface Optimization {
  id: string
  quota: DailyQuota
  events: AsyncGenerator<OptimizerEvent>
}

type Finish = Pick<RunOutcome, 'status' | 'optimizedPrompt' | 'errorCode'>

interface Ending {
  finish: Finish
  /** the error event for the client, when it is still there to read one */
  event?: OptimizerErrorEvent
  refund: boolean
}

const NOT_COUNTED = ' This call was not counted against your daily limit.'

type StopReason = 'client' | 'shutdown' | 'deadline'

export function createOptimizerService(deps: OptimizerDeps) {
  const { store, transaction, usage, log, engine } = deps
  // Never above MAX_STREAM_MS: the stale-row bound of the cap relies on it.
  const maxStreamMs = Math.min(deps.maxStreamMs ?? MAX_STREAM_MS, MAX_STREAM_MS)
  const instanceId = deps.instanceId ?? null

  /** Why the run stopped, what the client is told, whether its quota unit comes back. */
  function ending(error: unknown, text: string, stoppedBy: StopReason | null, requestId: string, id: string): Ending {
    const before = text === ''
    if (stoppedBy === 'client') return { finish: { status: 'aborted', optimizedPrompt: null, errorCode: null }, refund: false }
    if (stoppedBy === 'shutdown') {
      const detail = `The server is restarting; try again in a moment.${before ? NOT_COUNTED : ''}`
      return {
        finish: { status: 'aborted', optimizedPrompt: null, errorCode: 'shutting_down' },
        event: { code: 'shutting_down', detail },
        refund: before,
      }
    }
    let code: Exclude<OptimizerErrorEvent['code'], 'shutting_down'>
    let detail: string
    if (stoppedBy === 'deadline') {
      code = 'upstream_timeout'
      detail = `The optimization ran longer than the limit of ${Math.round(maxStreamMs / 1000)} s and was stopped.`
    } else if (error instanceof EngineError && error.code !== 'aborted') {
      code = error.code
      detail = error.code === 'upstream_timeout' ? 'The optimization engine stopped responding.' : 'The optimization engine failed.'
      log.warn('optimizer engine failed', {
        request_id: requestId,
        history_id: id,
        engine: engine.name,
        code,
        reason: error.message,
        text_emitted: !before,
      })
    } else {
      code = 'internal_error'
      detail = 'Something went wrong on our side; the request id identifies it in the logs.'
      log.error('optimizer stream failed', { request_id: requestId, history_id: id, error })
    }
    detail += before ? NOT_COUNTED : ' The text received so far is incomplete.'
    return { finish: { status: 'failed', optimizedPrompt: null, errorCode: code }, event: { code, detail }, refund: before }
  }

  async function* run(
    id: string,
    quota: DailyQuota,
    user: AuthUser,
    request: OptimizeRequest,
    options: StartOptions,
  ): AsyncGenerator<OptimizerEvent> {
    const { requestId } = options
    // One signal for the engine, fed by the three reasons to stop. Wired by hand and unwired at
    // the end: AbortSignal.any() would leave every stream attached to the long-lived shutdown
    // signal (Bun keeps them all), and AbortSignal.timeout() a timer alive for maxStreamMs.
    const stop = new AbortController()
    let stoppedBy: StopReason | null = null
    const stopFor = (reason: StopReason) => () => {
      stoppedBy ??= reason
      stop.abort()
    }
    const onClientGone = stopFor('client')
    const onShutdown = stopFor('shutdown')
    const deadline = setTimeout(stopFor('deadline'), maxStreamMs)
    options.signal.addEventListener('abort', onClientGone, { once: true })
    deps.shutdown.addEventListener('abort', onShutdown, { once: true })
    if (options.signal.aborted) onClientGone()
    if (deps.shutdown.aborted) onShutdown()
    let text = ''
    let started: EngineRun | null = null
    let end: Ending | null = null
    try {
      yield { event: 'start', data: { id, mode: request.mode, engine: engine.name, model: engine.model } }
      try {
        started = engine.start(request, stop.signal)
        for await (const delta of started.deltas) {
          if (text === '' && delta !== '') setImmediate(() => void noteTextSent(id, requestId))
          text += delta
          yield { event: 'delta', data: { text: delta } }
        }
        end = { finish: { status: 'completed', optimizedPrompt: text, errorCode: null }, refund: false }
      } catch (error) {
        end = ending(error, text, stoppedBy, requestId, id)
      }
    } finally {
      clearTimeout(deadline)
      options.signal.removeEventListener('abort', onClientGone)
      deps.shutdown.removeEventListener('abort', onShutdown)
      // The reader stopped reading (return() at a yield): the same as a client that went away.
      if (end === null) {
        stoppedBy ??= 'client'
        stop.abort()
        end = ending(null, text, stoppedBy, requestId, id)
      }
      await record(id, end, started, user.id, quota.day, requestId)
    }
    if (end.event) yield { event: 'error', data: end.event }
    else if (end.finish.status === 'completed') {
      const usageOf = engineUsage(started)
      yield {
        event: 'done',
        data: {
          id,
          optimized_prompt: text,
          usage: usageOf ?? { input_tokens: 0, output_tokens: 0 },
          remaining_today: await remainingToday(user.id, quota.limit),
        },
      }
    }
  }

  function engineUsage(started: EngineRun | null) {
    try {
      return started?.usage() ?? null
    } catch {
      return null
    }
  }

  /** The row's end, and the refund with it in one transaction (never twice: not when a sweep ended it first). */
  async function record(id: string, end: Ending, started: EngineRun | null, userId: string, day: string, requestId: string): Promise<void> {
    const usageOf = engineUsage(started)
    const outcome: RunOutcome = {
      ...end.finish,
      inputTokens: usageOf?.input_tokens ?? null,
      outputTokens: usageOf?.output_tokens ?? null,
      finishedAt: new Date(),
    }
    try {
      await transaction(async (tx) => {
        const over = await store.finish(id, outcome, tx)
        if (end.refund && over === 'running') await usage.refund(userSubject(userId), 'optimizations', day, tx)
        // This process was taken for dead (stalled past the heartbeat timeout), its run ended and
        // refunded by another instance, and then it went on and delivered: the unit is taken again.
        if (!end.refund && over === 'refunded') await usage.takeAgain(userSubject(userId), 'optimizations', day, tx)
      })
    } catch (error) {
      // The database may be closing under a shutdown; the client still gets its last event.
      log.error('optimizer history update failed', { request_id: requestId, history_id: id, error })
    }
  }

  /** Recorded after the first delta is on its way (setImmediate), so it never delays that delta. */
  async function noteTextSent(id: string, requestId: string): Promise<void> {
    try {
      await store.markTextSent(id, new Date())
    } catch (error) {
      log.error('optimizer history update failed', { request_id: requestId, history_id: id, error })
    }
  }

  async function remainingToday(userId: string, limit: number | null): Promise<number | null> {
    if (limit === null) return null
    try {
      return Math.max(0, limit - (await usage.used(userSubject(userId), 'optimizations')))
    } catch {
      return null
    }
  }

  return {
    /**
     * Takes the daily unit, checks the open-stream cap and records the call as running, in one
     * transaction: a refusal (429 daily_limit_reached or rate_limited, thrown before any event)
     * rolls all of it back, so a call refused for the cap costs no quota. Then the events, to be
     * read to their end (they end promptly once `options.signal` aborts).
     */
    async start(user: AuthUser, request: OptimizeRequest, options: StartOptions): Promise<Optimization> {
      const now = new Date()
      const id = createId()
      const quota = await transaction(async (tx) => {
        const limit = TIER_LIMITS[user.tier].optimizations_per_day
        const taken = await usage.consume({ subject: userSubject(user.id), metric: 'optimizations', limit, now }, tx)
        if (!taken.allowed) throw dailyLimitReached(taken.quota, 'optimizations', now)
        const run = {
          id,
          userId: user.id,
          mode: request.mode,
          prompt: request.prompt,
          targetModel: request.targetModel ?? null,
          engine: engine.name,
          model: engine.model,
          instanceId,
          createdAt: now,
        }
        const capped = await store.insertRunningWithinCap(run, deps.maxOpenStreamsPerUser, new Date(now.getTime() - STALE_RUNNING_MS), tx)
        // The account was deleted after this request was authenticated: as its token now is, refused.
        if (!capped.opened && 'gone' in capped) throw unauthorized('invalid_token', 'The account this token belongs to no longer exists.')
        if (!capped.opened) {
          throw rateLimited(
            CAP_RETRY_AFTER_SECONDS,
            `You already have ${capped.open} optimizations streaming; at most ${deps.maxOpenStreamsPerUser} may run at once. Wait for one to finish.`,
          )
        }
        return taken.quota
      })
      return { id, quota, events: run(id, quota, user, request, options) }
    },

    async history(userId: string, limit: number, offset: number): Promise<{ items: HistoryItem[]; total: number }> {
      const { rows, total } = await store.page(userId, limit, offset)
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

    /**
     * Removes the registrations of dead server processes, then ends the `running` rows of any
     * owner no longer registered: `aborted`, and the quota unit refunded on the day it was taken
     * when no text had gone out, in one transaction. The open-stream cap stops counting them at
     * once. Returns how many rows it ended.
     */
    async sweepDeadInstances(self: ServerInstance, now = new Date()): Promise<number> {
      const dead = (await store.instances()).filter((other) => other.id !== self.id && isDead(other, self))
      if (dead.length > 0) await store.removeInstances(dead)
      return transaction(async (tx) => {
        const ended = await store.endRunsOfUnregistered(now, tx)
        for (const run of ended) {
          if (!run.textSent) await usage.refund(userSubject(run.userId), 'optimizations', utcDay(run.createdAt), tx)
        }
        return ended.length
      })
    },

    /** Marks `running` rows older than any stream can live as `aborted` (the last resort). */
    sweepStaleRuns: (now = new Date()) => store.endRunsCreatedBefore(new Date(now.getTime() - STALE_RUNNING_MS), now),
  }
}

export type OptimizerService = ReturnType<typeof createOptimizerService>
