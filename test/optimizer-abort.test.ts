// Streams over real sockets: a client that goes away makes the server abort the upstream
// request within 100 ms and store the entry as aborted; SIGTERM ends open streams; a restart
// sweeps the running rows a crashed process left behind.
import { afterAll, describe, expect, test } from 'bun:test'
import { json, register } from './support/app'
import { FakeLlm, type FakeLlmRequest } from './support/fake-llm'
import { cli, startServer } from './support/process'
import { HISTORY, historyRows, makeOptimizerApp, optimizerServerEnv, storageOf } from './support/optimizer'
import { sqlRows, sqlRun } from './support/sql'
import { SseReader } from './support/sse-client'

const fake = new FakeLlm()
const t = await makeOptimizerApp({ upstreamUrl: fake.url })
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.handle })
const base = `http://127.0.0.1:${server.port}`
afterAll(async () => {
  await server.stop(true)
  fake.stop()
})

const GOOD = { prompt: 'make this prompt better', mode: 'enhance' }

function openStream(url: string, token: string, signal: AbortSignal) {
  return fetch(`${url}/api/optimizer/optimize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(GOOD),
    signal,
  })
}

async function historyOf(token: string) {
  return json(await fetch(`${base}${HISTORY}`, { headers: { authorization: `Bearer ${token}` } }))
}

async function waitForStatus(token: string, status: string) {
  for (let i = 0; i < 200; i++) {
    const page = await historyOf(token)
    if (page.items[0]?.status === status) return page.items[0]
    await Bun.sleep(5)
  }
  throw new Error(`history never reached ${status}`)
}

describe('the client goes away', () => {
  test('mid-stream: the upstream request is closed within 100 ms; history aborted; no refund', async () => {
    const { token } = await register(t)
    fake.script = { tokens: Array.from({ length: 100 }, (_, i) => `token${i} `), tokenDelayMs: 30 }
    const controller = new AbortController()
    const reader = new SseReader(await openStream(base, token, controller.signal))
    expect((await reader.next())!.event).toBe('start')
    expect((await reader.next())!.event).toBe('delta')
    expect((await reader.next())!.event).toBe('delta')
    const upstream: FakeLlmRequest = fake.requests.at(-1)!
    const abortedAt = performance.now()
    controller.abort()
    const goneAt = await fake.clientGone(upstream)
    expect(goneAt).not.toBeNull()
    expect(goneAt! - abortedAt).toBeLessThan(100)
    const entry = await waitForStatus(token, 'aborted')
    expect(entry.optimized_prompt).toBeNull()
    expect((await json(await fetch(`${base}/api/user/me`, { headers: { authorization: `Bearer ${token}` } }))).usage.optimizations_today).toBe(1)
  })

  test('while the server still waits for the upstream’s first byte: closed within 100 ms too', async () => {
    const { token } = await register(t)
    fake.script = { headerDelayMs: 5000 }
    const before = fake.requests.length
    const controller = new AbortController()
    const reader = new SseReader(await openStream(base, token, controller.signal))
    expect((await reader.next())!.event).toBe('start')
    await fake.waitForRequests(before + 1)
    const upstream = fake.requests.at(-1)!
    const abortedAt = performance.now()
    controller.abort()
    const goneAt = await fake.clientGone(upstream)
    expect(goneAt! - abortedAt).toBeLessThan(100)
    await waitForStatus(token, 'aborted')
  })
})

describe('the server process', () => {
  test('SIGTERM ends open streams with error shutting_down, stores them aborted, exits 0', async () => {
    fake.script = { tokens: ['first ', 'second '], tokenDelayMs: 5, hold: true }
    const env = await optimizerServerEnv({ OPTIMIZER_BASE_URL: fake.url, OPTIMIZER_MODEL: 'fake-model-1' })
    const server = await startServer(env)
    const reg = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'sigterm@example.com', password: 'a sufficiently long passphrase', name: 'S' }),
    })
    const { access_token: token } = (await reg.json()) as { access_token: string }
    const readers = await Promise.all([1, 2].map(async () => new SseReader(await openStream(server.url, token, new AbortController().signal))))
    for (const reader of readers) {
      expect((await reader.next())!.event).toBe('start')
      expect((await reader.next())!.event).toBe('delta')
    }
    server.kill('SIGTERM')
    for (const reader of readers) {
      const rest = await reader.all()
      expect(rest.at(-1)!.event).toBe('error')
      expect(rest.at(-1)!.data.code).toBe('shutting_down')
    }
    expect(await server.exited).toBe(0)
    const rows = (await historyRows(await storageOf(env))).map(({ status, error_code }) => ({ status, error_code }))
    expect(rows).toEqual([
      { status: 'aborted', error_code: 'shutting_down' },
      { status: 'aborted', error_code: 'shutting_down' },
    ])
  })

  test('two instances on one database share the daily quota and the open-stream cap', async () => {
    const env = await optimizerServerEnv({ JWT_SECRET: 'shared-secret-shared-secret-shared-secret', OPTIMIZER_BASE_URL: fake.url })
    const a = await startServer(env)
    const b = await startServer(env)
    try {
      const registerOn = async (url: string, email: string) => {
        const res = await fetch(`${url}/api/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: 'a sufficiently long passphrase', name: 'Two' }),
        })
        return ((await res.json()) as { access_token: string }).access_token
      }
      // a free user: 10 calls spread over both instances at once → exactly 3 streams
      fake.script = { tokens: ['ok'] }
      const free = await registerOn(a.url, 'two-free@example.com')
      const calls = await Promise.all(Array.from({ length: 10 }, (_, i) => openStream(i % 2 ? a.url : b.url, free, new AbortController().signal)))
      expect(calls.filter((r) => r.status === 200)).toHaveLength(3)
      expect(calls.filter((r) => r.status === 429)).toHaveLength(7)
      await Promise.all(calls.map((r) => r.text()))
      // a starter user: 2 streams held on one instance and 1 on the other → the 4th is refused on either
      fake.script = { tokens: ['held'], hold: true }
      const starter = await registerOn(b.url, 'two-starter@example.com')
      expect(cli(['user', 'set-tier', 'two-starter@example.com', 'starter'], env).code).toBe(0)
      const held = await Promise.all([a.url, a.url, b.url].map((url) => openStream(url, starter, new AbortController().signal)))
      expect(held.map((r) => r.status)).toEqual([200, 200, 200])
      // Readers hold the streams to the end, as the other held-stream tests do. With their bodies
      // never read, one sometimes ended between the check below and the refusals (1 run in 7–25 on
      // PostgreSQL), freeing its place under the cap: the client's doing, not the server's.
      const readers = held.map((r) => new SseReader(r))
      for (const reader of readers) expect((await reader.next())!.event).toBe('start')
      // The three are running when the fourth asks (a stream that ended early frees its place: its row says why).
      const me = (await (await fetch(`${a.url}/api/user/me`, { headers: { authorization: `Bearer ${starter}` } })).json()) as { id: string }
      const rows = await historyRows(await storageOf(env), me.id)
      expect(rows.map((r) => `${r.status}${r.error_code ? ` ${r.error_code}` : ''}`)).toEqual(['running', 'running', 'running'])
      for (const url of [a.url, b.url]) {
        const refused = await openStream(url, starter, new AbortController().signal)
        expect(refused.status).toBe(429)
        expect(((await refused.json()) as { code: string }).code).toBe('rate_limited')
      }
      for (const reader of readers) await reader.cancel()
    } finally {
      a.kill()
      b.kill()
      await Promise.all([a.exited, b.exited])
    }
  })

  test('at start, running rows older than any stream can live are swept to aborted', async () => {
    const env = await optimizerServerEnv()
    expect(cli(['migrate'], env).code).toBe(0)
    const storage = await storageOf(env)
    const now = new Date()
    await sqlRun(
      storage,
      "INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'crash@example.com', 'C', 'pro', $1, $1)",
      [now],
    )
    const insert = (id: string, createdAt: Date) =>
      sqlRun(
        storage,
        "INSERT INTO optimization_history (id, user_id, mode, prompt, engine, status, created_at) VALUES ($1, 'u1', 'enhance', 'p', 'builtin', 'running', $2)",
        [id, createdAt],
      )
    await insert('stale', new Date(now.getTime() - 60 * 60_000))
    await insert('live', new Date(now.getTime() - 1000)) // another instance's stream: left alone
    const server = await startServer(env)
    server.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    expect(await sqlRows(storage, 'SELECT id, status FROM optimization_history ORDER BY id')).toEqual([
      { id: 'live', status: 'running' },
      { id: 'stale', status: 'aborted' },
    ])
  })
})

describe('the service without HTTP', () => {
  test('yields start, delta…, done as plain values; a reader that stops early leaves the run aborted, counted', async () => {
    const app = await makeOptimizerApp()
    const { user, token } = await register(app)
    const caller = { id: user.id, email: user.email, name: user.name, tier: 'free' as const, createdAt: new Date() }
    const request = { prompt: 'make this prompt better', mode: 'enhance' as const }
    const whole = await app.services.optimizer.start(caller, request, { signal: new AbortController().signal, requestId: 'test' })
    const events = []
    for await (const event of whole.events) events.push(event)
    expect(events[0]).toEqual({ event: 'start', data: { id: whole.id, mode: 'enhance', engine: 'builtin', model: null } })
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { id: whole.id, remaining_today: 2 } })

    const cut = await app.services.optimizer.start(caller, request, { signal: new AbortController().signal, requestId: 'test' })
    for await (const event of cut.events) if (event.event === 'start') break
    const rows = await historyRows(app.storage, user.id)
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [whole.id, 'completed'],
      [cut.id, 'aborted'],
    ])
    expect((await json(await app.request('/api/user/me', { token }))).usage.optimizations_today).toBe(2)
  })
})
