// Adversarial review of the optimizer: what a hostile or unusual client, or a misbehaving
// upstream, can do to POST /api/optimizer/optimize. Every test here failed before its fix (in
// src/features/optimizer/engines/openai.ts and builtin/labels.ts).
import { afterAll, describe, expect, test } from 'bun:test'
import { json, loggedSince, problem, register, setTier } from './support/app'
import { eventually, HISTORY, historyRows, makeOptimizerApp, optimizeAll } from './support/optimizer'
import { deltaText, SseReader, sequence } from './support/sse-client'

/** An upstream whose every answer the test writes itself (a Response per request). */
let answer: (request: Request) => Response | Promise<Response> = () => new Response('no script', { status: 500 })
const upstream = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: (request) => answer(request) })
afterAll(() => upstream.stop(true))

const API_KEY = 'sk-hostile-review-secret-0123456789'
const up = await makeOptimizerApp({
  upstreamUrl: `http://127.0.0.1:${upstream.port}/v1`,
  env: { OPTIMIZER_API_KEY: API_KEY, OPTIMIZER_CONNECT_TIMEOUT_MS: '500', OPTIMIZER_IDLE_TIMEOUT_MS: '500' },
})
const builtin = await makeOptimizerApp()
const GOOD = { prompt: 'make this prompt better', mode: 'enhance' }

const encoder = new TextEncoder()
const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`

/** An event-stream answer written from `parts` (strings or raw bytes), one write each. */
function streamOf(parts: (string | Uint8Array)[], delayMs = 0): Response {
  return new Response(
    new ReadableStream({
      async start(controller) {
        for (const part of parts) {
          if (delayMs) await Bun.sleep(delayMs)
          controller.enqueue(typeof part === 'string' ? encoder.encode(part) : part)
        }
        controller.close()
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  )
}

async function proUser(t = up) {
  const registered = await register(t)
  await setTier(t, registered.user.id, 'pro')
  return registered
}

describe('upstream usage figures', () => {
  test('absurd token counts (past int4, past a double) neither break the done event nor leave the row running', async () => {
    for (const usage of ['{"prompt_tokens":3000000000,"completion_tokens":5}', '{"prompt_tokens":1e400,"completion_tokens":1e400}']) {
      const { token, user } = await proUser()
      answer = () => streamOf([chunk('Rewritten.'), chunk('', 'stop'), `data: {"choices":[],"usage":${usage}}\n\n`, 'data: [DONE]\n\n'])
      const before = up.log.lines().length
      const { events } = await optimizeAll(up, token, GOOD)
      expect(sequence(events)).toEqual(['start', 'delta*', 'done'])
      const { input_tokens, output_tokens } = events.at(-1)!.data.usage
      expect(Number.isSafeInteger(input_tokens) && Number.isSafeInteger(output_tokens)).toBe(true)
      expect((await historyRows(up.storage, user.id)).map((r) => r.status)).toEqual(['completed'])
      expect(loggedSince(up, before)).toEqual([])
    }
  })
})

describe('an upstream that misbehaves', () => {
  test('an answer that never ends is cut at 4 Mi characters: error upstream_error, the upstream request closed, history failed', async () => {
    const { token, user } = await proUser()
    const piece = encoder.encode(chunk('x'.repeat(60_000)))
    let sent = 0
    let cancelled = false
    // Endless but for a safety stop far past the bound (then a clean end without [DONE]).
    answer = () =>
      new Response(
        new ReadableStream({
          async pull(controller) {
            if (sent >= 24 * 1024 * 1024) return controller.close()
            controller.enqueue(piece)
            sent += piece.length
            await Bun.sleep(0)
          },
          cancel() {
            cancelled = true
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    const { events } = await optimizeAll(up, token, GOOD)
    expect(sequence(events)).toEqual(['start', 'delta*', 'error'])
    expect(events.at(-1)!.data.code).toBe('upstream_error')
    expect(deltaText(events).length).toBeLessThanOrEqual(4 * 1024 * 1024)
    // Closed before its own end: how far past the bound it got depends on the sockets' buffers
    // and the machine's load (6-10 MiB seen), so only the safety stop is a bound here.
    await eventually(() => cancelled)
    expect(sent).toBeLessThan(24 * 1024 * 1024)
    expect((await historyRows(up.storage, user.id)).map((r) => [r.status, r.error_code])).toEqual([['failed', 'upstream_error']])
  })

  test('lone surrogates in the upstream’s JSON escapes: the deltas, the done event and the history hold the same well-formed text', async () => {
    const { token } = await proUser()
    // a lone high and a lone low surrogate, and an emoji whose halves come in two chunks
    answer = () =>
      streamOf([
        'data: {"choices":[{"delta":{"content":"a\\ud800b\\udc00c \\ud83d"}}]}\n\n',
        'data: {"choices":[{"delta":{"content":"\\ude00 end\\ud83d"},"finish_reason":"stop"}]}\n\n',
        'data: [DONE]\n\n',
      ])
    const { events } = await optimizeAll(up, token, GOOD)
    expect(sequence(events)).toEqual(['start', 'delta*', 'done'])
    const expected = 'a\ufffdb\ufffdc 😀 end\ufffd'
    for (const delta of events.filter((e) => e.event === 'delta')) expect((delta.data.text as string).isWellFormed()).toBe(true)
    expect(deltaText(events)).toBe(expected)
    expect(events.at(-1)!.data.optimized_prompt).toBe(expected)
    const history = await json(await up.request(`${HISTORY}?limit=1`, { token }))
    expect(history.items[0]).toMatchObject({ status: 'completed', optimized_prompt: expected })
  })

  test('chunks that carry "error": null (an optional field serialised as null) are not errors', async () => {
    const { token } = await proUser()
    answer = () =>
      streamOf([
        'data: {"choices":[{"delta":{"content":"Rewritten "},"finish_reason":null}],"error":null}\n\n',
        'data: {"choices":[{"delta":{"content":"prompt."},"finish_reason":"stop"}],"error":null}\n\n',
        'data: [DONE]\n\n',
      ])
    const { events } = await optimizeAll(up, token, GOOD)
    expect(sequence(events)).toEqual(['start', 'delta*', 'done'])
    expect(events.at(-1)!.data.optimized_prompt).toBe('Rewritten prompt.')
  })
})

describe('the built-in engine on crafted prompts', () => {
  test('a label list followed by a long run of whitespace streams in milliseconds, in every mode (was cubic: 6,000 tabs took ~90 s)', async () => {
    const { token } = await proUser(builtin)
    const runs = ['\t', ' ', '\u3000', '\f', ' \t']
    const modes = ['enhance', 'structured', 'chain-of-thought', 'few-shot', 'model-specific']
    for (const [i, mode] of modes.entries()) {
      const prompt = `Labels: a${runs[i]!.repeat(1500 / runs[i]!.length)}x`
      const started = performance.now()
      const { events } = await optimizeAll(builtin, token, { prompt, mode })
      const elapsed = performance.now() - started
      expect(events.at(-1)!.event).toBe('done')
      expect(elapsed).toBeLessThan(300)
    }
  })
})
