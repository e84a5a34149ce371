// The OpenAI-compatible engine: POST {base}/chat/completions with stream: true, the upstream's
// event stream parsed as it arrives and each piece of text handed on at once. Failures become
// EngineErrors with our own wording: upstream bodies and the API key never leave this file.
import type { OptimizerUpstreamConfig } from '../../../config'
import { MODE_IDS, type OptimizationMode } from '../modes'
import { estimateTokens } from './builtin'
import { SseParser, type SseEvent } from './sse-parser'
import { systemPrompt, userMessage } from './system-prompts'
import { EngineError, type EngineRun, type EngineUsage, type OptimizeRequest, type OptimizerEngine } from './types'

/**
 * An answer's bound, in characters: a non-streaming JSON answer is read whole, and a streamed
 * one is kept whole (the done event, the history). Without it an upstream that never stops (a
 * model in a loop, a broken proxy) filled the memory for up to the 10-minute stream limit: on
 * loopback ~250 MB a second, one stream enough to bring the server down.
 */
const MAX_ANSWER_CHARS = 4 * 1024 * 1024
/** How long the body may linger after [DONE] before the connection is cut instead of reused. */
const BODY_END_GRACE_MS = 1000

type BodyReader = ReturnType<ReadableStream<Uint8Array>['getReader']> & { read(): Promise<{ done: boolean; value?: Uint8Array }> }

interface Interpreted {
  text?: string
  usage?: EngineUsage
  finished?: boolean
  done?: boolean
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/**
 * The most tokens a figure may claim: the history's columns are 32-bit integers on PostgreSQL (a
 * larger figure failed the row's final update and left it `running`), and 1e400 parses to
 * Infinity (which JSON.stringify writes as null). An absurd figure counts as none: estimated.
 */
const MAX_TOKENS_FIGURE = 2 ** 31 - 1

function usageOf(payload: Record<string, unknown>): EngineUsage | undefined {
  const usage = payload.usage
  if (!isObject(usage)) return undefined
  const input = usage.prompt_tokens
  const output = usage.completion_tokens
  const plausible = (n: unknown): n is number => typeof n === 'number' && n >= 0 && n <= MAX_TOKENS_FIGURE
  if (!plausible(input) || !plausible(output)) return undefined
  return { input_tokens: Math.round(input), output_tokens: Math.round(output) }
}

/** One chat-completion payload (a stream chunk, or a whole non-streaming answer). */
function interpretPayload(json: string, key: 'delta' | 'message'): Interpreted {
  let payload: unknown
  try {
    payload = JSON.parse(json)
  } catch {
    throw new EngineError('upstream_error', 'malformed stream: a data line is not JSON', false)
  }
  if (!isObject(payload)) throw new EngineError('upstream_error', 'malformed stream: a data line is not an object', false)
  // `"error": null` is how some servers' serialisers write "no error" (an optional field, null)
  if (payload.error !== undefined && payload.error !== null)
    throw new EngineError('upstream_error', 'the upstream reported an error in the stream', false)
  const choice = Array.isArray(payload.choices) ? payload.choices[0] : undefined
  const part = isObject(choice) ? choice[key] : undefined
  const content = isObject(part) ? part.content : undefined
  return {
    text: typeof content === 'string' && content !== '' ? content : undefined,
    usage: usageOf(payload),
    finished: isObject(choice) && typeof choice.finish_reason === 'string',
  }
}

function interpretEvent(event: SseEvent): Interpreted {
  if (event.event === 'error') throw new EngineError('upstream_error', 'the upstream sent an error event', false)
  if (event.event !== 'message') return {}
  if (event.data.trim() === '[DONE]') return { done: true }
  return interpretPayload(event.data, 'delta')
}

/** The short, secret-free reason a fetch failed (ECONNREFUSED and the like), for the log. */
function networkReason(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  return typeof code === 'string' && /^[A-Za-z_]{1,40}$/.test(code) ? code : 'connection failed'
}

/** Text pieces from an event stream, as each arrives; `onChunk` marks network activity. */
async function* readEventStream(reader: BodyReader, onChunk: () => void, sink: { usage?: EngineUsage }): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  const parser = new SseParser()
  let finished = false
  let emitted = false
  for (;;) {
    const read = await reader.read()
    onChunk()
    const events = read.done ? [...parser.push(decoder.decode()), ...parser.end()] : parser.push(decoder.decode(read.value, { stream: true }))
    for (const event of events) {
      const step = interpretEvent(event)
      if (step.done) {
        if (!emitted) throwNoText()
        return
      }
      if (step.usage) sink.usage = step.usage
      if (step.finished) finished = true
      if (step.text !== undefined) {
        emitted = true
        yield step.text
      }
    }
    if (read.done) break
  }
  // Without [DONE] or a finish_reason the text may be cut short: that is a failure.
  if (!finished) throw new EngineError('upstream_error', 'the upstream stream ended before it was complete', false)
  if (!emitted) throwNoText()
}

/** Servers that ignore `stream: true` answer with one JSON completion: read it whole (bounded). */
async function* readJsonAnswer(reader: BodyReader, onChunk: () => void, sink: { usage?: EngineUsage }): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let text = ''
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    onChunk()
    text += decoder.decode(read.value, { stream: true })
    if (text.length > MAX_ANSWER_CHARS) throw new EngineError('upstream_error', 'the upstream answer is too large', false)
  }
  const answer = interpretPayload(text + decoder.decode(), 'message')
  sink.usage = answer.usage
  if (answer.text === undefined) throwNoText()
  yield answer.text!
}

