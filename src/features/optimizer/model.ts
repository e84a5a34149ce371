// The shapes of /api/optimizer/*, declared once: the routes' schemas, the OpenAPI document and the
// service's types (each type is its schema's `.static`), the stream's events included.
import { t } from 'elysia'
import { MAX_CHARACTERS } from '../../http/openapi-finish'
import { Int, paginated, StringEnum, strictObject } from '../../http/schemas'
import { MODE_IDS, type OptimizationMode } from './modes'
import { OPTIMIZATION_STATUSES } from './store'

export const PROMPT_MAX_CHARS = 20_000
export const TARGET_MODEL_MAX_CHARS = 100

export const OptimizeBody = strictObject({
  prompt: t.String({
    minLength: 1,
    // UTF-16 units: a loose bound here; input.ts counts the exact limit in code points
    maxLength: PROMPT_MAX_CHARS * 2,
    [MAX_CHARACTERS]: PROMPT_MAX_CHARS,
    description: `the prompt to rewrite: 1–${PROMPT_MAX_CHARS.toLocaleString('en')} characters (Unicode code points), not only whitespace`,
  }),
  mode: StringEnum(MODE_IDS as [OptimizationMode, ...OptimizationMode[]], { description: 'one of the ids from GET /api/optimizer/modes' }),
  target_model: t.Optional(
    t.Nullable(
      t.String({
        maxLength: TARGET_MODEL_MAX_CHARS * 2,
        [MAX_CHARACTERS]: TARGET_MODEL_MAX_CHARS,
        description: `model-specific mode: the model the prompt is for, e.g. claude-3-5-sonnet, gpt-4o, gemini-1.5-pro, llama-3 (1–${TARGET_MODEL_MAX_CHARS} characters); other modes ignore it`,
      }),
    ),
  ),
})

export type OptimizeBody = typeof OptimizeBody.static

export const Mode = t.Object({ id: t.String(), label: t.String(), description: t.String() })
export const ModesResponse = t.Object({ items: t.Array(Mode) })

export const HistoryItem = t.Object({
  id: t.String({ description: 'cuid2; the id of the stream’s start and done events' }),
  mode: t.String(),
  prompt: t.String(),
  optimized_prompt: t.Nullable(t.String({ description: 'null unless status is completed' })),
  engine: t.String({ examples: ['builtin', 'openai-compatible'] }),
  model: t.Nullable(t.String({ description: 'the upstream model; null for the built-in engine' })),
  status: StringEnum(OPTIMIZATION_STATUSES, { description: 'running (stream still open), completed, failed or aborted' }),
  created_at: t.String({ format: 'date-time' }),
})
export type HistoryItem = typeof HistoryItem.static

export const HistoryPage = paginated(HistoryItem)

// The stream's events (contract section 7): one `start`, `delta`s, then `done` or `error`.
export const StartEvent = t.Object({
  id: t.String({ description: 'the history entry' }),
  mode: t.String(),
  engine: t.String(),
  model: t.Nullable(t.String()),
})
export const DeltaEvent = t.Object({ text: t.String({ description: 'the next piece of the rewritten prompt' }) })
export const DoneEvent = t.Object({
  id: t.String(),
  optimized_prompt: t.String({ description: 'the concatenation of the deltas' }),
  usage: t.Object({ input_tokens: Int(), output_tokens: Int() }),
  remaining_today: t.Nullable(Int({ description: 'null on unlimited tiers' })),
})
export const ErrorEvent = t.Object({
  code: StringEnum(['upstream_error', 'upstream_timeout', 'shutting_down', 'internal_error']),
  detail: t.String(),
})

export type OptimizerErrorEvent = typeof ErrorEvent.static

/** What the service yields; the route frames each as one `event:` line and one `data:` line. */
export type OptimizerEvent =
  | { event: 'start'; data: typeof StartEvent.static }
  | { event: 'delta'; data: typeof DeltaEvent.static }
  | { event: 'done'; data: typeof DoneEvent.static }
  | { event: 'error'; data: OptimizerErrorEvent }
