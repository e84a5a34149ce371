// Reads the fields of one imported record, collecting every problem instead of stopping at the
// first, so a file's report lists all of them. A lone surrogate anywhere in a record (a "\ud800"
// escape without its pair) refuses it: no text column can store one.
import { cleanText, isBlank, isSlug, longerThan, normaliseTags, SLUG_MAX, slugify, unstorable } from '../../../lib/text'
import { isStorableTime } from '../../../lib/time'
import { DEFAULT_PROMPT_TYPE } from '../text'

/**
 * An imported ISO 8601 date and time as epoch milliseconds, or what is wrong with it: years 1 to
 * 9999 in UTC (9999-12-31T23:00-05:00 is past them; lib/time.ts says why). JSON and CSV alike.
 */
export function timestampOf(value: string): number | string {
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(ms)) return 'must be an ISO 8601 timestamp such as 2026-01-31T12:00:00.000Z'
  return isStorableTime(ms) ? ms : 'must fall in the years 1 to 9999 (in UTC)'
}

export const LIMITS = {
  title: 200,
  name: 100,
  description: 1000,
  skillDescription: 1024,
  icon: 16,
  content: 5_000_000,
  tags: 20,
  type: 32,
} as const

// A large catalogue repeats a few thousand tags on every record: their slugs are remembered
// (bench-data.ts: 0.3 s of a 100,000-prompt import).
const SLUGS_KEPT = 10_000
const slugs = new Map<string, string>()
export function tagSlug(tag: string): string {
  let slug = slugs.get(tag)
  if (slug === undefined) {
    if (slugs.size >= SLUGS_KEPT) slugs.clear()
    slugs.set(tag, (slug = slugify(tag)))
  }
  return slug
}

/** Skill names that are path segments of the API: /api/skills/search is the search endpoint. */
export const RESERVED_SKILL_NAMES = ['search']

export class RecordReader {
  readonly errors: string[] = []
  readonly warnings: string[] = []

  constructor(
    readonly record: Record<string, unknown>,
    readonly known: readonly string[],
  ) {
    for (const key of Object.keys(record)) if (!known.includes(key)) this.warnings.push(`unknown field "${key}" ignored`)
  }

