// A server process that dies mid-stream (SIGKILL: no shutdown code runs) leaves `running` rows.
// A restart ends them at once: `aborted`, the quota unit back when no text had gone out, the
// open-stream cap free again. Another live process's streams are left alone.
import { afterAll, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { hostname } from 'node:os'
import type { Storage } from '../src/db/storage'
import { currentProcess, HEARTBEAT_TIMEOUT_MS, isDead, processStartTime, type Registration } from '../src/features/optimizer/instances'
import { pgOptimizerStore } from '../src/features/optimizer/store.pg'
import { sqliteOptimizerStore } from '../src/features/optimizer/store.sqlite'
import { json, register, type TestApp } from './support/app'
import { FakeLlm, type FakeLlmScript } from './support/fake-llm'
import { type ServerProcess, startServer } from './support/process'
import { historyRows, makeOptimizerApp, optimize, optimizerServerEnv, setTier, storageOf } from './support/optimizer'
import { sqlRows, sqlRun } from './support/sql'
import { SseReader } from './support/sse-client'

const fake = new FakeLlm()
// The prompt says what the fake upstream does: stall before any text, or send some and hold.
fake.script = (request) =>
  String(request.body?.messages?.at(-1)?.content).includes('stall') ? { headerDelayMs: 120_000 } : { tokens: ['partial '], hold: true }
afterAll(() => fake.stop())

const PASSWORD = 'a sufficiently long passphrase'

/** One database for every server process of a test (a restart, or a second instance). */
const serverEnv = () => optimizerServerEnv({ JWT_SECRET: 'crash-secret-crash-secret-crash-secret', OPTIMIZER_BASE_URL: fake.url })

async function post(url: string, path: string, body: unknown, token?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  return fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
}

async function registerUser(url: string, email: string): Promise<string> {
  const res = await post(url, '/api/auth/register', { email, password: PASSWORD, name: 'Crash' })
  expect(res.status).toBe(201)
  return ((await res.json()) as { access_token: string }).access_token
}

async function get(url: string, path: string, token: string) {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })
  expect(res.status).toBe(200)
  // biome-ignore lint: response bodies are inspected loosely
  return (await res.json()) as any
}

/** Opens a stream and reads up to its first event (`start`), or its first delta when `withText`; returns the history id too. */
async function openStream(url: string, token: string, withText: boolean): Promise<{ reader: SseReader; id: string }> {
  const res = await post(url, '/api/optimizer/optimize', { prompt: withText ? 'send some text' : 'stall before any text', mode: 'enhance' }, token)
  expect(res.status).toBe(200)
  const reader = new SseReader(res)
  const start = (await reader.next())!
  expect(start.event).toBe('start')
  if (withText) expect((await reader.next())!.event).toBe('delta')
  return { reader, id: start.data.id }
}

/** [id, status] of every row, in the order they were written. */
const statuses = async (storage: Storage) => (await historyRows(storage)).map((row) => [row.id, row.status])

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await Bun.sleep(10)
  }
}

async function crash(server: ServerProcess): Promise<void> {
  server.kill('SIGKILL')
  await server.exited
}

describe('a server process killed mid-stream', () => {
  test('on restart its rows are aborted, units without text refunded, and the user streams again at once', async () => {
    const env = await serverEnv()
    const storage = await storageOf(env)
    let server = await startServer(env)
    const free = await registerUser(server.url, 'crash-free@example.com')
    // A free user's whole day: one stream that sent text, two still waiting for the upstream.
    const withText = await openStream(server.url, free, true)
    const stalled = [await openStream(server.url, free, false), await openStream(server.url, free, false)]
    // The first delta's mark is written just after the delta is sent.
    await until(async () => (await historyRows(storage)).some((row) => row.first_text), 'first_text_at recorded')
    expect((await post(server.url, '/api/optimizer/optimize', { prompt: 'x', mode: 'enhance' }, free)).status).toBe(429)

    await crash(server)
    expect((await historyRows(storage)).map((row) => row.status)).toEqual(['running', 'running', 'running'])
    server = await startServer(env)
    try {
      expect(await statuses(storage)).toEqual([
        [withText.id, 'aborted'],
        [stalled[0]!.id, 'aborted'],
        [stalled[1]!.id, 'aborted'],
      ])
      // Two of the three units are back: the calls that had sent no text.
      expect((await get(server.url, '/api/user/me', free)).usage.optimizations_today).toBe(1)
      const history = await get(server.url, '/api/optimizer/history', free)
      expect(history.items.map((item: { status: string }) => item.status)).toEqual(['aborted', 'aborted', 'aborted'])
      // Neither the cap (3 open streams) nor the quota stands in the way now.
      const again = await post(server.url, '/api/optimizer/optimize', { prompt: 'send some text', mode: 'enhance' }, free)
      expect(again.status).toBe(200)
      await again.body?.cancel()
    } finally {
      server.kill()
      await server.exited
    }
  })

  test("a restarting process leaves another live process's running streams alone", async () => {
    const env = await serverEnv()
    const storage = await storageOf(env)
    let a = await startServer(env)
    const b = await startServer(env)
    try {
      const pro = await registerUser(a.url, 'crash-two@example.com')
      const onA = await openStream(a.url, pro, false)
      const onB = await openStream(b.url, pro, true)
      await crash(a)
      a = await startServer(env)
      expect(await statuses(storage)).toEqual([
        [onA.id, 'aborted'],
        [onB.id, 'running'],
      ])
      // B's stream is still alive and ends normally when its client leaves.
      await onB.reader.cancel()
      await until(async () => (await historyRows(storage))[1]?.status === 'aborted', 'B recorded its own stream as aborted')
    } finally {
      a.kill()
      b.kill()
      await Promise.all([a.exited, b.exited])
    }
  })
})

