// The optimizer through HTTP with the built-in engine: modes, the event stream of a
// successful call, the daily quota by tier, and the OpenAPI description (contract section 7).
import { describe, expect, test } from 'bun:test'
import { optimizePrompt } from '../src/features/optimizer/engines/builtin'
import { MODE_IDS } from '../src/features/optimizer/modes'
import { json, problem, register } from './support/app'
import { HISTORY, makeOptimizerApp, optimize, optimizeAll, setTier } from './support/optimizer'
import { deltaText, SseReader, sequence } from './support/sse-client'

const t = await makeOptimizerApp()
const PROMPT = 'write a blog post about rust for beginners, at most 800 words'

describe('GET /api/optimizer/modes', () => {
  test('the five modes of SPEC with labels and descriptions, without authentication', async () => {
    const res = await t.request('/api/optimizer/modes')
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(Object.keys(body)).toEqual(['items'])
    expect(body.items.map((m: { id: string; label: string }) => [m.id, m.label])).toEqual([
      ['enhance', 'Enhance & Clarify'],
      ['structured', 'Structured Format'],
      ['chain-of-thought', 'Chain of Thought'],
      ['few-shot', 'Few-Shot Examples'],
      ['model-specific', 'Model-Specific'],
    ])
    for (const mode of body.items) {
      expect(Object.keys(mode).sort()).toEqual(['description', 'id', 'label'])
      expect(mode.description.length).toBeGreaterThan(20)
    }
  })
})

describe('POST /api/optimizer/optimize: the stream', () => {
  test('200 text/event-stream: start, delta…, done, exactly as the contract lists them', async () => {
    const { token } = await register(t)
    const { res, events, reader } = await optimizeAll(t, token, { prompt: PROMPT, mode: 'structured' })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('x-accel-buffering')).toBe('no')
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(sequence(events)).toEqual(['start', 'delta*', 'done'])
    const start = events[0]!.data
    expect(start).toEqual({ id: expect.any(String), mode: 'structured', engine: 'builtin', model: null })
    expect(Object.keys(start)).toEqual(['id', 'mode', 'engine', 'model'])
    for (const delta of events.filter((e) => e.event === 'delta')) {
      expect(Object.keys(delta.data)).toEqual(['text'])
      expect(delta.data.text.length).toBeGreaterThan(0)
    }
    const done = events.at(-1)!.data
    expect(Object.keys(done)).toEqual(['id', 'optimized_prompt', 'usage', 'remaining_today'])
    expect(done.id).toBe(start.id)
    expect(done.optimized_prompt).toBe(deltaText(events))
    expect(done.optimized_prompt).toBe(optimizePrompt({ prompt: PROMPT, mode: 'structured' }))
    expect(done.usage).toEqual({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) })
    expect(Number.isInteger(done.usage.input_tokens) && done.usage.input_tokens > 0).toBe(true)
    expect(done.usage.output_tokens).toBeGreaterThan(done.usage.input_tokens)
    expect(reader.comments).toEqual([])
  })

  test('every mode streams its rewrite; model-specific follows target_model', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    for (const mode of MODE_IDS) {
      const { events } = await optimizeAll(t, token, { prompt: PROMPT, mode })
      expect(events.at(-1)!.data.optimized_prompt).toBe(optimizePrompt({ prompt: PROMPT, mode }))
    }
    const claude = await optimizeAll(t, token, { prompt: PROMPT, mode: 'model-specific', target_model: 'claude-3-5-sonnet' })
    expect(claude.events.at(-1)!.data.optimized_prompt).toMatch(/<\w+>/)
    const llama = await optimizeAll(t, token, { prompt: PROMPT, mode: 'model-specific', target_model: 'llama-3-70b' })
    expect(llama.events.at(-1)!.data.optimized_prompt).toContain('<|start_header_id|>')
  })

  test('a 20,000-character prompt streams in many deltas; the first arrives promptly', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    const prompt = 'Our checkout must stay fast and we never store card numbers. '.repeat(400).slice(0, 20_000)
    await optimizeAll(t, token, { prompt, mode: 'enhance' }) // JIT warm-up of this path
    const started = performance.now()
    const reader = new SseReader(await optimize(t, token, { prompt, mode: 'enhance' }))
    expect((await reader.next())!.event).toBe('start')
    expect((await reader.next())!.event).toBe('delta')
    // a generous sanity bound; scripts/bench-optimizer.ts measures the real figure
    expect(performance.now() - started).toBeLessThan(250)
    const events = await reader.all()
    expect(events.filter((e) => e.event === 'delta').length).toBeGreaterThan(100)
    expect(events.at(-1)!.event).toBe('done')
  })
})