  /**
   * Reports every lone surrogate in the record, nested values and field names included. Walked
   * with a stack of its own, not by recursion: a value nested 100,000 deep (JSON.parse reads it)
   * must refuse or pass its record, never overflow the call stack.
   */
  refuseLoneSurrogates(): void {
    interface Node {
      value: unknown
      parent: Node | null
      /** what this value adds to its parent's path: `[3]`, `.key`, or `key` at the top */
      step: string
      /** the field name holding this value has a lone surrogate */
      badKey?: boolean
    }
    // Paths are built only for a problem found: building every one would cost depth² characters.
    const pathOf = (node: Node): string => {
      const steps: string[] = []
      for (let n: Node | null = node; n !== null; n = n.parent) steps.push(n.step)
      return steps.reverse().join('')
    }
    const stack: Node[] = [{ value: this.record, parent: null, step: '' }]
    while (stack.length > 0) {
      const node = stack.pop()!
      if (node.badKey) this.errors.push(`the field name "${pathOf(node)}" contains a lone surrogate, which cannot be stored`)
      const { value } = node
      if (typeof value === 'string') {
        const bad = unstorable(value, { nul: false })
        if (bad) this.errors.push(`"${pathOf(node)}" ${bad.problem}`)
      } else if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: node, step: `[${i}]` })
      } else if (isRecord(value)) {
        const entries = Object.entries(value)
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, item] = entries[i]!
          const step = node.parent === null ? key : `.${key}`
          stack.push({ value: item, parent: node, step, badKey: unstorable(key, { nul: false }) !== null })
        }
      }
    }
  }

  private fail(message: string): null {
    this.errors.push(message)
    return null
  }

  /**
   * A string; `max` in characters. `exact` keeps it as given, every character and the spaces at
   * its ends (a prompt's title, description and content; a skill's description and instructions),
   * except NUL, which cannot be stored and is an error; a required one must not be empty once
   * trimmed, unless `blank` allows it. Otherwise (names and labels) control characters are removed
   * and the ends trimmed.
   */
  text(key: string, opts: { required?: boolean; blank?: 'allowed'; max: number; fallback?: string; exact?: boolean }): string | null {
    const value = this.record[key]
    if (value === undefined || value === null) {
      return opts.required ? this.fail(`"${key}" is required`) : (opts.fallback ?? null)
    }
    if (typeof value !== 'string') return this.fail(`"${key}" must be a string`)
    const nul = opts.exact ? unstorable(value, { surrogates: false }) : null
    if (nul) return this.fail(`"${key}" ${nul.problem}`)
    const text = opts.exact ? value : cleanText(value).trim()
    if (opts.required && opts.blank !== 'allowed' && isBlank(text)) return this.fail(`"${key}" must not be empty`)
    if (longerThan(text, opts.max)) return this.fail(`"${key}" is longer than ${opts.max.toLocaleString('en-US')} characters`)
    return text
  }

  slug(key: string, opts: { required?: boolean } = {}): string | null {
    const value = this.record[key]
    if (value === undefined || value === null) return opts.required ? this.fail(`"${key}" is required`) : null
    if (typeof value !== 'string' || !isSlug(value)) {
      return this.fail(`"${key}" must be a slug: lowercase letters, digits and single hyphens, at most ${SLUG_MAX} characters`)
    }
    return value
  }

  /** An optional array of strings (absent → []); anything else is reported. */
  private stringArray(key: string): string[] {
    const value = this.record[key]
    if (value === undefined || value === null) return []
    if (!Array.isArray(value) || value.some((t) => typeof t !== 'string')) {
      this.fail(`"${key}" must be an array of strings`)
      return []
    }
    return value as string[]
  }

  tags(key: string): string[] {
    const tags = normaliseTags(this.stringArray(key), tagSlug)
    if (tags.length > LIMITS.tags) {
      this.warnings.push(`more than ${LIMITS.tags} tags; the first ${LIMITS.tags} kept`)
      return tags.slice(0, LIMITS.tags)
    }
    return tags
  }

  strings(key: string): string[] {
    return this.stringArray(key)
      .map((s) => cleanText(s).trim())
      .filter(Boolean)
  }

  integer(key: string, fallback: number): number {
    const value = this.record[key]
    if (value === undefined || value === null) return fallback
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.fail(`"${key}" must be a whole number`)
      return fallback
    }
    return value
  }

  /** An ISO 8601 timestamp, as epoch milliseconds (timestampOf). */
  timestamp(key: string): number | undefined {
    const value = this.record[key]
    if (value === undefined || value === null) return undefined
    const parsed = timestampOf(typeof value === 'string' ? value : '')
    if (typeof parsed === 'string') {
      this.fail(`"${key}" ${parsed}`)
      return undefined
    }
    return parsed
  }

  /**
   * A prompt's type: absent → text; otherwise a word such as TEXT, STRUCTURED or IMAGE (prompts.chat's
   * values), stored in lower case.
   */
  promptType(key: string): string {
    const value = this.record[key]
    if (value === undefined || value === null) return DEFAULT_PROMPT_TYPE
    const type = typeof value === 'string' ? value.trim().toLowerCase() : ''
    if (type === '') return DEFAULT_PROMPT_TYPE
    if (!isSlug(type) || type.length > LIMITS.type) {
      this.fail(`"${key}" must be a word such as TEXT, STRUCTURED or IMAGE (letters, digits and hyphens, at most ${LIMITS.type})`)
      return DEFAULT_PROMPT_TYPE
    }
    return type
  }

  /** A flat object of string values (SKILL.md `metadata`). */
  stringMap(key: string): Record<string, string> | null {
    const value = this.record[key]
    if (value === undefined || value === null) return null
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.warnings.push(`"${key}" must be a map of strings; ignored`)
      return null
    }
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = cleanText(String(v))
      else this.warnings.push(`"${key}.${k}" is not a string; ignored`)
    }
    return out
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