describe('which registered processes are dead', () => {
  const self = currentProcess()
  const other = (over: Partial<Registration>): Registration => ({
    hostname: self.hostname,
    pid: process.pid,
    processStart: null,
    heartbeatAgeMs: 0,
    ...over,
  })

  test('same host: dead when the pid is gone, reused by another process, or ours; alive otherwise', async () => {
    const child = spawn('sleep', ['30'])
    const childPid = child.pid!
    const childStart = processStartTime(childPid)
    expect(isDead(other({ pid: childPid, processStart: childStart }), self)).toBe(false)
    expect(isDead(other({ pid: childPid, processStart: null }), self)).toBe(false)
    // the same pid, but another process than the one that registered (pid reuse)
    if (childStart !== null) expect(isDead(other({ pid: childPid, processStart: `${Number(childStart) - 1}` }), self)).toBe(true)
    // a previous life of this very pid (pid 1 in a restarted container)
    expect(isDead(other({ pid: process.pid }), self)).toBe(true)
    child.kill('SIGKILL')
    await new Promise((resolve) => child.once('exit', resolve))
    expect(isDead(other({ pid: childPid, processStart: childStart }), self)).toBe(true)
  })

  test('another host: dead only when its heartbeat is older than the timeout', () => {
    const elsewhere = { hostname: `${hostname()}-elsewhere`, pid: 999_999_999 }
    expect(isDead(other({ ...elsewhere, heartbeatAgeMs: HEARTBEAT_TIMEOUT_MS - 1000 }), self)).toBe(false)
    expect(isDead(other({ ...elsewhere, heartbeatAgeMs: HEARTBEAT_TIMEOUT_MS + 1000 }), self)).toBe(true)
  })
})

