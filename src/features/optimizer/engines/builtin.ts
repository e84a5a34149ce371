// The built-in optimizer engine: deterministic, rule-based prompt rewriting with no network.
// The per-mode rewriters live in ./builtin/; this file wires them to the engine contract.
import type { EngineRun, EngineUsage, OptimizeRequest, OptimizerEngine } from './types'
import { EngineError } from './types'
import { MODE_IDS } from '../modes'
import { analysePrompt } from './builtin/analyze'
import { chainOfThoughtPrompt } from './builtin/chain-of-thought'
import { chunkEnd } from './builtin/chunks'
import { enhancePrompt } from './builtin/enhance'
import { fewShotPrompt } from './builtin/few-shot'
import { modelSpecificPrompt } from './builtin/model-specific'
import { structurePrompt } from './builtin/structured'

export const DEFAULT_CHUNK_SIZE = 48

/** Rewrites the prompt for the requested mode. Pure and deterministic: same request, same text. */
export function optimizePrompt(request: OptimizeRequest): string {
  const analysis = analysePrompt(request.prompt)
  switch (request.mode) {
    case 'enhance':
      return enhancePrompt(analysis)
    case 'structured':
      return structurePrompt(analysis)
    case 'chain-of-thought':
      return chainOfThoughtPrompt(analysis)
    case 'few-shot':
      return fewShotPrompt(analysis)
    case 'model-specific':
      return modelSpecificPrompt(analysis, request.targetModel)
    default:
      throw new TypeError(`unknown optimization mode: ${String(request.mode satisfies never)}`)
  }
}

/**
 * Token estimate without a tokenizer. For ASCII text, BPE vocabularies average about 4 characters
 * or 0.75 words per token; averaging the two keeps long words and dense punctuation from skewing
 * it. Other code points (CJK, emoji, accented letters) count about one token each.
 * Returns 0 for '' and at least 1 otherwise; appending text never lowers the estimate.
 * Counting uses native regex passes, which stay fast even before the JIT has warmed up.
 */
export function estimateTokens(text: string): number {
  if (text === '') return 0
  const nonAscii = text.replace(/[\x00-\x7f]+/g, '')
  const asciiChars = text.length - nonAscii.length
  const asciiWords = text.match(/[A-Za-z0-9]+/g)?.length ?? 0
  // A surrogate pair is one code point: count only its high half.
  const otherCodePoints = nonAscii.length - (nonAscii.match(/[\udc00-\udfff]/g)?.length ?? 0)
  return Math.max(1, Math.ceil((asciiChars / 4 + (asciiWords * 4) / 3) / 2 + otherCodePoints))
}

/** Lets other work (sockets, timers, abort handlers) run between chunks; setImmediate is ~µs in Bun. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function abortedError(textEmitted: boolean): EngineError {
  return new EngineError('aborted', 'the optimization was aborted', textEmitted)
}

// A representative prompt (persona, background, task, rules, code, variables) for warmUpOnce.
const WARM_UP_PROMPT = [
  'You are a helpful assistant. Our team of 12 engineers maintains a billing service for {{company}}.',
  'Write a blog post for beginners about migrating it from Python to Go, at most 800 words, in a friendly tone.',
  'Rules:\n- Never mention customer names\n- Keep each section under 150 words',
  '```python\ndef charge(amount: int) -> None:\n    ...\n```',
  'Why does the retry loop double-charge? Explain it to my manager so that we can plan the fix.',
].join('\n\n')

let warmedUp = false

/** The warm-up work: every mode on prose paragraphs, and on a pasted table of many short lines. */
function* warmUpSteps(): Generator<void> {
  const prompts = [WARM_UP_PROMPT.repeat(4), `Summarize this table:\n${'id,name,total\n'.repeat(400)}`]
  for (let round = 0; round < 3; round++) {
    for (const prompt of prompts) {
      for (const mode of MODE_IDS) {
        optimizePrompt({ prompt, mode, targetModel: 'claude' })
        yield
      }
    }
  }
}

/**
 * Runs every mode a few times on representative prompts, once per process (~20–40 ms).
 * Cold JavaScript is several times slower than JIT-compiled code; without this the first real
 * 20,000-character request would take ~15–40 ms to its first chunk instead of ~2–5 ms.
 */
function warmUpOnce(): void {
  if (warmedUp) return
  warmedUp = true
  for (const _ of warmUpSteps());
}

/**
 * The same warm-up in small steps with the event loop free in between (one mode on one prompt
 * each, a few ms at most), for a server that is already answering requests: start-up stays fast
 * and no request waits behind the whole warm-up.
 */
export async function warmUpBuiltinEngineGradually(): Promise<void> {
  if (warmedUp) return
  warmedUp = true
  for (const _ of warmUpSteps()) await yieldToEventLoop()
}

/** @param options.warmUp false: leave the warm-up to the caller (see warmUpBuiltinEngineGradually) */
export function createBuiltinEngine(options: { chunkSize?: number; warmUp?: boolean } = {}): OptimizerEngine {
  const requested = options.chunkSize ?? DEFAULT_CHUNK_SIZE
  const chunkSize = Number.isFinite(requested) ? Math.max(1, Math.floor(requested)) : DEFAULT_CHUNK_SIZE
  if (options.warmUp !== false) warmUpOnce()

  return {
    name: 'builtin',
    model: null,
    start(original: OptimizeRequest, signal: AbortSignal): EngineRun {
      // The rewrite runs on first pull; a copy keeps later changes to the caller's object out of it.
      const request = { ...original }
      let output = ''
      let emittedEnd = 0

      async function* deltas(): AsyncGenerator<string> {
        if (signal.aborted) throw abortedError(false)
        // Linear-time string work: a few milliseconds for 20,000 characters, so the first chunk is prompt.
        output = optimizePrompt(request)
        while (emittedEnd < output.length) {
          if (signal.aborted) throw abortedError(emittedEnd > 0)
          const start = emittedEnd
          emittedEnd = chunkEnd(output, start, chunkSize)
          yield output.slice(start, emittedEnd)
          await yieldToEventLoop()
        }
      }

      return {
        deltas: deltas(),
        // After an abort this counts only what was actually streamed.
        usage: (): EngineUsage => ({
          input_tokens: estimateTokens(request.prompt),
          output_tokens: estimateTokens(output.slice(0, emittedEnd)),
        }),
      }
    },
  }
}
