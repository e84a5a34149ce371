// Helpers for the optimizer tests: calling /api/optimizer/optimize and reading its stream.
import { type Config, loadConfig } from '../../src/config'
import { openStorage } from '../../src/db'
import type { Storage } from '../../src/db/storage'
import { makeTestApp, processEnv, type TestApp } from './app'
import { sqlRows } from './sql'
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
export async function makeOptimizerApp(
  options: { upstreamUrl?: string; env?: Record<string, string>; stream?: Partial<Config['optimizerStream']> } = {},
) {
  const env: Record<string, string> = { ...options.env }
  if (options.upstreamUrl) {
    env.OPTIMIZER_BASE_URL = options.upstreamUrl
    env.OPTIMIZER_API_KEY ??= 'sk-test-secret-key-0123456789'
    env.OPTIMIZER_MODEL ??= 'fake-model-1'
  }
  return await makeTestApp(env, { optimizerStream: { pingIntervalMs: 15_000, maxOpenStreamsPerUser: 3, maxStreamMs: 600_000, ...options.stream } })
}

/**
 * The environment of a server process for the optimizer's tests: its own database (a SQLite
 * file in DATA_DIR, or on the PostgreSQL pass a database of its own); no demo catalogue.
 */
export function optimizerServerEnv(extra: Record<string, string> = {}) {
  return processEnv({ AUTH_RATE_LIMIT: '0', DEMO_CATALOGUE: 'false', ...extra })
}

/** The storage of a server process's environment, opened beside it to look at its rows (as test apps, left open). */
export async function storageOf(env: Record<string, string>): Promise<Storage> {
  return (await openStorage(loadConfig(env), { poolSize: 2 })).storage
}

export interface HistoryRow {
  id: string
  user_id: string
  status: string
  error_code: string | null
  first_text: boolean
  created_at: number
  finished_at: number | null
}

/** optimization_history rows in insertion order (both engines; times in epoch ms). */
export async function historyRows(storage: Storage, userId?: string): Promise<HistoryRow[]> {
  const order = storage.engine === 'sqlite' ? 'created_at, rowid' : 'created_at, seq'
  const rows = await sqlRows<Record<string, unknown>>(
    storage,
    `SELECT id, user_id, status, error_code, first_text_at IS NOT NULL AS first_text, created_at, finished_at FROM optimization_history
     ${userId === undefined ? '' : 'WHERE user_id = $1'} ORDER BY ${order}`,
    userId === undefined ? [] : [userId],
  )
  const ms = (value: unknown) => (value === null ? null : value instanceof Date ? value.getTime() : Number(value))
  return rows.map((row) => ({
    id: String(row.id),
    user_id: String(row.user_id),
    status: String(row.status),
    error_code: (row.error_code as string | null) ?? null,
    first_text: Boolean(row.first_text),
    created_at: ms(row.created_at)!,
    finished_at: ms(row.finished_at),
  }))
}

export function optimize(t: TestApp, token: string | undefined, body: OptimizeBody | string, headers: Record<string, string> = {}) {
  return t.request(OPTIMIZE, {
    method: 'POST',
    token,
    ...(typeof body === 'string' ? { body, headers: { 'content-type': 'application/json', ...headers } } : { json: body, headers }),
  })
}

/** Calls optimize, expects 200 and reads the whole stream. */
export async function optimizeAll(
  t: TestApp,
  token: string,
  body: OptimizeBody,
): Promise<{ res: Response; events: ReceivedEvent[]; reader: SseReader }> {
  const res = await optimize(t, token, body)
  if (res.status !== 200) throw new Error(`optimize: expected 200, got ${res.status} ${await res.text()}`)
  const reader = new SseReader(res)
  return { res, events: await reader.all(), reader }
}

/** Polls until `check` holds (for state written after a stream ends). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(5)
  }
}
