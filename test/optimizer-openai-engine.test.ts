// The OpenAI-compatible engine against a fake upstream on loopback: the request it sends, the
// stream it parses, and how every kind of upstream failure is reported.
import { afterAll, describe, expect, test } from 'bun:test'
import type { OptimizerUpstreamConfig } from '../src/config'
import { estimateTokens } from '../src/features/optimizer/engines/builtin'
import { createOpenAiEngine } from '../src/features/optimizer/engines/openai'
import { systemPrompt } from '../src/features/optimizer/engines/system-prompts'
import { EngineError, type EngineErrorCode, type EngineRun, type OptimizeRequest } from '../src/features/optimizer/engines/types'
import { MODE_IDS } from '../src/features/optimizer/modes'
import { FAKE_USAGE, FakeLlm, type FakeLlmScript, SECRET_IN_ERROR_BODY } from './support/fake-llm'
import { freePort } from './support/process'

const fake = new FakeLlm()
afterAll(() => fake.stop())

const API_KEY = 'sk-test-key-never-shown'

function engine(overrides: Partial<OptimizerUpstreamConfig> = {}) {
  return createOpenAiEngine({ baseUrl: fake.url, apiKey: API_KEY, model: 'fake-model-1', connectTimeoutMs: 2000, idleTimeoutMs: 2000, ...overrides })
}

const REQUEST: OptimizeRequest = { prompt: 'write a poem about tea', mode: 'enhance' }

async function run(script: FakeLlmScript, options: Partial<OptimizerUpstreamConfig> = {}, request = REQUEST, signal = new AbortController().signal) {
  fake.script = script
  const started = engine(options).start(request, signal)
  const pieces: string[] = []
  let error: unknown
  try {
    for await (const piece of started.deltas) pieces.push(piece)
  } catch (caught) {
    error = caught
  }
  return { run: started, pieces, error: error as EngineError | undefined, upstream: fake.requests.at(-1)! }
}

function expectEngineError(error: unknown, code: EngineErrorCode, textEmitted: boolean) {
  expect(error).toBeInstanceOf(EngineError)
  expect((error as EngineError).code).toBe(code)
  expect((error as EngineError).textEmitted).toBe(textEmitted)
  expect((error as EngineError).message).not.toContain(SECRET_IN_ERROR_BODY)
  expect((error as EngineError).message).not.toContain(API_KEY)
}

describe('OpenAI-compatible engine: the request', () => {
  test('POST {base}/chat/completions, streaming, with the key, the model, a system prompt and the prompt', async () => {
    const { pieces, error, upstream } = await run({ tokens: ['A ', 'better ', 'prompt.'] })
    expect(error).toBeUndefined()
    expect(pieces).toEqual(['A ', 'better ', 'prompt.'])
    expect(upstream.method).toBe('POST')
    expect(upstream.path).toBe('/v1/chat/completions')
    expect(upstream.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(upstream.headers['content-type']).toBe('application/json')
    expect(upstream.body).toEqual({
      model: 'fake-model-1',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: systemPrompt('enhance') },
        { role: 'user', content: REQUEST.prompt },
      ],
    })
  })

  test('no Authorization header without a key', async () => {
    fake.script = {}
    const started = engine({ apiKey: undefined }).start(REQUEST, new AbortController().signal)
    for await (const _ of started.deltas) {
    }
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined()
  })

  test('each mode has its own system prompt that asks for the rewritten prompt only', () => {
    const prompts = MODE_IDS.map(systemPrompt)
    expect(new Set(prompts).size).toBe(MODE_IDS.length)
    for (const prompt of prompts) expect(prompt).toContain('Output only the rewritten prompt')
  })

  test('every system prompt asks to keep labels, format and role, and never for placeholders (as the mode descriptions say)', () => {
    for (const prompt of MODE_IDS.map(systemPrompt)) {
      expect(prompt).toContain('Keep the labels, output format, length and template variables the original names exactly as written')
      expect(prompt).toContain('add no second one')
      expect(prompt).not.toMatch(/insert a short placeholder|use a placeholder|marked with placeholders|\[your input\]/i)
    }
  })

  test('model-specific mode names the target model in the user message', async () => {
    const { upstream } = await run({}, {}, { prompt: 'summarise this', mode: 'model-specific', targetModel: 'claude-3-5-sonnet' })
    expect(upstream.body.messages[1].content).toBe('Target model: claude-3-5-sonnet\nPrompt:\nsummarise this')
    const without = await run({}, {}, { prompt: 'summarise this', mode: 'model-specific' })
    expect(without.upstream.body.messages[1].content).toStartWith('Target model: not specified\n')
  })
})

