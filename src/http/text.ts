// Validation of free-text labels (names) that schemas cannot express: a length counted in
// characters after trimming, and no control characters or halves of surrogate pairs.
import { validationFailed } from './problem'

/** C0, DEL and C1 (U+0085 is a line break to some readers). */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/

/**
 * Trimmed `value`, or a 422 on `path` when it is empty, longer than `max` characters, or has
 * control characters or half a surrogate pair (stored as U+FFFD, it would not be what was sent).
 */
export function cleanLabel(value: string, path: string, max: number): string {
  const trimmed = value.trim()
  const length = [...trimmed].length
  if (length < 1 || length > max || CONTROL_CHARS.test(trimmed) || !trimmed.isWellFormed()) {
    throw validationFailed([{ path, message: `must be 1–${max} characters after trimming, without control characters or lone surrogates` }])
  }
  return trimmed
}
