// The words of a search, shared by both engines: whatever a user typed is cut into words (letters,
// digits and marks of any script), folded (lower case, no diacritics), stop words dropped, at most
// 16; each also kept as typed, for FTS5 to fold itself. The engines' query builders (fts5.ts for
// SQLite, tsquery.ts for PostgreSQL) only ever see these words, each quoted, so quotes, `*`,
// `NEAR(`, `)`, `OR`, `&`, `:`, NUL, lone surrogates or 5,000 characters are just text (or
// nothing). indexWords() cuts stored text the same way, for PostgreSQL's vectors, so indexed
// words and query words agree exactly.

/** Words that match nearly every prompt and carry no meaning for ranking. */
const STOPWORDS = new Set(
  `a about an and are as at be but by can do does for from had has have he her his how i if in into is it its me my no not of on or our she so
  than that the their them then there these they this to was we were what when where which who why will with you your`.split(/\s+/),
)

export const MAX_TERMS = 16
const MAX_TERM_LENGTH = 100
/**
 * The last word matches as a prefix from this length on. A prefix stands for every indexed word
 * that starts with it; shorter prefixes match too much to be useful or fast.
 */
export const MIN_PREFIX = 4

export interface SearchTerms {
  /** folded words (lower case, no diacritics), the last one possibly a prefix */
  words: string[]
  /**
   * The same words as typed (NFC): SQLite's FTS5 folds them itself, with its own Unicode tables,
   * so that they match what it indexed (fold() and FTS5 disagree on some letters: й, ά, が…).
   */
  typed: string[]
  prefix: boolean
}

export const NON_ASCII = /[^\x00-\x7f]/
/** Lower case without diacritics, as FTS5's unicode61 tokenizer (remove_diacritics 2) sees words. */
export const fold = (word: string) =>
  NON_ASCII.test(word)
    ? word
        .normalize('NFD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase()
    : word.toLowerCase()

export const WORD = /[\p{L}\p{N}\p{M}]+/gu

/** At most MAX_TERM_LENGTH code units, never half a surrogate pair. */
const cut = (word: string) => (word.length <= MAX_TERM_LENGTH ? word : word.slice(0, MAX_TERM_LENGTH).replace(/[\ud800-\udbff]$/, ''))

/** The searchable words of a query, or null when it has none (only punctuation, emoji, …). */
export function searchTerms(q: string): SearchTerms | null {
  const all = (q.normalize('NFC').match(WORD) ?? []).map((typed) => ({ word: fold(typed), typed })).filter((w) => w.word !== '')
  if (all.length === 0) return null
  const meaningful = all.filter((w) => !STOPWORDS.has(w.word))
  const onlyStopwords = meaningful.length === 0
  const words: string[] = []
  const typed: string[] = []
  for (const w of onlyStopwords ? all : meaningful) {
    const word = cut(w.word)
    if (words.includes(word)) continue
    words.push(word)
    typed.push(cut(w.typed))
    if (words.length === MAX_TERMS) break
  }
  const last = words[words.length - 1]!
  return { words, typed, prefix: !onlyStopwords && [...last].length >= MIN_PREFIX }
}

// Own copies: a global pattern carries its position (lastIndex) between calls.
const INDEX_WORD = new RegExp(WORD.source, WORD.flags)
/** WORD for text known to be ASCII, several times faster. */
const INDEX_ASCII_WORD = /[A-Za-z0-9]+/g

/**
 * Calls `each` with every word of a stored text as a query would fold it (searchTerms), in
 * order; a word folded to nothing is skipped. PostgreSQL's vectors are made of these
 * (tsquery.ts), so a stored word and a typed word match exactly when they fold alike.
 */
export function indexWords(text: string, each: (word: string) => void): void {
  const ascii = !NON_ASCII.test(text)
  const pattern = ascii ? INDEX_ASCII_WORD : INDEX_WORD
  const source = ascii ? text : text.normalize('NFC')
  pattern.lastIndex = 0
  for (let m = pattern.exec(source); m !== null; m = pattern.exec(source)) {
    const word = ascii ? m[0].toLowerCase() : fold(m[0])
    if (word !== '') each(word)
  }
}
