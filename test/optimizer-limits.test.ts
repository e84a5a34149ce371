// The daily quota under concurrency, refunds, and the per-user cap on open streams (kept in
// the database, so it holds across instances; stale rows of a crashed process do not count).
import { afterAll, describe, expect, test } from 'bun:test'
import { createId } from '@paralleldrive/cuid2'
import { STALE_RUNNING_MS } from '../src/features/optimizer/service'
import { json, problem, register } from './support/app'
import { FakeLlm } from './support/fake-llm'
import { eventually, historyRows, makeOptimizerApp, optimize, optimizeAll, setTier } from './support/optimizer'
import { sqlRun } from './support/sql'
import { SseReader } from './support/sse-client'

const fake = new FakeLlm()
afterAll(() => fake.stop())
const t = await makeOptimizerApp({ upstreamUrl: fake.url })
const builtin = await makeOptimizerApp()
const GOOD = { prompt: 'turn this into a checklist', mode: 'enhance' }

const usedToday = async (token: string) => (await json(await t.request('/api/user/me', { token }))).usage.optimizations_today as number
const rowsOf = (app: typeof t, userId: string) => historyRows(app.storage, userId)

/** The most rows that were running at one moment (an end and a start at the same ms do not overlap). */
function maxOverlap(rows: { created_at: number; finished_at: number | null }[]): number {
  const points = rows.flatMap((r) => [
    [r.created_at, 1],
    [r.finished_at!, -1],
  ])
  points.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!)
  let open = 0
  let max = 0
  for (const [, step] of points) max = Math.max(max, (open += step!))
  return max
}

describe('daily quota under concurrency', () => {
  test('free user, 10 concurrent calls: exactly 3 streams, 7 × 429 daily_limit_reached', async () => {
    const { token } = await register(builtin)
    const responses = await Promise.all(Array.from({ length: 10 }, () => optimize(builtin, token, GOOD)))
    const ok = responses.filter((r) => r.status === 200)
    expect(ok).toHaveLength(3)
    for (const refused of responses.filter((r) => r.status !== 200)) await problem(refused, 429, 'daily_limit_reached')
    for (const res of ok) expect((await new SseReader(res).all()).at(-1)!.event).toBe('done')
    expect((await json(await builtin.request('/api/user/me', { token }))).usage.optimizations_today).toBe(3)
  })

  test('starter user, 25 concurrent calls against a slow upstream: 10 counted, never more than 3 open', async () => {
    fake.script = { tokens: ['a ', 'b'], tokenDelayMs: 20 }
    const { token, user } = await register(t)
    await setTier(t, user.id, 'starter')
    let streamed = 0
    const results = await Promise.all(
      Array.from({ length: 25 }, async (_, i) => {
        await Bun.sleep(i * 5)
        const res = await optimize(t, token, GOOD)
        if (res.status === 200) {
          streamed++
          await new SseReader(res).all()
        } else await res.text()
        return res.status
      }),
    )
    expect(results.every((s) => s === 200 || s === 429)).toBe(true)
    expect(streamed).toBeGreaterThanOrEqual(3)
    expect(streamed).toBeLessThanOrEqual(10)
    expect(await usedToday(token)).toBe(streamed)
    const rows = await rowsOf(t, user.id)
    expect(rows).toHaveLength(streamed)
    expect(rows.every((r) => r.status === 'completed')).toBe(true)
    expect(maxOverlap(rows)).toBeLessThanOrEqual(3)
  })
})

describe('refund when the engine fails before any text', () => {
  test('three upstream failures cost nothing: the free user still has 3 calls', async () => {
    const { token } = await register(t)
    fake.script = { status: 503 }
    for (let i = 0; i < 3; i++) {
      const { events } = await optimizeAll(t, token, GOOD)
      expect(events.at(-1)!.data.code).toBe('upstream_error')
    }
    expect(await usedToday(token)).toBe(0)
    fake.script = {}
    for (let i = 0; i < 3; i++) expect((await optimizeAll(t, token, GOOD)).events.at(-1)!.event).toBe('done')
    await problem(await optimize(t, token, GOOD), 429, 'daily_limit_reached')
  })

  test('a failure after text has streamed is not refunded', async () => {
    const { token } = await register(t)
    fake.script = { tokens: ['one ', 'two ', 'three'], failAfter: 2, failHow: 'drop', tokenDelayMs: 5 }
    const { events } = await optimizeAll(t, token, GOOD)
    expect(events.map((e) => e.event)).toEqual(['start', 'delta', 'delta', 'error'])
    expect(await usedToday(token)).toBe(1)
  })
})

describe('the open-stream cap (3 per user)', () => {
  test('a 4th concurrent stream → 429 rate_limited with Retry-After, costing no quota; a slot frees when one ends', async () => {
    fake.script = { tokens: ['held '], hold: true }
    const { token, user } = await register(t)
    await setTier(t, user.id, 'starter')
    const open = await Promise.all([1, 2, 3].map(() => optimize(t, token, GOOD)))
    expect(open.map((r) => r.status)).toEqual([200, 200, 200])
    const readers = open.map((r) => new SseReader(r))
    for (const reader of readers) expect((await reader.next())!.event).toBe('start')
    const refused = await optimize(t, token, GOOD)
    const body = await problem(refused, 429, 'rate_limited')
    expect(body.detail).toContain('3')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await usedToday(token)).toBe(3)
    // another user is not affected
    const other = await register(t)
    const otherRes = await optimize(t, other.token, GOOD)
    expect(otherRes.status).toBe(200)
    await new SseReader(otherRes).cancel()
    // one client goes away: its row leaves `running`, and a new stream is allowed
    await readers[0]!.cancel()
    await eventually(async () => (await rowsOf(t, user.id)).filter((r) => r.status === 'running').length === 2)
    const again = await optimize(t, token, GOOD)
    expect(again.status).toBe(200)
    for (const reader of [readers[1]!, readers[2]!, new SseReader(again)]) await reader.cancel()
  })

  test('running rows left by a crashed process stop counting after the bound, and are swept to aborted', async () => {
    const { token, user } = await register(builtin)
    await setTier(builtin, user.id, 'pro')
    // three fresh running rows (another instance's live streams) block a fourth
    for (let i = 0; i < 3; i++) {
      await sqlRun(
        builtin.storage,
        "INSERT INTO optimization_history (id, user_id, mode, prompt, engine, status, created_at) VALUES ($1, $2, 'enhance', 'left behind', 'builtin', 'running', $3)",
        [createId(), user.id, new Date(Date.now() - 1000)],
      )
    }
    await problem(await optimize(builtin, token, GOOD), 429, 'rate_limited')
    // the same three, but older than any stream can live: they no longer count
    await sqlRun(builtin.storage, 'UPDATE optimization_history SET created_at = $1 WHERE user_id = $2', [
      new Date(Date.now() - STALE_RUNNING_MS - 1000),
      user.id,
    ])
    expect((await optimizeAll(builtin, token, GOOD)).events.at(-1)!.event).toBe('done')
    expect(await builtin.services.optimizer.sweepStaleRuns()).toBe(3)
    const page = await json(await builtin.request('/api/optimizer/history', { token }))
    expect(page.items.map((i: { status: string }) => i.status).sort()).toEqual(['aborted', 'aborted', 'aborted', 'completed'])
    expect((await rowsOf(builtin, user.id)).map((r) => r.status)).not.toContain('running')
  })
})
