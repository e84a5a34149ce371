// The optimizer: authorises a call (quota, open-stream cap, history row), then streams the
// engine's output to the client as the contract's events and records how the run ended.
import type { Db } from '../../db/sqlite/client'
import type { AuthUser } from '../../http/auth'
import { requestInfo } from '../../http/request-context'
import type { Logger } from '../../log'
import { TIER_LIMITS } from '../../tiers'
import { dailyUsed, type DailyQuota, rateLimitHeaders, refundDaily, userSubject } from '../usage/daily'
import { EngineError, type EngineUsage, type OptimizeRequest, type OptimizerEngine } from './engines/types'
import { EVENT_STREAM_HEADERS, EventChannel } from './event-stream'
import { createOptimizerHistory, type Finish, MAX_STREAM_MS } from './history'

export interface OptimizerDeps {
  db: Db
  log: Logger
  engine: OptimizerEngine
  pingIntervalMs: number
  maxOpenStreamsPerUser: number
  /** aborted when the server shuts down: every open stream ends */
  shutdown: AbortSignal
  /** the longest a stream may run (default MAX_STREAM_MS); tests shorten it */
  maxStreamMs?: number
  /** this server process's registration (instances.ts), recorded on each running row */
  instanceId?: string
}

interface Ending {
  finish: Omit<Finish, 'inputTokens' | 'outputTokens'>
  /** the error event for the client, when it is still there to read one */
  event?: { code: string; detail: string }
  refund: boolean
}

const NOT_COUNTED = ' This call was not counted against your daily limit.'

type StopReason = 'client' | 'shutdown' | 'deadline'

export function createOptimizer(deps: OptimizerDeps) {
  const { db, log, engine } = deps
  const history = createOptimizerHistory(db)
  // Never above MAX_STREAM_MS: the stale-row bound of the cap (history.ts) relies on it.
  const maxStreamMs = Math.min(deps.maxStreamMs ?? MAX_STREAM_MS, MAX_STREAM_MS)

  /** Why the run stopped, what the client is told, whether its quota unit comes back. */
  function ending(error: unknown, text: string, stoppedBy: StopReason | null, requestId: string, id: string): Ending {
    const before = text === ''
    if (stoppedBy === 'client') return { finish: { status: 'aborted', optimizedPrompt: null, errorCode: null }, refund: false }
    if (stoppedBy === 'shutdown') {
      const detail = `The server is restarting; try again in a moment.${before ? NOT_COUNTED : ''}`
      return { finish: { status: 'aborted', optimizedPrompt: null, errorCode: 'shutting_down' }, event: { code: 'shutting_down', detail }, refund: before }
    }
    let code: string
    let detail: string
    if (stoppedBy === 'deadline') {
      code = 'upstream_timeout'
      detail = `The optimization ran longer than the limit of ${Math.round(maxStreamMs / 1000)} s and was stopped.`
    } else if (error instanceof EngineError && error.code !== 'aborted') {
      code = error.code
      detail = error.code === 'upstream_timeout' ? 'The optimization engine stopped responding.' : 'The optimization engine failed.'
      log.warn('optimizer engine failed', { request_id: requestId, history_id: id, engine: engine.name, code, reason: error.message, text_emitted: !before })
    } else {
      code = 'internal_error'
      detail = 'Something went wrong on our side; the request id identifies it in the logs.'
      log.error('optimizer stream failed', { request_id: requestId, history_id: id, error })
    }
    detail += before ? NOT_COUNTED : ' The text received so far is incomplete.'
    return { finish: { status: 'failed', optimizedPrompt: null, errorCode: code }, event: { code, detail }, refund: before }
  }

  async function run(opened: { id: string; quota: DailyQuota }, user: AuthUser, request: OptimizeRequest, channel: EventChannel, requestId: string) {
    const { id, quota } = opened
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
    channel.clientGone.addEventListener('abort', onClientGone, { once: true })
    deps.shutdown.addEventListener('abort', onShutdown, { once: true })
    if (channel.clientGone.aborted) onClientGone()
    if (deps.shutdown.aborted) onShutdown()
    channel.send('start', { id, mode: request.mode, engine: engine.name, model: engine.model })
    let text = ''
    let usage: EngineUsage | null = null
    let end: Ending
    const started = engine.start(request, stop.signal)
    try {
      for await (const delta of started.deltas) {
        if (text === '' && delta !== '') setImmediate(() => noteTextSent(id, requestId))
        text += delta
        channel.send('delta', { text: delta })
      }
      end = { finish: { status: 'completed', optimizedPrompt: text, errorCode: null }, refund: false }
    } catch (error) {
      end = ending(error, text, stoppedBy, requestId, id)
    } finally {
      clearTimeout(deadline)
      channel.clientGone.removeEventListener('abort', onClientGone)
      deps.shutdown.removeEventListener('abort', onShutdown)
    }
    try {
      usage = started.usage()
    } catch {}
    try {
      if (end.refund) refundDaily(db, userSubject(user.id), 'optimizations', quota.day)
      history.finish(id, { ...end.finish, inputTokens: usage?.input_tokens ?? null, outputTokens: usage?.output_tokens ?? null })
    } catch (error) {
      // The database may be closing under a shutdown; the client still gets its last event.
      log.error('optimizer history update failed', { request_id: requestId, history_id: id, error })
    }
    if (end.event) channel.send('error', end.event)
    else if (end.finish.status === 'completed') {
      channel.send('done', {
        id,
        optimized_prompt: text,
        usage: usage ?? { input_tokens: 0, output_tokens: 0 },
        remaining_today: remainingToday(user.id, quota.limit),
      })
    }
    channel.end()
  }

  /** Recorded after the first delta is on its way (setImmediate), so it never delays that delta. */
  function noteTextSent(id: string, requestId: string): void {
    try {
      history.markTextSent(id)
    } catch (error) {
      log.error('optimizer history update failed', { request_id: requestId, history_id: id, error })
    }
  }

  function remainingToday(userId: string, limit: number | null): number | null {
    if (limit === null) return null
    try {
      return Math.max(0, limit - dailyUsed(db, userSubject(userId), 'optimizations'))
    } catch {
      return null
    }
  }

  return {
    /**
     * Checks the quota and the open-stream cap (429 problems, before any byte is streamed),
     * records the call as running and returns the event stream.
     */
    start(user: AuthUser, request: OptimizeRequest, httpRequest: Request): Response {
      const opened = history.open({
        userId: user.id,
        dailyLimit: TIER_LIMITS[user.tier].optimizations_per_day,
        maxOpenStreams: deps.maxOpenStreamsPerUser,
        mode: request.mode,
        prompt: request.prompt,
        targetModel: request.targetModel ?? null,
        engine: engine.name,
        model: engine.model,
        instanceId: deps.instanceId ?? null,
      })
      const channel = new EventChannel(deps.pingIntervalMs, httpRequest)
      const requestId = requestInfo(httpRequest).id
      void run(opened, user, request, channel, requestId).catch((error: unknown) => {
        log.error('optimizer stream crashed', { request_id: requestId, history_id: opened.id, error })
        channel.end()
      })
      return new Response(channel.body, { headers: { ...EVENT_STREAM_HEADERS, ...rateLimitHeaders(opened.quota) } })
    },

    history: (userId: string, limit: number, offset: number) => history.list(userId, limit, offset),
  }
}

export type Optimizer = ReturnType<typeof createOptimizer>