/**
 * After [DONE] an upstream ends the body at once; reading that end hands the connection back to
 * fetch's keep-alive pool (a TCP and TLS handshake saved on the next call). One that lingers is cut.
 */
async function finishBody(reader: BodyReader, controller: AbortController): Promise<void> {
  const cutOff = setTimeout(() => controller.abort(), BODY_END_GRACE_MS)
  try {
    while (!(await reader.read()).done) {}
  } catch {
    // cut off, or the connection dropped: nothing to reuse either way
  } finally {
    clearTimeout(cutOff)
  }
}

/**
 * A piece's text safe to hand on and to store: a lone surrogate (a JSON `\ud800` escape) becomes
 * U+FFFD, as storing it does (so the done event and the history agree), except a high surrogate at
 * the very end, held back: its low half may open the next piece (an emoji cut in two).
 */
function wellFormedPart(text: string): { text: string; held: string } {
  const last = text.charCodeAt(text.length - 1)
  const cut = last >= 0xd800 && last <= 0xdbff ? text.length - 1 : text.length
  return { text: text.slice(0, cut).toWellFormed(), held: text.slice(cut) }
}

function throwNoText(): never {
  throw new EngineError('upstream_error', 'the upstream answered without text', false)
}

export function createOpenAiEngine(config: OptimizerUpstreamConfig): OptimizerEngine {
  const url = `${config.baseUrl}/chat/completions`
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' }
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`
  // The request body up to the user's message, serialised once per mode (the system prompts are
  // a few kB each and every call would otherwise stringify them again).
  const bodyPrefix = Object.fromEntries(
    MODE_IDS.map((mode) => {
      const whole = JSON.stringify({
        model: config.model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: 'system', content: systemPrompt(mode) },
          { role: 'user', content: '' },
        ],
      })
      return [mode, whole.slice(0, -'""}]}'.length)]
    }),
  ) as Record<OptimizationMode, string>

  return {
    name: 'openai-compatible',
    model: config.model,
    start(request: OptimizeRequest, signal: AbortSignal): EngineRun {
      const system = systemPrompt(request.mode)
      const user = userMessage(request)
      const body = `${bodyPrefix[request.mode]}${JSON.stringify(user)}}]}`
      let output = ''
      const reported: { usage?: EngineUsage } = {}

      async function* deltas(): AsyncGenerator<string> {
        if (signal.aborted) throw new EngineError('aborted', 'the optimization was aborted', false)
        // One controller for the request: the caller's abort, either timeout, or leaving early.
        const controller = new AbortController()
        const onAbort = () => controller.abort()
        signal.addEventListener('abort', onAbort, { once: true })
        let phase: 'connect' | 'idle' = 'connect'
        let timedOut = false
        const onTimeout = () => {
          timedOut = true
          controller.abort()
        }
        let timer = setTimeout(onTimeout, config.connectTimeoutMs)
        let completed: BodyReader | null = null
        try {
          let response: Response
          try {
            response = await fetch(url, { method: 'POST', headers, body, signal: controller.signal })
          } catch (error) {
            throw new EngineError('upstream_error', `the upstream could not be reached (${networkReason(error)})`, false)
          }
          if (!response.ok || response.body === null) {
            // The body may hold the upstream's error details (even our key, echoed): drop it unread.
            void response.body?.cancel().catch(() => {})
            throw new EngineError('upstream_error', `the upstream answered HTTP ${response.status}`, false)
          }
          // Headers are in: from here on the clock measures silence, restarted by every chunk.
          phase = 'idle'
          clearTimeout(timer)
          timer = setTimeout(onTimeout, config.idleTimeoutMs)
          const idle = timer
          const onChunk = () => void idle.refresh()
          const isJson = (response.headers.get('content-type') ?? '').toLowerCase().includes('application/json')
          const reader = response.body.getReader() as BodyReader
          const pieces = isJson ? readJsonAnswer(reader, onChunk, reported) : readEventStream(reader, onChunk, reported)
          let held = ''
          for await (const raw of pieces) {
            const part = wellFormedPart(held + raw)
            held = part.held
            const piece = part.text
            if (piece === '') continue
            if (output.length + piece.length > MAX_ANSWER_CHARS) throw new EngineError('upstream_error', 'the upstream answer is too large', false)
            output += piece
            yield piece
          }
          if (held !== '') {
            output += '\ufffd'
            yield '\ufffd'
          }
          completed = reader
        } catch (error) {
          const emitted = output !== ''
          if (signal.aborted) throw new EngineError('aborted', 'the optimization was aborted', emitted)
          if (timedOut) {
            const limit = phase === 'connect' ? config.connectTimeoutMs : config.idleTimeoutMs
            throw new EngineError('upstream_timeout', `the upstream sent nothing for ${limit} ms (${phase} timeout)`, emitted)
          }
          if (error instanceof EngineError) throw new EngineError(error.code, error.message, emitted)
          throw new EngineError('upstream_error', `the upstream stream broke off (${networkReason(error)})`, emitted)
        } finally {
          clearTimeout(timer)
          signal.removeEventListener('abort', onAbort)
          // Leaving early (an error, or the consumer stopped reading) must close the upstream request.
          if (completed) void finishBody(completed, controller)
          else controller.abort()
        }
      }

      return {
        deltas: deltas(),
        usage: (): EngineUsage =>
          reported.usage ?? { input_tokens: estimateTokens(system) + estimateTokens(user), output_tokens: estimateTokens(output) },
      }
    },
  }
}
