// Pure text rules of the catalogue itself: previews, template variables, deterministic ids.
// (Slugs, tags and what can be stored are shared with skills: lib/text.ts.) Unit-tested.
import { createHash } from 'node:crypto'
import { fingerprint, SPACE_OR_CONTROL } from '../../lib/text'

export const PREVIEW_LENGTH = 200

/**
 * The first ~200 characters of the content, white space and control characters folded into
 * single spaces, cut at a word boundary, with "…" when cut.
 */
export function previewOf(content: string, max = PREVIEW_LENGTH): string {
  // The first max * 2 characters folded are a prefix of the first max * 4 folded: when they hold more
  // than `max`, the preview is the same, for half the folding (bench-data.ts: 100,000 previews).
  const short = content.length > max * 2 ? fold(content.slice(0, max * 2)) : null
  const folded = short !== null && short.length > max ? short : fold(content.slice(0, max * 4))
  if (folded.length <= max) return folded
  // Cut by UTF-16 units, never inside a surrogate pair.
  let cut = folded.slice(0, /[\ud800-\udbff]/.test(folded.charAt(max - 1)) ? max - 1 : max)
  const space = cut.lastIndexOf(' ')
  if (space >= max * 0.6) cut = cut.slice(0, space)
  // The run of spaces and punctuation at its end dropped, read backwards (a regex anchored at the end tries every position).
  let end = cut.length
  while (end > 0 && TRAILING.test(cut.charAt(end - 1))) end--
  return cut.slice(0, end) + '…'
}

const TRAILING = /[\s,;:.\-–—]/u

const fold = (text: string) => text.replace(SPACE_OR_CONTROL, ' ').trim()

export interface TemplateVariable {
  name: string
  default: string | null
  options: string[] | null
}

const VARIABLE = /\{\{\s*([\p{L}_][\p{L}\p{N}_.-]*)\s*(?::([^{}]*))?\}\}/gu

/**
 * `{{name}}`, `{{name:default}}` and `{{name:a|b|c}}` (options, no default), in order of first
 * appearance; a name seen again is skipped.
 */
export function parseVariables(content: string): TemplateVariable[] {
  const seen = new Map<string, TemplateVariable>()
  for (const match of content.matchAll(VARIABLE)) {
    const name = match[1]!
    if (seen.has(name)) continue
    const spec = match[2]
    let variable: TemplateVariable = { name, default: null, options: null }
    if (spec !== undefined) {
      if (spec.includes('|')) {
        const options = spec
          .split('|')
          .map((o) => o.trim())
          .filter(Boolean)
        variable = { name, default: null, options: options.length ? options : null }
      } else if (spec.trim() !== '') {
        variable = { name, default: spec.trim(), options: null }
      }
    }
    seen.set(name, variable)
  }
  return [...seen.values()]
}

export interface FillProblem {
  /** the variable (or the argument) the problem is about */
  name: string
  message: string
}

/**
 * The content with every `{{variable}}` replaced by its value, else its default. An empty value
 * counts as not given (forms send blank fields as ""). Problems: a variable with neither a value
 * nor a default, a value outside the variable's options, a value for a name the content lacks.
 */
export function fillVariables(content: string, values: Record<string, string>): { text: string; problems: FillProblem[] } {
  const problems: FillProblem[] = []
  const variables = parseVariables(content)
  const known = new Set(variables.map((v) => v.name))
  for (const name of Object.keys(values)) {
    if (!known.has(name)) problems.push({ name, message: `"${name}" is not a variable of this prompt` })
  }
  const resolved = new Map<string, string>()
  for (const variable of variables) {
    // Own keys only: a variable may be named `constructor` or `toString`, which every object inherits.
    const given = Object.hasOwn(values, variable.name) ? values[variable.name] : undefined
    const value = given === undefined || given === '' ? variable.default : given
    if (value === null) problems.push({ name: variable.name, message: `"${variable.name}" is required (it has no default)` })
    else if (variable.options && !variable.options.includes(value)) {
      problems.push({ name: variable.name, message: `"${variable.name}" must be one of: ${variable.options.join(', ')}` })
    } else resolved.set(variable.name, value)
  }
  const text = content.replace(VARIABLE, (match, name: string) => resolved.get(name) ?? match)
  return { text, problems }
}

// RFC 4122 name-based UUID (version 5, SHA-1) in the promptlib namespace: the same category and
// title always give the same prompt id, so re-importing a CSV updates instead of duplicating.
const NAMESPACE = Buffer.from('6f1d7c2e9a4b4e0f8c3a5d2b1e0f9a7c', 'hex')
export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const h = hash.subarray(0, 16).toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** "machine-learning" → "Machine learning": a readable name for a category created on the fly. */
export function nameFromSlug(slug: string): string {
  const words = slug.replace(/-/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The type a prompt has when its catalogue names none. */
export const DEFAULT_PROMPT_TYPE = 'text'

/**
 * A hash of a prompt's imported text, type and placement, the same on either engine: a re-import
 * of the same record changes nothing. Timestamps are compared on their own (sameTimestamps), as a
 * file may leave them out. The two nulls held them once: the hashes stored then for records
 * without timestamps stay valid.
 */
export function promptSourceHash(
  p: { title: string; description: string; categoryId: string; subcategoryId: string | null; type: string; content: string },
  tags: string,
): string {
  const parts = [p.title, p.description, p.categoryId, p.subcategoryId, tags, p.content, null, null]
  if (p.type !== DEFAULT_PROMPT_TYPE) parts.push(p.type)
  return fingerprint(parts)
}

export { sameTimestamps } from '../../lib/text'

/**
 * Whether a stored prompt already holds what an import brings (its hash may predate the current
 * hash rule): the update is then only a refreshed hash, or new timestamps.
 */
export const sameImportedText = (
  p: { title: string; description: string; categoryId: string; subcategoryId: string | null; type: string; content: string },
  tags: string,
  stored: { title: string; description: string; categoryId: string; subcategoryId: string | null; type: string; content: string; tags: string },
) =>
  p.title === stored.title &&
  p.description === stored.description &&
  p.categoryId === stored.categoryId &&
  p.subcategoryId === stored.subcategoryId &&
  p.type === stored.type &&
  p.content === stored.content &&
  tags === stored.tags
