// The daily quota and the open-stream cap are exact under concurrency, in one instance and across
// instances sharing the database: opening a stream takes the quota unit, counts the user's open
// streams and writes the running row in one transaction, and a refusal rolls all of it back.
import { afterAll, describe, expect, test } from 'bun:test'
import { json, problem, register } from './support/app'
import { FakeLlm } from './support/fake-llm'
import { type ServerProcess, cli, startServer } from './support/process'
import { historyRows, makeOptimizerApp, optimize, optimizerServerEnv, setTier, storageOf } from './support/optimizer'
import { SseReader } from './support/sse-client'

const fake = new FakeLlm()
// The prompt says what the fake upstream does: answer at once, or hold the stream open.
fake.script = (request) =>
  String(request.body?.messages?.at(-1)?.content).includes('hold') ? { tokens: ['held '], hold: true } : { tokens: ['done'] }
afterAll(() => fake.stop())

const QUICK = { prompt: 'answer quickly', mode: 'enhance' }
const HELD = { prompt: 'hold the stream open', mode: 'enhance' }
const CALLS = 15

/** Statuses of the responses, the accepted ones read to their first event (start). */
async function settle(responses: Response[], readers: SseReader[]): Promise<number[]> {
  for (const res of responses) {
    if (res.status === 200) {
      const reader = new SseReader(res)
      expect((await reader.next())!.event).toBe('start')
      readers.push(reader)
    }
  }
  return responses.map((r) => r.status)
}

describe('one instance', async () => {
  const t = await makeOptimizerApp({ upstreamUrl: fake.url })
  const usedToday = async (token: string) => (await json(await t.request('/api/user/me', { token }))).usage.optimizations_today as number

  test(`free user, ${CALLS} concurrent calls: exactly 3 streams, the others 429 daily_limit_reached`, async () => {
    const { token, user } = await register(t)
    const responses = await Promise.all(Array.from({ length: CALLS }, () => optimize(t, token, QUICK)))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3)
    for (const refused of responses.filter((r) => r.status !== 200)) await problem(refused, 429, 'daily_limit_reached')
    for (const res of responses.filter((r) => r.status === 200)) expect((await new SseReader(res).all()).at(-1)!.event).toBe('done')
    expect(await usedToday(token)).toBe(3)
    expect(await historyRows(t.storage, user.id)).toHaveLength(3)
  })

  test(`starter user, ${CALLS} concurrent calls on held streams: exactly 3 open, the others 429 rate_limited at no cost`, async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'starter')
    const readers: SseReader[] = []
    const responses = await Promise.all(Array.from({ length: CALLS }, () => optimize(t, token, HELD)))
    const statuses = await settle(responses, readers)
    try {
      expect(statuses.filter((s) => s === 200)).toHaveLength(3)
      for (const refused of responses.filter((r) => r.status !== 200)) await problem(refused, 429, 'rate_limited')
      // the refused calls cost nothing: only the three open streams are counted and recorded
      expect(await usedToday(token)).toBe(3)
      expect((await historyRows(t.storage, user.id)).map((r) => r.status)).toEqual(['running', 'running', 'running'])
    } finally {
      for (const reader of readers) await reader.cancel()
    }
  })
})

describe('two instances on one database', () => {
  let servers: ServerProcess[] = []
  afterAll(async () => {
    for (const server of servers) server.kill()
    await Promise.all(servers.map((s) => s.exited))
  })

  async function registerOn(url: string, email: string): Promise<string> {
    const res = await fetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'a sufficiently long passphrase', name: 'Concurrent' }),
    })
    expect(res.status).toBe(201)
    return ((await res.json()) as { access_token: string }).access_token
  }

  const call = (url: string, token: string, body: object) =>
    fetch(`${url}/api/optimizer/optimize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  test(`${CALLS} concurrent calls spread over both: a free user gets 3 streams; a starter user on held streams 3, at no cost for the rest`, async () => {
    const env = await optimizerServerEnv({ JWT_SECRET: 'concurrency-secret-concurrency-secret', OPTIMIZER_BASE_URL: fake.url })
    servers = [await startServer(env), await startServer(env)]
    const [a, b] = servers.map((s) => s.url) as [string, string]
    const storage = await storageOf(env)
    const over = (token: string, body: object) => Promise.all(Array.from({ length: CALLS }, (_, i) => call(i % 2 ? a : b, token, body)))

    const free = await registerOn(a, 'concurrent-free@example.com')
    const freeCalls = await over(free, QUICK)
    expect(freeCalls.filter((r) => r.status === 200)).toHaveLength(3)
    for (const refused of freeCalls.filter((r) => r.status !== 200)) await problem(refused, 429, 'daily_limit_reached')
    for (const res of freeCalls.filter((r) => r.status === 200)) expect((await new SseReader(res).all()).at(-1)!.event).toBe('done')

    const starter = await registerOn(b, 'concurrent-starter@example.com')
    expect(cli(['user', 'set-tier', 'concurrent-starter@example.com', 'starter'], env).code).toBe(0)
    const readers: SseReader[] = []
    const starterCalls = await over(starter, HELD)
    const statuses = await settle(starterCalls, readers)
    try {
      expect(statuses.filter((s) => s === 200)).toHaveLength(3)
      for (const refused of starterCalls.filter((r) => r.status !== 200)) await problem(refused, 429, 'rate_limited')
      const me = await json(await fetch(`${a}/api/user/me`, { headers: { authorization: `Bearer ${starter}` } }))
      expect(me.usage.optimizations_today).toBe(3)
      expect((await historyRows(storage)).filter((r) => r.status === 'running')).toHaveLength(3)
    } finally {
      for (const reader of readers) await reader.cancel()
    }
  })
})
