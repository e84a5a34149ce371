// The optimizer through HTTP with the OpenAI-compatible engine and a fake upstream: every event
// sequence, pings, what reaches the client and the log, and the history of each outcome.
import { afterAll, describe, expect, test } from 'bun:test'
import { json, problem, register } from './support/app'
import { FAKE_USAGE, FakeLlm, type FakeLlmScript, SECRET_IN_ERROR_BODY } from './support/fake-llm'
import { freePort } from './support/process'
import { HISTORY, makeOptimizerApp, optimize, optimizeAll, setTier } from './support/optimizer'
import { sqlNumber } from './support/sql'
import { deltaText, SseReader, sequence } from './support/sse-client'

const fake = new FakeLlm()
afterAll(() => fake.stop())
const API_KEY = 'sk-test-secret-key-0123456789'
const t = await makeOptimizerApp({
  upstreamUrl: fake.url,
  env: { OPTIMIZER_API_KEY: API_KEY, OPTIMIZER_CONNECT_TIMEOUT_MS: '200', OPTIMIZER_IDLE_TIMEOUT_MS: '200' },
})
const GOOD = { prompt: 'make this prompt better', mode: 'structured' }

async function proUser(app = t) {
  const registered = await register(app)
  await setTier(app, registered.user.id, 'pro')
  return registered.token
}

async function run(script: FakeLlmScript, token: string) {
  fake.script = script
  const { res, events, reader } = await optimizeAll(t, token, GOOD)
  const history = await json(await t.request(`${HISTORY}?limit=1`, { token }))
  return { res, events, reader, history }
}

describe('success through the upstream', () => {
  test('start names the engine and model; each upstream piece is one delta; usage from the upstream', async () => {
    const token = await proUser()
    const tokens = ['## Role\n', 'You are ', 'an editor ✍️', '.']
    const { events, history } = await run({ tokens, tokenDelayMs: 5 }, token)
    expect(sequence(events)).toEqual(['start', 'delta*', 'done'])
    expect(events[0]!.data).toEqual({ id: expect.any(String), mode: 'structured', engine: 'openai-compatible', model: 'fake-model-1' })
    expect(events.filter((e) => e.event === 'delta').map((e) => e.data.text)).toEqual(tokens)
    expect(events.at(-1)!.data).toEqual({
      id: events[0]!.data.id,
      optimized_prompt: tokens.join(''),
      usage: { input_tokens: FAKE_USAGE.prompt_tokens, output_tokens: FAKE_USAGE.completion_tokens },
      remaining_today: null,
    })
    expect(history.items[0]).toMatchObject({ id: events[0]!.data.id, status: 'completed', engine: 'openai-compatible', model: 'fake-model-1' })
    expect(fake.requests.at(-1)!.body.messages[1].content).toBe(GOOD.prompt)
  })
})

describe('failures: start, then error (code, detail), then the stream ends', () => {
  const cases: [string, FakeLlmScript, string, number][] = [
    ['HTTP 500', { status: 500 }, 'upstream_error', 0],
    ['connection dropped before the headers', { dropBeforeHeaders: true }, 'upstream_error', 0],
    ['no headers within the connect timeout', { headerDelayMs: 1000 }, 'upstream_timeout', 0],
    ['silence before the first token', { tokenDelayMs: 1000 }, 'upstream_timeout', 0],
    ['malformed stream before the first token', { failAfter: 0, failHow: 'garbage' }, 'upstream_error', 0],
    ['connection dropped mid-stream', { failAfter: 2, failHow: 'drop', tokenDelayMs: 5 }, 'upstream_error', 2],
    ['error payload mid-stream', { failAfter: 2, failHow: 'error-event', tokenDelayMs: 5 }, 'upstream_error', 2],
    ['silence mid-stream', { failAfter: 2, failHow: 'hang', tokenDelayMs: 5 }, 'upstream_timeout', 2],
    ['stream ends without [DONE]', { failAfter: 2, failHow: 'truncate', tokenDelayMs: 5 }, 'upstream_error', 2],
  ]
  test.each(cases)('%s → %s', async (_name, script, code, deltas) => {
    const token = await proUser()
    const { events, history, reader } = await run({ tokens: ['one ', 'two ', 'three'], ...script }, token)
    expect(sequence(events)).toEqual(deltas > 0 ? ['start', 'delta*', 'error'] : ['start', 'error'])
    expect(events.filter((e) => e.event === 'delta')).toHaveLength(deltas)
    const error = events.at(-1)!.data
    expect(Object.keys(error)).toEqual(['code', 'detail'])
    expect(error.code).toBe(code)
    expect(error.detail).toContain(deltas === 0 ? 'not counted' : 'incomplete')
    expect(history.items[0]).toMatchObject({ status: 'failed', optimized_prompt: null })
    for (const secret of [SECRET_IN_ERROR_BODY, API_KEY]) expect(reader.raw).not.toContain(secret)
  })

  test('a stream that outlives the maximum duration is stopped: upstream_timeout, failed', async () => {
    const short = await makeOptimizerApp({ upstreamUrl: fake.url, stream: { maxStreamMs: 150 } })
    const token = await proUser(short)
    fake.script = { tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), tokenDelayMs: 20 }
    const { events } = await optimizeAll(short, token, GOOD)
    expect(sequence(events)).toEqual(['start', 'delta*', 'error'])
    expect(events.at(-1)!.data.code).toBe('upstream_timeout')
    expect(events.at(-1)!.data.detail).toContain('incomplete')
    expect(await fake.clientGone(fake.requests.at(-1)!)).not.toBeNull()
    const page = await json(await short.request(HISTORY, { token }))
    expect(page.items[0]).toMatchObject({ status: 'failed', optimized_prompt: null })
  })

  test('nothing listening upstream → upstream_error', async () => {
    const down = await makeOptimizerApp({ upstreamUrl: `http://127.0.0.1:${freePort()}/v1` })
    const { events } = await optimizeAll(down, await proUser(down), GOOD)
    expect(sequence(events)).toEqual(['start', 'error'])
    expect(events.at(-1)!.data.code).toBe('upstream_error')
  })

  test('the log names the failure but holds neither the key, nor the upstream body, nor the prompt', async () => {
    const token = await proUser()
    const prompt = 'a private prompt the log must not keep'
    fake.script = { status: 500 }
    await optimizeAll(t, token, { prompt, mode: 'enhance' })
    const warn = t.log.lines().find((l) => l.msg === 'optimizer engine failed')
    expect(warn).toMatchObject({ level: 'warn', code: 'upstream_error', engine: 'openai-compatible', text_emitted: false })
    const text = t.log.text()
    for (const secret of [API_KEY, SECRET_IN_ERROR_BODY, prompt]) expect(text).not.toContain(secret)
  })
})

