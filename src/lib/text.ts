// Pure text rules shared by the catalogue and skills: slugs and tags, label cleaning, what can be
// stored exactly, display folding of white space, change fingerprints. No storage here.

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const SLUG_MAX = 64
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isSlug = (value: string) => value.length <= SLUG_MAX && SLUG.test(value)

/**
 * Marks that decorate a letter and may be dropped from a tag: the generic combining diacritics
 * (accents, cedillas, tildes: "Café" → "cafe"), Hebrew points and Arabic harakat. Not the marks
 * a script spells its words with (Devanagari's vowel signs and virama, Thai vowels, kana's
 * voicing marks): without those, हिन्दी was हनद and ガ was カ.
 */
const DROPPED_MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05c7\u064b-\u065f\u0670]+/g

/**
 * A free-form label as a slug: "Machine Learning" → "machine-learning", "Café" → "cafe",
 * "हिन्दी" → "हिन्दी". Decomposed to drop diacritics, then composed again (NFC), so Hangul
 * syllables and voiced kana are stored as they are typed; a mark left with no letter before it
 * goes with the separator.
 */
export function slugify(value: string): string {
  const slug = value
    .normalize('NFKD')
    .replace(DROPPED_MARKS, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+\p{M}*/gu, '-')
    .replace(/^\p{M}+/u, '')
    .replace(/^-+|-+$/g, '')
  return cutAtCharacter(slug, SLUG_MAX).replace(/-+$/, '')
}

const STARTS_WITH_MARK = /^\p{M}/u
const isLeadSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair nor between a letter and its marks. */
function cutAtCharacter(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max
  while (end > 0 && (isLeadSurrogate(text.charCodeAt(end - 1)) || STARTS_WITH_MARK.test(text.slice(end, end + 2)))) end--
  return text.slice(0, end)
}

/** Tags are stored as slugs (letters of any script, digits, single hyphens), unique, in order. */
export function normaliseTags(tags: readonly string[], slug: (tag: string) => string = slugify): string[] {
  const out: string[] = []
  for (const tag of tags) {
    const t = slug(tag)
    if (t && !out.includes(t)) out.push(t)
  }
  return out
}

/** Tags are slugs, so a space never occurs in one: stored joined by spaces. */
/**
 * Whether `text` has more than `max` characters, counted as people count them: a character
 * outside the BMP (an emoji, a CJK extension ideograph) is one, though JavaScript's length says 2.
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false
  if (text.length > 2 * max) return true
  let characters = text.length
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        characters--
        i++
      }
    }
  }
  return characters > max
}

/**
 * Nothing a reader can see: white space, control and format characters only (a zero-width space,
 * joiner or mark alone). A title of those passed trim() and showed as an empty, unclickable link.
 */
export const isBlank = (text: string) => /^[\s\p{Cc}\p{Cf}]*$/u.test(text)

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
 * (catalogue/import/utf8.ts).
 */
export function unstorable(
  value: string,
  opts: { nul?: boolean; surrogates?: boolean; fromBytes?: boolean } = {},
): { index: number; problem: string } | null {
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

/** Runs of white space and control characters (U+001F between a skill's files, …): one space in display text. */
export const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]+/g

/** A short, stable fingerprint of the imported fields (change detection, not security). */
export function fingerprint(parts: readonly (string | number | null | undefined)[]): string {
  // Each part hashed on its own, seeded with the hash so far: joining them first copied every
  // prompt's content once more (an import of 100,000 prompts: 0.5 → 0.2 s of hashing).
  let hash: number | bigint = 0
  for (const part of parts) hash = Bun.hash(part === null || part === undefined ? '\u0002' : String(part), hash)
  return hash.toString(36)
}

/** Whether the timestamps an import gives (if any) are those stored (epoch milliseconds): compared apart from the text. */
export const sameTimestamps = (given: { createdAt?: number; updatedAt?: number }, stored: { createdAt: number; updatedAt: number }) =>
  (given.createdAt === undefined || given.createdAt === stored.createdAt) && (given.updatedAt === undefined || given.updatedAt === stored.updatedAt)
