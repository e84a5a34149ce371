// The contract every optimizer engine (built-in rules or an OpenAI-compatible upstream) fulfils,
// so the HTTP layer can stream any of them the same way.
import type { OptimizationMode } from '../modes'

export interface OptimizeRequest {
  prompt: string
  mode: OptimizationMode
  targetModel?: string
}

export interface EngineUsage {
  input_tokens: number
  output_tokens: number
}

/** One engine run. `deltas` yields text pieces as soon as they exist; `usage()` is valid after the iterator finished. */
export interface EngineRun {
  deltas: AsyncIterable<string>
  usage(): EngineUsage
}

export interface OptimizerEngine {
  readonly name: 'builtin' | 'openai-compatible'
  /** the model id reported to the client (null for builtin) */
  readonly model: string | null
  start(request: OptimizeRequest, signal: AbortSignal): EngineRun
}

export type EngineErrorCode = 'upstream_error' | 'upstream_timeout' | 'aborted'

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** whether any delta was already yielded, i.e. whether the client saw partial text */
    readonly textEmitted: boolean,
  ) {
    super(message)
    this.name = 'EngineError'
  }
}
