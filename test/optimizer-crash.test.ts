// A server process that dies mid-stream (SIGKILL: no shutdown code runs) leaves `running` rows.
// A restart ends them at once: `aborted`, the quota unit back when no text had gone out, the
// open-stream cap free again. Another live process's streams are left alone.
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { spawn } from 'node:child_process'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { runMigrations } from '../src/db/sqlite/migrate'
import { sweepDeadInstances } from '../src/features/optimizer/history'
import { currentProcess, HEARTBEAT_TIMEOUT_MS, isDead, processStartTime, registerInstance } from '../src/features/optimizer/instances'
import { serverInstances } from '../src/features/optimizer/schema'
import { tempDir } from './support/app'
import { FakeLlm } from './support/fake-llm'
import { type ServerProcess, startServer } from './support/process'
import { SseReader } from './support/sse-client'

const fake = new FakeLlm()
// The prompt says what the fake upstream does: stall before any text, or send some and hold.
fake.script = (request) => (String(request.body?.messages?.at(-1)?.content).includes('stall') ? { headerDelayMs: 120_000 } : { tokens: ['partial '], hold: true })
afterAll(() => fake.stop())

const PASSWORD = 'a sufficiently long passphrase'

function serverEnv(dataDir: string) {
  return { DATA_DIR: dataDir, AUTH_RATE_LIMIT: '0', JWT_SECRET: 'crash-secret-crash-secret-crash-secret', OPTIMIZER_BASE_URL: fake.url }
}

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

/** Opens a stream and reads up to its first event (`start`), or its first delta when `withText`. */
async function openStream(url: string, token: string, withText: boolean): Promise<SseReader> {
  const res = await post(url, '/api/optimizer/optimize', { prompt: withText ? 'send some text' : 'stall before any text', mode: 'enhance' }, token)
  expect(res.status).toBe(200)
  const reader = new SseReader(res)
  expect((await reader.next())!.event).toBe('start')
  if (withText) expect((await reader.next())!.event).toBe('delta')
  return reader
}

function rowsIn(dataDir: string): { prompt: string; status: string; first_text: number }[] {
  const db = new Database(join(dataDir, 'promptlib.db'), { readonly: true })
  try {
    return db.query('SELECT prompt, status, first_text_at IS NOT NULL AS first_text FROM optimization_history ORDER BY created_at, rowid').all() as never
  } finally {
    db.close()
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
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
    const dataDir = tempDir()
    let server = await startServer(serverEnv(dataDir))
    const free = await registerUser(server.url, 'crash-free@example.com')
    // A free user's whole day: one stream that sent text, two still waiting for the upstream.
    await openStream(server.url, free, true)
    await openStream(server.url, free, false)
    await openStream(server.url, free, false)
    // The first delta's mark is written just after the delta is sent.
    await until(() => rowsIn(dataDir).some((row) => row.first_text === 1), 'first_text_at recorded')
    expect((await post(server.url, '/api/optimizer/optimize', { prompt: 'x', mode: 'enhance' }, free)).status).toBe(429)

    await crash(server)
    expect(rowsIn(dataDir).map((row) => row.status)).toEqual(['running', 'running', 'running'])
    server = await startServer(serverEnv(dataDir))
    try {
      expect(rowsIn(dataDir).map((row) => [row.prompt, row.status])).toEqual([
        ['send some text', 'aborted'],
        ['stall before any text', 'aborted'],
        ['stall before any text', 'aborted'],
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
    const dataDir = tempDir()
    const env = serverEnv(dataDir)
    let a = await startServer(env)
    const b = await startServer(env)
    try {
      const pro = await registerUser(a.url, 'crash-two@example.com')
      await openStream(a.url, pro, false)
      const onB = await openStream(b.url, pro, true)
      await crash(a)
      a = await startServer(env)
      const rows = rowsIn(dataDir)
      expect(rows.map((row) => [row.prompt, row.status])).toEqual([
        ['stall before any text', 'aborted'],
        ['send some text', 'running'],
      ])
      // B's stream is still alive and ends normally when its client leaves.
      await onB.cancel()
      await until(() => rowsIn(dataDir)[1]?.status === 'aborted', 'B recorded its own stream as aborted')
    } finally {
      a.kill()
      b.kill()
      await Promise.all([a.exited, b.exited])
    }
  })
})

describe('which registered processes are dead', () => {
  const self = currentProcess()
  const now = new Date()
  const row = (over: Partial<typeof serverInstances.$inferSelect>) => ({
    id: 'other',
    hostname: self.hostname,
    pid: process.pid,
    processStart: null,
    startedAt: now,
    heartbeatAt: now,
    ...over,
  })

  test('same host: dead when the pid is gone, reused by another process, or ours; alive otherwise', async () => {
    const child = spawn('sleep', ['30'])
    const childPid = child.pid!
    const childStart = processStartTime(childPid)
    expect(isDead(row({ pid: childPid, processStart: childStart }), self, now)).toBe(false)
    expect(isDead(row({ pid: childPid, processStart: null }), self, now)).toBe(false)
    // the same pid, but another process than the one that registered (pid reuse)
    if (childStart !== null) expect(isDead(row({ pid: childPid, processStart: `${Number(childStart) - 1}` }), self, now)).toBe(true)
    // a previous life of this very pid (pid 1 in a restarted container)
    expect(isDead(row({ pid: process.pid }), self, now)).toBe(true)
    child.kill('SIGKILL')
    await new Promise((resolve) => child.once('exit', resolve))
    expect(isDead(row({ pid: childPid, processStart: childStart }), self, now)).toBe(true)
  })

  test('another host: dead only when its heartbeat is older than the timeout', () => {
    const elsewhere = { hostname: `${hostname()}-elsewhere`, pid: 999_999_999 }
    expect(isDead(row({ ...elsewhere, heartbeatAt: new Date(now.getTime() - HEARTBEAT_TIMEOUT_MS + 1000) }), self, now)).toBe(false)
    expect(isDead(row({ ...elsewhere, heartbeatAt: new Date(now.getTime() - HEARTBEAT_TIMEOUT_MS - 1000) }), self, now)).toBe(true)
  })

  test('the sweep removes dead registrations and keeps live ones, its own included', () => {
    const db = openDatabase(join(tempDir(), 'instances.db'))
    runMigrations(db)
    registerInstance(db, self, now)
    const old = new Date(now.getTime() - 2 * HEARTBEAT_TIMEOUT_MS)
    db.insert(serverInstances).values([row({ id: 'stale-elsewhere', hostname: 'elsewhere', heartbeatAt: old }), row({ id: 'fresh-elsewhere', hostname: 'elsewhere', pid: 1 })]).run()
    expect(sweepDeadInstances(db, self, now)).toBe(0)
    expect(db.select({ id: serverInstances.id }).from(serverInstances).all().map((r) => r.id).sort()).toEqual(['fresh-elsewhere', self.id].sort())
    db.$client.close()
  })
})