describe('the daily quota by tier', () => {
  test('free: 3 calls a day, remaining_today 2, 1, 0, then 429 daily_limit_reached with Retry-After', async () => {
    const { token } = await register(t)
    const remaining: number[] = []
    for (let i = 0; i < 3; i++) {
      const { res, events } = await optimizeAll(t, token, { prompt: PROMPT, mode: 'enhance' })
      expect(res.headers.get('ratelimit-limit')).toBe('3')
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i))
      remaining.push(events.at(-1)!.data.remaining_today)
    }
    expect(remaining).toEqual([2, 1, 0])
    const refused = await optimize(t, token, { prompt: PROMPT, mode: 'enhance' })
    const body = await problem(refused, 429, 'daily_limit_reached')
    expect(body).toMatchObject({ limit: 3, used: 3, resets_at: expect.stringMatching(/T00:00:00\.000Z$/) })
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(86_400)
    const me = await json(await t.request('/api/user/me', { token }))
    expect(me.usage.optimizations_today).toBe(3)
  })

  test('starter: 10 calls a day', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'starter')
    const first = await optimizeAll(t, token, { prompt: PROMPT, mode: 'few-shot' })
    expect(first.events.at(-1)!.data.remaining_today).toBe(9)
    for (let i = 1; i < 10; i++) await optimizeAll(t, token, { prompt: PROMPT, mode: 'few-shot' })
    await problem(await optimize(t, token, { prompt: PROMPT, mode: 'few-shot' }), 429, 'daily_limit_reached')
  })

  test('pro and lifetime: unlimited, remaining_today null, no RateLimit headers', async () => {
    for (const tier of ['pro', 'lifetime'] as const) {
      const { token, user } = await register(t)
      await setTier(t, user.id, tier)
      for (let i = 0; i < 12; i++) {
        const { res, events } = await optimizeAll(t, token, { prompt: PROMPT, mode: 'chain-of-thought' })
        expect(events.at(-1)!.data.remaining_today).toBeNull()
        expect(res.headers.get('ratelimit-limit')).toBeNull()
      }
    }
  })

  test('the tier is read fresh: an upgrade lifts the limit at once', async () => {
    const { token, user } = await register(t)
    for (let i = 0; i < 3; i++) await optimizeAll(t, token, { prompt: PROMPT, mode: 'enhance' })
    await problem(await optimize(t, token, { prompt: PROMPT, mode: 'enhance' }), 429, 'daily_limit_reached')
    await setTier(t, user.id, 'starter')
    const { events } = await optimizeAll(t, token, { prompt: PROMPT, mode: 'enhance' })
    expect(events.at(-1)!.data.remaining_today).toBe(6)
  })
})

describe('OpenAPI', () => {
  test('the three routes under the optimizer tag; optimize declares text/event-stream and its body', async () => {
    const doc = await json(await t.request('/api/openapi.json'))
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('optimizer')
    expect(doc.paths['/api/optimizer/modes'].get.tags).toEqual(['optimizer'])
    expect(doc.paths[HISTORY].get.security).toEqual([{ bearer: [] }])
    const op = doc.paths['/api/optimizer/optimize'].post
    expect(op.tags).toEqual(['optimizer'])
    expect(op.security).toEqual([{ bearer: [] }])
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream'])
    expect(op.responses['429'].content['application/problem+json']).toBeDefined()
    expect(op.description).toContain('event: ')
    expect(op.description).toContain('remaining_today')
    const schema = op.requestBody.content['application/json'].schema
    expect(schema.required.sort()).toEqual(['mode', 'prompt'])
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.mode.enum).toEqual([...MODE_IDS])
  })
})
