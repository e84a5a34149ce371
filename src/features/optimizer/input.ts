// The optimize request body: its schema (validated by Elysia, after authentication) and the
// checks a JSON schema cannot express: lengths in code points, whitespace-only text, lone
// surrogates and control characters.
import { t } from 'elysia'
import { type FieldError, validationFailed } from '../../http/problem'
import { StringEnum, strictObject } from '../../http/schemas'
import { CONTROL_CHARS } from '../../http/text'
import { MODE_IDS, type OptimizationMode } from './modes'
import type { OptimizeRequest } from './engines/types'

export const PROMPT_MAX_CHARS = 20_000
export const TARGET_MODEL_MAX_CHARS = 100

export const OptimizeBody = strictObject({
  prompt: t.String({
    minLength: 1,
    // UTF-16 units: a loose bound here; the exact limit is counted in code points below
    maxLength: PROMPT_MAX_CHARS * 2,
    description: `the prompt to rewrite: 1–${PROMPT_MAX_CHARS.toLocaleString('en')} characters (Unicode code points), not only whitespace`,
  }),
  mode: StringEnum(MODE_IDS as [OptimizationMode, ...OptimizationMode[]], { description: 'one of the ids from GET /api/optimizer/modes' }),
  target_model: t.Optional(
    t.Nullable(
      t.String({
        maxLength: TARGET_MODEL_MAX_CHARS * 2,
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

/** Returns the engine request, or throws 422 validation_failed listing every problem. */
export function parseOptimizeBody(body: typeof OptimizeBody.static): OptimizeRequest {
  const errors: FieldError[] = []
  const { prompt, mode, target_model: targetModel } = body
  if (!prompt.isWellFormed()) errors.push({ path: '/prompt', message: 'must be valid Unicode text (it contains a lone surrogate)' })
  else {
    const length = codePoints(prompt)
    if (length > PROMPT_MAX_CHARS) errors.push({ path: '/prompt', message: `must be 1–${PROMPT_MAX_CHARS} characters long (got ${length})` })
    else if (prompt.trim() === '') errors.push({ path: '/prompt', message: 'must contain text, not only whitespace' })
  }
  if (typeof targetModel === 'string') {
    if (!targetModel.isWellFormed() || CONTROL_CHARS.test(targetModel)) {
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
    prompt,
    mode,
    targetModel: typeof targetModel === 'string' ? targetModel.trim() : undefined,
  }
}
