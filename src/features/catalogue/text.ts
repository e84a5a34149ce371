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

// Unicode noncharacters are reserved for a program's internal use; text from outside never
// needs them, and removing them keeps imported text free of them. NUL and other C0 controls
// except tab, newline and carriage return are removed too.
const UNWANTED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufdd0-\ufdef\ufffe\uffff]/g
const HAS_UNWANTED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufdd0-\ufdef\ufffe\uffff]/
export const cleanText = (value: string) => (HAS_UNWANTED.test(value) ? value.replace(UNWANTED, '') : value)

export const PREVIEW_LENGTH = 200

/** The first ~200 characters of the content, whitespace folded, cut at a word boundary, with "…" when cut. */
export function previewOf(content: string, max = PREVIEW_LENGTH): string {
  const folded = content.slice(0, max * 4).replace(/\s+/g, ' ').trim()
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