describe('the sweep of dead processes (on the database, both engines)', () => {
  const self = currentProcess()
  const registration = (storage: Storage, id: string, host: string, pid: number, heartbeatAt: Date) =>
    sqlRun(storage, 'INSERT INTO server_instances (id, hostname, pid, process_start, started_at, heartbeat_at) VALUES ($1, $2, $3, NULL, $4, $4)', [
      id,
      host,
      pid,
      heartbeatAt,
    ])
  const running = (storage: Storage, userId: string, instanceId: string, textSent: boolean) =>
    sqlRun(
      storage,
      "INSERT INTO optimization_history (id, user_id, mode, prompt, engine, status, created_at, instance_id, first_text_at) VALUES ($1, $2, 'enhance', 'p', 'builtin', 'running', $3, $4, $5)",
      [crypto.randomUUID(), userId, new Date(), instanceId, textSent ? new Date() : null],
    )

  test('removes dead registrations and keeps live ones (its own included); ends their rows, refunding those without text', async () => {
    const t = await makeOptimizerApp()
    const { token, user } = await register(t)
    await setTier(t, user.id, 'starter')
    const now = Date.now()
    await registration(t.storage, self.id, self.hostname, self.pid, new Date(now))
    await registration(t.storage, 'stale-elsewhere', 'elsewhere', 1, new Date(now - 2 * HEARTBEAT_TIMEOUT_MS))
    await registration(t.storage, 'fresh-elsewhere', 'elsewhere', 1, new Date(now))
    // Two calls the stale instance was streaming (one had sent text), one of the fresh instance's.
    for (let i = 0; i < 2; i++) await (await optimize(t, token, { prompt: 'x', mode: 'enhance' })).text()
    await sqlRun(t.storage, 'DELETE FROM optimization_history')
    await running(t.storage, user.id, 'stale-elsewhere', false)
    await running(t.storage, user.id, 'stale-elsewhere', true)
    await running(t.storage, user.id, 'fresh-elsewhere', true)
    expect((await json(await t.request('/api/user/me', { token }))).usage.optimizations_today).toBe(2)

    expect(await t.services.optimizer.sweepDeadInstances(self)).toBe(2)
    const ids = await sqlRows<{ id: string }>(t.storage, 'SELECT id FROM server_instances ORDER BY id')
    expect(ids.map((r) => r.id)).toEqual(['fresh-elsewhere', self.id].sort())
    const rows = await sqlRows<{ instance_id: string; status: string; error_code: string | null }>(
      t.storage,
      'SELECT instance_id, status, error_code FROM optimization_history ORDER BY instance_id, status',
    )
    expect(rows.map((r) => [r.instance_id, r.status, r.error_code])).toEqual([
      ['fresh-elsewhere', 'running', null],
      ['stale-elsewhere', 'aborted', 'server_died'],
      ['stale-elsewhere', 'aborted', 'server_died'],
    ])
    // One unit back: the ended call that had sent no text.
    expect((await json(await t.request('/api/user/me', { token }))).usage.optimizations_today).toBe(1)
    // A second sweep finds nothing more, and refunds nothing twice.
    expect(await t.services.optimizer.sweepDeadInstances(self)).toBe(0)
    expect((await json(await t.request('/api/user/me', { token }))).usage.optimizations_today).toBe(1)
  })

  /**
   * A starter who ran one optimization, then a second whose upstream answers as `script` says
   * after 300 ms; before that, a sweep takes its row for a dead process's (a stalled heartbeat)
   * and gives its unit back. Then `check` reads what the stream does next.
   */
  async function outlivedSweep(script: FakeLlmScript, check: (t: TestApp, reader: SseReader, token: string, userId: string) => Promise<void>) {
    const slow = new FakeLlm()
    try {
      const t = await makeOptimizerApp({ upstreamUrl: slow.url })
      const { token, user } = await register(t)
      await setTier(t, user.id, 'starter')
      await (await optimize(t, token, { prompt: 'x', mode: 'enhance' })).text()
      slow.script = { headerDelayMs: 300, ...script }
      const reader = new SseReader(await optimize(t, token, { prompt: 'x', mode: 'enhance' }))
      expect((await reader.next())!.event).toBe('start')
      await sqlRun(t.storage, "UPDATE optimization_history SET instance_id = 'ghost' WHERE status = 'running'")
      expect(await t.services.optimizer.sweepDeadInstances(self)).toBe(1)
      expect((await json(await t.request('/api/user/me', { token }))).usage.optimizations_today).toBe(1)
      await check(t, reader, token, user.id)
    } finally {
      slow.stop()
    }
  }

  test('a stream that outlives a sweep of its row (a stalled heartbeat) is not refunded twice when it then fails', async () => {
    // The upstream fails before any text.
    await outlivedSweep({ status: 500 }, async (t, reader, token, userId) => {
      const rest = await reader.all()
      expect(rest.at(-1)!.data.code).toBe('upstream_error')
      // the stream's own end is recorded, but its unit came back once only
      expect((await historyRows(t.storage, userId)).map((r) => [r.status, r.error_code])).toEqual([
        ['completed', null],
        ['failed', 'upstream_error'],
      ])
      expect((await json(await t.request('/api/user/me', { token }))).usage.optimizations_today).toBe(1)
    })
  })

  // A process stalled past the heartbeat timeout (a paused VM) is taken for dead, its run ended
  // and refunded; when it went on and delivered, the run was recorded completed and never counted.
  test('a stream that outlives a sweep of its row and then delivers is counted again', async () => {
    await outlivedSweep({ tokens: ['delivered ', 'after all'] }, async (t, reader, token, userId) => {
      expect((await reader.all()).at(-1)!.event).toBe('done')
      expect((await historyRows(t.storage, userId)).map((r) => r.status)).toEqual(['completed', 'completed'])
      expect((await json(await t.request('/api/user/me', { token }))).usage.optimizations_today).toBe(2)
    })
  })

  test('a registration that beat after the sweep read it is not removed; a removed one registers again with its next beat', async () => {
    const t = await makeOptimizerApp()
    const store = t.storage.engine === 'sqlite' ? sqliteOptimizerStore(t.storage) : pgOptimizerStore(t.storage)
    const elsewhere = { id: 'elsewhere-1', hostname: 'elsewhere', pid: 1, processStart: null }
    await store.beat(elsewhere, new Date(Date.now() - 2 * HEARTBEAT_TIMEOUT_MS))
    const seen = await store.instances()
    expect(seen.map((r) => [r.id, r.heartbeatAgeMs > HEARTBEAT_TIMEOUT_MS])).toEqual([['elsewhere-1', true]])
    await store.beat(elsewhere)
    await store.removeInstances(seen)
    const after = await store.instances()
    expect(after.map((r) => [r.id, r.heartbeatAgeMs < HEARTBEAT_TIMEOUT_MS])).toEqual([['elsewhere-1', true]])
    await store.removeInstances(after)
    expect(await store.instances()).toEqual([])
    await store.beat(elsewhere)
    expect((await store.instances()).map((r) => r.id)).toEqual(['elsewhere-1'])
  })
})
