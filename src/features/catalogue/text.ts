// Pure text rules of the catalogue: slugs, tags, previews, template variables, search facets,
// deterministic ids. No database here; everything is unit-tested.
import { createHash } from 'node:crypto'

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const SLUG_MAX = 64
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isSlug = (value: string) => value.length <= SLUG_MAX && SLUG.test(value)

/** A free-form label as a slug: "Machine Learning" → "machine-learning", "Café" → "cafe". */
export function slugify(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '')
}

/** Tags are stored as slugs (letters of any script, digits, single hyphens), unique, in order. */
export function normaliseTags(tags: readonly string[]): string[] {
  const out: string[] = []
  for (const tag of tags) {
    const t = slugify(tag)
    if (t && !out.includes(t)) out.push(t)
  }
  return out
}

export const joinTags = (tags: readonly string[]) => tags.join(' ')
export const splitTags = (tags: string): string[] => (tags === '' ? [] : tags.split(' '))

// Names and labels (a category's name, a skill's license, …) are cleaned: Unicode noncharacters
// are reserved for a program's internal use, and NUL and the other C0 controls but tab, newline and
// carriage return have no place in a label. Prompt and skill text is never cleaned (see below).
const UNWANTED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufdd0-\ufdef\ufffe\uffff]/g
const HAS_UNWANTED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufdd0-\ufdef\ufffe\uffff]/
export const cleanText = (value: string) => (HAS_UNWANTED.test(value) ? value.replace(UNWANTED, '') : value)

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Where a text has a UTF-16 surrogate without its other half (UTF-8 cannot encode it), or -1. */
export const loneSurrogateAt = (value: string): number => (value.isWellFormed() ? -1 : LONE_SURROGATE.exec(value)!.index)

/**
 * Why a text cannot be stored exactly, or null. Prompt and skill text keeps every character JSON
 * can carry, control characters included; only NUL (`nul: false` for labels, which are cleaned of
 * it) and lone surrogates cannot: PostgreSQL refuses NUL in text and SQLite's text functions
 * (FTS5 included) stop at it; either database turns a lone surrogate into U+FFFD. `fromBytes`: the
 * text was read from a file, where a lone surrogate stands for a byte that is not UTF-8
 * (import/utf8.ts).
 */
export function unstorable(value: string, opts: { nul?: boolean; surrogates?: boolean; fromBytes?: boolean } = {}): { index: number; problem: string } | null {
  if (opts.nul !== false) {
    const nul = value.indexOf('\u0000')
    if (nul !== -1) return { index: nul, problem: 'contains NUL (U+0000), which cannot be stored' }
  }
  if (opts.surrogates === false) return null
  const at = loneSurrogateAt(value)
  if (at === -1) return null
  if (opts.fromBytes) return { index: at, problem: 'contains bytes that are not valid UTF-8 (the file must be UTF-8)' }
  return { index: at, problem: `contains a lone surrogate (\\u${value.charCodeAt(at).toString(16)}), which cannot be stored` }
}

export const PREVIEW_LENGTH = 200

/** Runs of white space and control characters (U+001F between a skill's files, …): one space in display text. */
export const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]+/g

/**
 * The first ~200 characters of the content, white space and control characters folded into
 * single spaces, cut at a word boundary, with "…" when cut.
 */
export function previewOf(content: string, max = PREVIEW_LENGTH): string {
  const folded = content.slice(0, max * 4).replace(SPACE_OR_CONTROL, ' ').trim()
  if (folded.length <= max) return folded
  // Cut by UTF-16 units, never inside a surrogate pair.
  let cut = folded.slice(0, /[\ud800-\udbff]/.test(folded.charAt(max - 1)) ? max - 1 : max)
  const space = cut.lastIndexOf(' ')
  if (space >= max * 0.6) cut = cut.slice(0, space)
  return cut.replace(/[\s,;:.\-–—]+$/u, '') + '…'
}

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
        const options = spec.split('|').map((o) => o.trim()).filter(Boolean)
        variable = { name, default: null, options: options.length ? options : null }
      } else if (spec.trim() !== '') {
        variable = { name, default: spec.trim(), options: null }
      }
    }
    seen.set(name, variable)
  }
  return [...seen.values()]
}

// Search filters become tokens in the index's `facets` column: a kind letter and the value's
// UTF-8 bytes in hex, which the unicode61 tokenizer keeps as one token that no typed word matches.
const hex = (value: string) => Buffer.from(value, 'utf8').toString('hex')
export const facetToken = (kind: 'c' | 's' | 't', value: string) => `${kind}${hex(value)}`

export function promptFacets(categoryId: string, subcategoryId: string | null, tags: readonly string[]): string {
  const tokens = [facetToken('c', categoryId)]
  if (subcategoryId) tokens.push(facetToken('s', subcategoryId))
  for (const tag of tags) tokens.push(facetToken('t', tag))
  return tokens.join(' ')
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

/** A short, stable fingerprint of the imported fields (change detection, not security). */
export function fingerprint(parts: readonly (string | number | null | undefined)[]): string {
  return Bun.hash(parts.map((p) => (p === null || p === undefined ? '\u0002' : String(p))).join('\u0001')).toString(36)
}

/** "machine-learning" → "Machine learning": a readable name for a category created on the fly. */
export function nameFromSlug(slug: string): string {
  const words = slug.replace(/-/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}