describe('OpenAI-compatible engine: the stream', () => {
  test('usage comes from the upstream when it sends it', async () => {
    const { run: started } = await run({})
    expect(started.usage()).toEqual({ input_tokens: FAKE_USAGE.prompt_tokens, output_tokens: FAKE_USAGE.completion_tokens })
  })

  test('usage is estimated when the upstream sends none', async () => {
    const { run: started, pieces } = await run({ usage: false })
    expect(started.usage().output_tokens).toBe(estimateTokens(pieces.join('')))
    expect(started.usage().input_tokens).toBeGreaterThan(estimateTokens(REQUEST.prompt))
  })

  test('CRLF line ends and writes cut inside UTF-8 characters give the exact text', async () => {
    const tokens = ['Ünïcödé ', '😀 emoji ', '中文 ', 'and "quotes" \\ back\nslash']
    const { pieces, error } = await run({ tokens, lineEnding: '\r\n', splitWrites: true })
    expect(error).toBeUndefined()
    expect(pieces).toEqual(tokens)
  })

  test('a server that ignores stream: true and answers one JSON completion still works', async () => {
    const { pieces, run: started } = await run({ json: true, tokens: ['whole ', 'answer'] })
    expect(pieces).toEqual(['whole answer'])
    expect(started.usage()).toEqual({ input_tokens: FAKE_USAGE.prompt_tokens, output_tokens: FAKE_USAGE.completion_tokens })
  })

  test('a finished stream leaves its connection to the keep-alive pool: the next call reuses it', async () => {
    // the body's end comes a moment after [DONE], as it may over a real network
    const first = await run({ endDelayMs: 30 })
    await Bun.sleep(50)
    const second = await run({})
    expect(second.upstream.connection).toBe(first.upstream.connection)
    // a failed one is closed, never reused
    const failed = await run({ failAfter: 1, failHow: 'garbage' })
    const after = await run({})
    expect(after.upstream.connection).not.toBe(failed.upstream.connection)
  })

  test('an upstream that lingers after [DONE] does not hold the run, and is cut off after a grace period', async () => {
    const started = performance.now()
    const { error, upstream } = await run({ endDelayMs: 5000 })
    expect(error).toBeUndefined()
    expect(performance.now() - started).toBeLessThan(500)
    const goneAt = await fake.clientGone(upstream, 3000)
    expect(goneAt).not.toBeNull()
    expect(goneAt! - started).toBeGreaterThan(800)
  })

  test('each piece is handed on as it arrives, not when the stream ends', async () => {
    fake.script = { tokens: ['one ', 'two ', 'three'], tokenDelayMs: 150 }
    const iterator = engine().start(REQUEST, new AbortController().signal).deltas[Symbol.asyncIterator]()
    const first = await iterator.next()
    const firstAt = performance.now()
    await iterator.next()
    expect(first.value).toBe('one ')
    // the second piece came one token delay after the first, so the first was not held back
    expect(performance.now() - firstAt).toBeGreaterThan(100)
    await iterator.return?.()
  })
})

