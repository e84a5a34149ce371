// PostgreSQL's side of search: the query and the vectors, written as tsquery and tsvector
// literals (cast with ::tsquery / ::tsvector) from the words of terms.ts. No text search parser
// or dictionary runs on either side: the lexemes are exactly the folded words, so indexed words
// and query words agree by construction, in any language and whatever the server's locale.
// Used by the PostgreSQL adapters only.
import { indexWords, NON_ASCII, type SearchTerms } from './terms'

/**
 * A lexeme is a folded word: letters, digits and nothing else (terms.ts), so it never holds the
 * quote or backslash a literal would have to escape. Stored words are cut to 200 characters (a
 * lexeme must stay under 2 KB); query words are at most 100, so the cut never hides a match.
 */
const quote = (word: string) => `'${word}'`
const MAX_LEXEME_CHARS = 200
const lexeme = (word: string) => (word.length > MAX_LEXEME_CHARS ? word.slice(0, MAX_LEXEME_CHARS) : word)
const byteLength = (word: string) => (NON_ASCII.test(word) ? Buffer.byteLength(word) : word.length)

/**
 * Every word must match; the last one, when it may be unfinished, as a prefix (`:*`), or as any of
 * `completions`: the indexed words that begin with it, all of them (the same matches as `:*`).
 */
export function tsquery(terms: SearchTerms, completions?: readonly string[]): string {
  const last = terms.words.length - 1
  return terms.words
    .map((w, i) => {
      if (!terms.prefix || i !== last) return quote(w)
      return completions ? `(${completions.map(quote).join(' | ')})` : `${quote(w)}:*`
    })
    .join(' & ')
}

/**
 * PostgreSQL refuses a tsvector whose lexemes and positions take 1 MB or more. The vectors below
 * stop taking new words before that: a text with more distinct words than fit (far beyond any
 * real prompt; five million characters of English hold a few tens of thousands) is searchable by
 * its first ones only (README, search decisions).
 */
const MAX_VECTOR_BYTES = 1_000_000
/** PostgreSQL keeps at most 256 positions per lexeme, and positions up to 16,383. */
const MAX_POSITIONS = 256
const MAX_POSITION = 16_383

export type Weight = 'A' | 'B' | 'C' | 'D'

/**
 * A ranking vector: every word with its positions and the weight of the part it came from,
 * positions counted across the parts in order (as `setweight(a, 'A') || setweight(b, 'B')`).
 */
export function weightedVector(parts: { text: string; weight: Weight }[]): string {
  const entries = new Map<string, string[]>()
  let bytes = 0
  let position = 0
  for (const { text, weight } of parts) {
    indexWords(text, (word) => {
      position = Math.min(position + 1, MAX_POSITION)
      const key = lexeme(word)
      let positions = entries.get(key)
      if (positions === undefined) {
        // the lexeme, its alignment and its position count
        const cost = byteLength(key) + 4
        if (bytes + cost > MAX_VECTOR_BYTES) return
        bytes += cost
        entries.set(key, (positions = []))
      }
      const at = `${position}${weight}`
      if (positions.length < MAX_POSITIONS && positions[positions.length - 1] !== at && bytes + 2 <= MAX_VECTOR_BYTES) {
        positions.push(at)
        bytes += 2
      }
    })
  }
  let out = ''
  for (const [word, positions] of entries) out += `${out === '' ? '' : ' '}${quote(word)}:${positions.join(',')}`
  return out
}

const NOT_WORD = /[^\p{L}\p{N}]+/gu
const NOT_ASCII_WORD = /[^A-Za-z0-9]+/g
const MARKS = /\p{M}+/gu
/**
 * Below this many bytes a folded text cannot reach MAX_VECTOR_BYTES: its distinct words take at
 * most its length plus 4 bytes for each of at most half as many words.
 */
const ALWAYS_FITS = Math.floor(MAX_VECTOR_BYTES / 3)

/**
 * The distinct words of the texts for a matching vector (each a lexeme, without positions: what
 * `@@` needs and no more). Usually the texts folded whole and split at once (the same words as
 * folded one by one: marks go first, and words are apart before lower case, so a Greek final
 * sigma is decided by its own word as in fold()): a large import builds one per prompt, and this
 * is a few native string passes where a word-by-word loop in JavaScript was the import's largest
 * cost (bench-search.ts). Very long texts and very long words take the careful way below.
 */
export function wordSet(texts: string[]): Set<string> {
  const joined = texts.join(' ')
  const ascii = !NON_ASCII.test(joined)
  const folded = (ascii ? joined.replace(NOT_ASCII_WORD, ' ') : joined.normalize('NFD').replace(MARKS, '').replace(NOT_WORD, ' '))
    .toLowerCase()
    .trim()
  if (folded === '') return new Set()
  if ((ascii ? folded.length : Buffer.byteLength(folded)) < ALWAYS_FITS) {
    const words = new Set(folded.split(' '))
    // A word too long for a lexeme is rare: looked for among the distinct words, not in the whole text.
    if (!words.values().some((word) => word.length > MAX_LEXEME_CHARS)) return words
  }
  const words = new Set<string>()
  let bytes = 0
  for (const text of texts) {
    indexWords(text, (word) => {
      const key = lexeme(word)
      if (words.has(key)) return
      const cost = byteLength(key) + 4
      if (bytes + cost > MAX_VECTOR_BYTES) return
      bytes += cost
      words.add(key)
    })
  }
  return words
}
