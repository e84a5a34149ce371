// The optimize request body: its schema (for the OpenAPI document) and its validation.
// Validation runs in the handler, after authentication, because the contract orders the checks
// 401 → 422 → 429 and Elysia validates a declared body before any auth hook runs.
import { t } from 'elysia'
import { type FieldError, validationFailed } from '../../http/problem'
import { strictObject } from '../../http/schemas'
import { MODE_IDS, isOptimizationMode, type OptimizationMode } from './modes'
import type { OptimizeRequest } from './engines/types'

export const PROMPT_MAX_CHARS = 20_000
export const TARGET_MODEL_MAX_CHARS = 100

const FIELDS = ['prompt', 'mode', 'target_model']
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/

export const OptimizeBody = strictObject({
  prompt: t.String({
    minLength: 1,
    description: `the prompt to rewrite: 1–${PROMPT_MAX_CHARS.toLocaleString('en')} characters (Unicode code points), not only whitespace`,
  }),
  mode: t.UnionEnum(MODE_IDS as [OptimizationMode, ...OptimizationMode[]], { description: 'one of the ids from GET /api/optimizer/modes' }),
  target_model: t.Optional(
    t.Nullable(
      t.String({
        description: `model-specific mode: the model the prompt is for, e.g. claude-3-5-sonnet, gpt-4o, gemini-1.5-pro, llama-3 (1–${TARGET_MODEL_MAX_CHARS} characters); other modes ignore it`,
      }),
    ),
  ),
})

/** Characters as people count them: code points, so an emoji is one, not two UTF-16 units. */
function codePoints(text: string): number {
  let surrogatePairs = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) surrogatePairs++
  }
  return text.length - surrogatePairs
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Returns the engine request, or throws 422 validation_failed listing every problem. */
export function parseOptimizeBody(body: unknown): OptimizeRequest {
  if (!isObject(body)) throw validationFailed([{ path: '/', message: 'must be a JSON object' }], 'The request body is not valid.')
  const errors: FieldError[] = []
  for (const key of Object.keys(body)) {
    if (!FIELDS.includes(key)) errors.push({ path: `/${key}`, message: `is not a known field (${FIELDS.join(', ')})` })
  }

  const { prompt, mode, target_model: targetModel } = body
  if (prompt === undefined) errors.push({ path: '/prompt', message: 'is required' })
  else if (typeof prompt !== 'string') errors.push({ path: '/prompt', message: 'must be a string' })
  else if (!prompt.isWellFormed()) errors.push({ path: '/prompt', message: 'must be valid Unicode text (it contains a lone surrogate)' })
  else {
    const length = codePoints(prompt)
    if (length < 1 || length > PROMPT_MAX_CHARS) {
      errors.push({ path: '/prompt', message: `must be 1–${PROMPT_MAX_CHARS} characters long (got ${length})` })
    } else if (prompt.trim() === '') errors.push({ path: '/prompt', message: 'must contain text, not only whitespace' })
  }

  if (mode === undefined) errors.push({ path: '/mode', message: 'is required' })
  else if (typeof mode !== 'string' || !isOptimizationMode(mode)) errors.push({ path: '/mode', message: `must be one of ${MODE_IDS.join(', ')}` })

  if (targetModel !== undefined && targetModel !== null) {
    if (typeof targetModel !== 'string') errors.push({ path: '/target_model', message: 'must be a string or null' })
    else if (!targetModel.isWellFormed() || CONTROL_CHARS.test(targetModel)) {
      errors.push({ path: '/target_model', message: 'must be plain text without control characters' })
    } else {
      const length = codePoints(targetModel.trim())
      if (length < 1 || length > TARGET_MODEL_MAX_CHARS) {
        errors.push({ path: '/target_model', message: `must be 1–${TARGET_MODEL_MAX_CHARS} characters long (got ${length})` })
      }
    }
  }

  if (errors.length > 0) throw validationFailed(errors, 'The request body is not valid.')
  return {
    prompt: prompt as string,
    mode: mode as OptimizeRequest['mode'],
    targetModel: typeof targetModel === 'string' ? targetModel.trim() : undefined,
  }
}