describe('OpenAI-compatible engine: failures', () => {
  test('HTTP 500 before any text: upstream_error, the body is not forwarded', async () => {
    const { error, pieces } = await run({ status: 500 })
    expect(pieces).toEqual([])
    expectEngineError(error, 'upstream_error', false)
    expect(error!.message).toContain('500')
  })

  test('a connection dropped before the headers: upstream_error', async () => {
    expectEngineError((await run({ dropBeforeHeaders: true })).error, 'upstream_error', false)
  })

  test('nothing listening: upstream_error', async () => {
    const { error } = await run({}, { baseUrl: `http://127.0.0.1:${freePort()}/v1` })
    expectEngineError(error, 'upstream_error', false)
  })

  test('no headers within the connect timeout: upstream_timeout', async () => {
    const started = performance.now()
    const { error } = await run({ headerDelayMs: 1000 }, { connectTimeoutMs: 100 })
    expectEngineError(error, 'upstream_timeout', false)
    expect(error!.message).toContain('connect timeout')
    expect(performance.now() - started).toBeLessThan(900)
  })

  test('silence before the first token longer than the idle timeout: upstream_timeout, no text', async () => {
    const { error } = await run({ tokenDelayMs: 1000 }, { idleTimeoutMs: 100 })
    expectEngineError(error, 'upstream_timeout', false)
    expect(error!.message).toContain('idle timeout')
  })

  test('silence mid-stream: upstream_timeout with text emitted', async () => {
    const { error, pieces } = await run({ failAfter: 2, failHow: 'hang' }, { idleTimeoutMs: 100 })
    expect(pieces.length).toBe(2)
    expectEngineError(error, 'upstream_timeout', true)
  })

  test.each([
    ['drop', 'the connection breaks off'],
    ['garbage', 'a data line is not JSON'],
    ['error-event', 'an error payload'],
    ['truncate', 'the body ends without [DONE] or a finish_reason'],
  ] as const)('mid-stream %s (%s): upstream_error with text emitted', async (failHow) => {
    // a small delay: the pieces arrive before the failure, as they would from a real upstream
    const { error, pieces } = await run({ failAfter: 2, failHow, tokenDelayMs: 10 })
    expect(pieces.length).toBe(2)
    expectEngineError(error, 'upstream_error', true)
  })

  test.each(['drop', 'garbage', 'error-event', 'truncate'] as const)('%s before the first token: upstream_error, no text', async (failHow) => {
    expectEngineError((await run({ failAfter: 0, failHow })).error, 'upstream_error', false)
  })

  test('an empty answer ([DONE] without text) is an error', async () => {
    expectEngineError((await run({ tokens: [] })).error, 'upstream_error', false)
  })
})

describe('OpenAI-compatible engine: abort', () => {
  test('aborting mid-stream closes the upstream connection at once', async () => {
    fake.script = { tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), tokenDelayMs: 20 }
    const controller = new AbortController()
    const started: EngineRun = engine().start(REQUEST, controller.signal)
    const pieces: string[] = []
    let abortedAt = 0
    const error = await (async () => {
      for await (const piece of started.deltas) {
        pieces.push(piece)
        if (pieces.length === 3) {
          abortedAt = performance.now()
          controller.abort()
        }
      }
    })().catch((caught: unknown) => caught)
    expectEngineError(error, 'aborted', true)
    const goneAt = await fake.clientGone(fake.requests.at(-1)!)
    expect(goneAt).not.toBeNull()
    expect(goneAt! - abortedAt).toBeLessThan(100)
    expect(started.usage().output_tokens).toBe(estimateTokens(pieces.join('')))
  })

  test('a consumer that stops iterating closes the upstream connection too', async () => {
    fake.script = { tokens: ['a ', 'b ', 'c '], tokenDelayMs: 50, hold: true }
    const iterator = engine().start(REQUEST, new AbortController().signal).deltas[Symbol.asyncIterator]()
    await iterator.next()
    await iterator.return?.()
    expect(await fake.clientGone(fake.requests.at(-1)!)).not.toBeNull()
  })
})
