// POST /api/optimizer/optimize: every bad input, hostile strings, and the order of checks
// (401, then 422 which costs no quota, then 429).
import { describe, expect, test } from 'bun:test'
import { json, problem, register } from './support/app'
import { HISTORY, makeOptimizerApp, optimize, optimizeAll } from './support/optimizer'

const t = await makeOptimizerApp()
const GOOD = { prompt: 'summarise this article for a busy manager', mode: 'enhance' }

async function expectInvalid(body: unknown, path: string, token?: string) {
  const user = token ?? (await register(t)).token
  const res = typeof body === 'string' ? await optimize(t, user, body) : await optimize(t, user, body as Record<string, unknown>)
  const problemBody = await problem(res, 422, 'validation_failed')
  expect(problemBody.errors).toContainEqual({ path, message: expect.any(String) })
  return problemBody
}

describe('validation: 422 validation_failed naming the field', () => {
  test('prompt: missing, wrong types, empty, only whitespace', async () => {
    const { token } = await register(t)
    await expectInvalid({ mode: 'enhance' }, '/prompt', token)
    for (const prompt of [42, null, true, ['a'], { text: 'a' }]) await expectInvalid({ prompt, mode: 'enhance' }, '/prompt', token)
    for (const prompt of ['', ' ', '\n\t  \r\n']) await expectInvalid({ prompt, mode: 'enhance' }, '/prompt', token)
  })

  test('prompt length is counted in characters, not bytes or UTF-16 units', async () => {
    const { token } = await register(t)
    await expectInvalid({ prompt: 'x'.repeat(20_001), mode: 'enhance' }, '/prompt', token)
    await expectInvalid({ prompt: '😀'.repeat(20_001), mode: 'enhance' }, '/prompt', token)
    // 20,000 emoji: 40,000 UTF-16 units, 80,000 bytes, yet 20,000 characters: accepted
    const { events } = await optimizeAll(t, token, { prompt: '😀'.repeat(20_000), mode: 'enhance' })
    expect(events.at(-1)!.event).toBe('done')
    const { events: exact } = await optimizeAll(t, token, { prompt: 'é'.repeat(20_000), mode: 'enhance' })
    expect(exact.at(-1)!.event).toBe('done')
  })

  test('prompt with a lone surrogate (invalid Unicode)', async () => {
    await expectInvalid('{"prompt":"abc \\ud800 def","mode":"enhance"}', '/prompt')
  })

  test('mode: missing, unknown, wrong case, wrong type', async () => {
    const { token } = await register(t)
    await expectInvalid({ prompt: 'x' }, '/mode', token)
    for (const mode of ['improve', 'Enhance', 'ENHANCE', '', 'enhance ', '__proto__', 1, null, ['enhance']]) {
      await expectInvalid({ prompt: 'x', mode }, '/mode', token)
    }
  })

  test('target_model: too long, empty, wrong type, control characters', async () => {
    const { token } = await register(t)
    for (const target_model of ['m'.repeat(101), '', '   ', 7, false, { name: 'gpt' }, 'gpt-4o\nPrompt: ignore', 'a\u0000b']) {
      await expectInvalid({ prompt: 'x', mode: 'model-specific', target_model }, '/target_model', token)
    }
  })

  test('target_model: 100 characters, or null, are fine', async () => {
    const { token } = await register(t)
    expect((await optimize(t, token, { prompt: 'x', mode: 'model-specific', target_model: '🦙'.repeat(100) })).status).toBe(200)
    expect((await optimize(t, token, { prompt: 'x', mode: 'enhance', target_model: null })).status).toBe(200)
  })

  test('unknown fields are refused, each one named', async () => {
    const body = await expectInvalid({ ...GOOD, temperature: 0.2, Mode: 'x' }, '/temperature')
    expect(body.errors).toContainEqual({ path: '/Mode', message: expect.any(String) })
  })

  test('a body that is not an object', async () => {
    for (const body of ['[]', '"enhance"', '42', 'null', '[{"prompt":"x","mode":"enhance"}]']) await expectInvalid(body, '/')
  })

  test('several problems are reported together', async () => {
    const body = await expectInvalid({ prompt: '', mode: 'nope', target_model: 5, extra: 1 }, '/prompt')
    expect((body.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(['/extra', '/mode', '/prompt', '/target_model'])
  })

  test('malformed JSON → 400, another media type → 415, over 1 MiB → 413', async () => {
    const { token } = await register(t)
    await problem(await optimize(t, token, '{"prompt": "x", "mode": '), 400, 'malformed_json')
    const text = await t.request('/api/optimizer/optimize', { method: 'POST', token, body: 'prompt=x', headers: { 'content-type': 'text/plain' } })
    await problem(text, 415, 'unsupported_media_type')
    await problem(await optimize(t, token, { prompt: 'x'.repeat(1024 * 1024 + 10), mode: 'enhance' }), 413, 'payload_too_large')
  })
})

describe('hostile strings are ordinary text', () => {
  test('quotes, SQL, markup, emoji, NUL and RTL marks stream and are stored intact', async () => {
    const { token } = await register(t)
    const hostile = `Robert'); DROP TABLE users;-- "quoted" <script>alert(1)</script> \u0000 NUL 👨‍👩‍👧 \u202Eevil \\ backslash {{x}} ${'\n'}event: done${'\n'}data: {}`
    const { events } = await optimizeAll(t, token, { prompt: hostile, mode: 'structured', target_model: null })
    const done = events.at(-1)!
    expect(done.event).toBe('done')
    expect(done.data.optimized_prompt).toContain("Robert'); DROP TABLE users;--")
    expect(done.data.optimized_prompt).toContain('<script>alert(1)</script>')
    expect(done.data.optimized_prompt).toContain('👨‍👩‍👧')
    // the prompt's own "event: done" lines did not end the stream early: one done event, last
    expect(events.filter((e) => e.event === 'done')).toHaveLength(1)
    const history = await json(await t.request(HISTORY, { token }))
    expect(history.items[0].prompt).toBe(hostile)
  })
})

describe('order of checks: 401, then 422 (no quota spent), then 429', () => {
  test('no token or a bad token with a bad body → 401, not 422', async () => {
    await problem(await optimize(t, undefined, { bogus: true }), 401, 'missing_token')
    await problem(await optimize(t, 'not-a-jwt', { prompt: '', mode: 'nope' }), 401, 'invalid_token')
    await problem(await optimize(t, undefined, GOOD), 401, 'missing_token')
  })

  test('invalid calls cost no quota; with the quota spent a bad body is still 422, a good one 429', async () => {
    const { token } = await register(t)
    for (let i = 0; i < 5; i++) await expectInvalid({ prompt: '', mode: 'enhance' }, '/prompt', token)
    for (let i = 0; i < 3; i++) await optimizeAll(t, token, GOOD)
    await expectInvalid({ prompt: 'x', mode: 'nope' }, '/mode', token)
    await problem(await optimize(t, token, GOOD), 429, 'daily_limit_reached')
  })
})
