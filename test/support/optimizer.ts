// Helpers for the optimizer tests: calling /api/optimizer/optimize and reading its stream.
import type { Config } from '../../src/config'
import { makeTestApp, type TestApp } from './app'
import { type ReceivedEvent, SseReader } from './sse-client'

export const OPTIMIZE = '/api/optimizer/optimize'
export const HISTORY = '/api/optimizer/history'

export interface OptimizeBody {
  prompt?: unknown
  mode?: unknown
  target_model?: unknown
  [extra: string]: unknown
}

export { setTier } from './app'

/** An app whose optimizer talks to a fake upstream (or the built-in engine without `upstreamUrl`). */
export async function makeOptimizerApp(options: { upstreamUrl?: string; env?: Record<string, string>; stream?: Partial<Config['optimizerStream']> } = {}) {
  const env: Record<string, string> = { ...options.env }
  if (options.upstreamUrl) {
    env.OPTIMIZER_BASE_URL = options.upstreamUrl
    env.OPTIMIZER_API_KEY ??= 'sk-test-secret-key-0123456789'
    env.OPTIMIZER_MODEL ??= 'fake-model-1'
  }
  return await makeTestApp(env, { optimizerStream: { pingIntervalMs: 15_000, maxOpenStreamsPerUser: 3, maxStreamMs: 600_000, ...options.stream } })
}

export function optimize(t: TestApp, token: string | undefined, body: OptimizeBody | string, headers: Record<string, string> = {}) {
  return t.request(OPTIMIZE, {
    method: 'POST',
    token,
    ...(typeof body === 'string' ? { body, headers: { 'content-type': 'application/json', ...headers } } : { json: body, headers }),
  })
}

/** Calls optimize, expects 200 and reads the whole stream. */
export async function optimizeAll(t: TestApp, token: string, body: OptimizeBody): Promise<{ res: Response; events: ReceivedEvent[]; reader: SseReader }> {
  const res = await optimize(t, token, body)
  if (res.status !== 200) throw new Error(`optimize: expected 200, got ${res.status} ${await res.text()}`)
  const reader = new SseReader(res)
  return { res, events: await reader.all(), reader }
}

/** Polls until `check` holds (for state written after a stream ends). */
export async function eventually(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(5)
  }
}
