// The optimize request body's checks that its schema (model.ts, validated by Elysia after
// authentication) cannot express: lengths in code points, whitespace-only text, lone surrogates
// and control characters.
import { type FieldError, validationFailed } from '../../http/problem'
import { CONTROL_CHARS } from '../../http/text'
import type { OptimizeRequest } from './engines/types'
import { type OptimizeBody, PROMPT_MAX_CHARS, TARGET_MODEL_MAX_CHARS } from './model'

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
export function parseOptimizeBody(body: OptimizeBody): OptimizeRequest {
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