describe(': ping comments', () => {
  test('sent while the engine is silent, as comment lines the events are not disturbed by', async () => {
    const pinging = await makeOptimizerApp({ upstreamUrl: fake.url, stream: { pingIntervalMs: 40 } })
    fake.script = { tokens: ['slow ', 'answer'], tokenDelayMs: 150 }
    const res = await optimize(pinging, await proUser(pinging), GOOD)
    const reader = new SseReader(res)
    const events = await reader.all()
    expect(sequence(events)).toEqual(['start', 'delta*', 'done'])
    expect(reader.comments.length).toBeGreaterThanOrEqual(4)
    expect(reader.comments.every((c) => c.text === 'ping')).toBe(true)
    expect(reader.raw).toContain('\n\n: ping\n\n')
    // pings come in the silences: none between the last delta and done
    const lastDelta = events.filter((e) => e.event === 'delta').at(-1)!
    expect(reader.comments.filter((c) => c.at > lastDelta.at)).toEqual([])
  })

  test('none when the engine answers quickly', async () => {
    const pinging = await makeOptimizerApp({ stream: { pingIntervalMs: 1000 } })
    const { reader } = await optimizeAll(pinging, await proUser(pinging), GOOD)
    expect(reader.comments).toEqual([])
    expect(deltaText(reader.events).length).toBeGreaterThan(0)
  })
})

describe('GET /api/optimizer/history', () => {
  test('paginated {items, total, limit, offset}, newest first, only the caller’s entries', async () => {
    const app = await makeOptimizerApp()
    const token = await proUser(app)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await optimizeAll(app, token, { prompt: `prompt number ${i}`, mode: 'enhance' })).events[0]!.data.id)
    await optimizeAll(app, await proUser(app), GOOD) // someone else's
    const page = await json(await app.request(`${HISTORY}?limit=2&offset=1`, { token }))
    expect(Object.keys(page).sort()).toEqual(['items', 'limit', 'offset', 'total'])
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 })
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([ids[3], ids[2]])
    const item = page.items[0]
    expect(Object.keys(item).sort()).toEqual(['created_at', 'engine', 'id', 'mode', 'model', 'optimized_prompt', 'prompt', 'status'])
    expect(item).toMatchObject({ mode: 'enhance', prompt: 'prompt number 3', engine: 'builtin', model: null, status: 'completed' })
    expect(item.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const all = await json(await app.request(HISTORY, { token }))
    expect(all).toMatchObject({ total: 5, limit: 20, offset: 0 })
    expect(all.items.map((i: { id: string }) => i.id)).toEqual([...ids].reverse())
    expect((await json(await app.request(`${HISTORY}?offset=50`, { token }))).items).toEqual([])
  })

  test('a stream still open is listed as running', async () => {
    const token = await proUser()
    fake.script = { tokens: ['held'], hold: true }
    const res = await optimize(t, token, GOOD)
    const reader = new SseReader(res)
    await reader.next()
    const page = await json(await t.request(HISTORY, { token }))
    expect(page.items[0]).toMatchObject({ status: 'running', optimized_prompt: null })
    await reader.cancel()
  })

  test('401 without a token; 422 for out-of-range or malformed paging', async () => {
    await problem(await t.request(HISTORY), 401, 'missing_token')
    const token = await proUser()
    for (const query of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'offset=-1', 'offset=x', 'limit=1.5']) {
      await problem(await t.request(`${HISTORY}?${query}`, { token }), 422, 'validation_failed')
    }
  })

  test('deleting the account deletes its history', async () => {
    const app = await makeOptimizerApp()
    const { token, user } = await register(app)
    await optimizeAll(app, token, GOOD)
    const count = () => sqlNumber(app.storage, 'SELECT count(*) FROM optimization_history WHERE user_id = $1', [user.id])
    expect(await count()).toBe(1)
    expect((await app.request('/api/user/me', { method: 'DELETE', token })).status).toBe(204)
    expect(await count()).toBe(0)
  })
})
