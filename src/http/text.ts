// Validation of free-text labels (names) that schemas cannot express: a length counted in
// characters after trimming, and no control characters.
import { validationFailed } from './problem'

export const CONTROL_CHARS = /[\u0000-\u001f\u007f]/

/** Trimmed `value`, or a 422 on `path` when it is empty, longer than `max` characters or has control characters. */
export function cleanLabel(value: string, path: string, max: number): string {
  const trimmed = value.trim()
  const length = [...trimmed].length
  if (length < 1 || length > max || CONTROL_CHARS.test(trimmed)) {
    throw validationFailed([{ path, message: `must be 1–${max} characters after trimming, without control characters` }])
  }
  return trimmed
}
