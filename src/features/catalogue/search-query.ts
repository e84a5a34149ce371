// Turns whatever a user typed into a safe FTS5 query, and draws highlighted snippets. User text
// never reaches FTS5 as syntax: it is cut into words (letters and digits of any script), each
// word is quoted, and the expression around them is ours. So quotes, `*`, `NEAR(`, `)`, `OR`,
// `-`, `^`, `:`, NUL, lone surrogates or 5,000 characters are just text (or nothing).
import { facetToken } from './text'

/** Words that match nearly every prompt and carry no meaning for ranking. */
const STOPWORDS = new Set(
  `a about an and are as at be but by can do does for from had has have he her his how i if in into is it its me my no not of on or our she so
  than that the their them then there these they this to was we were what when where which who why will with you your`.split(/\s+/),
)

export const MAX_TERMS = 16
const MAX_TERM_LENGTH = 100
/**
 * The last word matches as a prefix from this length on. FTS5 expands a prefix into every
 * indexed word that starts with it; shorter prefixes match too much to be useful or fast.
 */
export const MIN_PREFIX = 4

export interface SearchTerms {
  /** folded words (lower case, no diacritics), the last one possibly a prefix */
  words: string[]
  prefix: boolean
}

const NON_ASCII = /[^\x00-\x7f]/
/** Lower case without diacritics, as FTS5's unicode61 tokenizer (remove_diacritics 2) sees words. */
export const fold = (word: string) => (NON_ASCII.test(word) ? word.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase() : word.toLowerCase())

const WORD = /[\p{L}\p{N}\p{M}]+/gu

/** The searchable words of a query, or null when it has none (only punctuation, emoji, …). */
export function searchTerms(q: string): SearchTerms | null {
  const all = (q.normalize('NFC').match(WORD) ?? []).map(fold).filter((w) => w !== '')
  if (all.length === 0) return null
  const meaningful = all.filter((w) => !STOPWORDS.has(w))
  const onlyStopwords = meaningful.length === 0
  const words: string[] = []
  for (const w of onlyStopwords ? all : meaningful) {
    const word = w.slice(0, MAX_TERM_LENGTH)
    if (!words.includes(word)) words.push(word)
    if (words.length === MAX_TERMS) break
  }
  const last = words[words.length - 1]!
  return { words, prefix: !onlyStopwords && [...last].length >= MIN_PREFIX }
}

const quote = (word: string) => `"${word.replaceAll('"', '""')}"`

/**
 * The FTS5 expression: every word must appear (the last one as a prefix), and each filter's
 * facet token in the `facets` column. Typed words could only match a facet token by spelling
 * its hex code exactly, so no column filter is spent on keeping them apart.
 */
export function ftsExpression(terms: SearchTerms, facets: string[] = []): string {
  const parts = terms.words.map((w, i) => quote(w) + (terms.prefix && i === terms.words.length - 1 ? '*' : ''))
  let expression = parts.join(' ')
  for (const facet of facets) expression += ` AND facets : ${quote(facet)}`
  return expression
}

export const categoryFacet = (id: string) => facetToken('c', id)
export const subcategoryFacet = (id: string) => facetToken('s', id)
export const tagFacet = (tag: string) => facetToken('t', tag)

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

export const MARK_OPEN = '<mark>'
export const MARK_CLOSE = '</mark>'
const SNIPPET_WORDS = 24
/** Only this much of a very long text is scanned for the snippet. */
const SNIPPET_SCAN = 50_000

/**
 * A window of about 24 words from the first of `texts` that contains a query word, with the
 * matching words between <mark> and </mark>. Everything else is HTML-escaped, so the snippet
 * can be inserted as HTML as it is. "…" marks text cut at either end.
 */
export function snippet(texts: string[], terms: SearchTerms): string {
  const exact = new Set(terms.prefix ? terms.words.slice(0, -1) : terms.words)
  const prefix = terms.prefix ? terms.words[terms.words.length - 1]! : null
  const isHit = (token: string) => {
    const w = fold(token)
    return exact.has(w) || (prefix !== null && w.startsWith(prefix))
  }
  // Finding the first match with one regex spares tokenising a whole long text; it cannot see
  // through diacritics, so text with non-ASCII letters is tokenised in full when it finds nothing.
  const first = firstMatchPattern(terms)
  let fallback: Region | null = null
  for (const full of texts) {
    const at = first.exec(full.slice(0, SNIPPET_SCAN))?.index ?? -1
    if (at === -1 && fallback !== null && !NON_ASCII.test(full)) continue
    // The region scanned for the best window: from a little before the first match onwards.
    const from = at === -1 ? 0 : Math.max(0, at - 120)
    const to = Math.min(full.length, at === -1 ? SNIPPET_SCAN : from + REGION)
    const region: Region = { text: full.slice(from, to), tokens: [], before: from > 0, after: to < full.length }
    region.tokens = [...region.text.matchAll(WORD)]
    if (region.tokens.length === 0) continue
    fallback ??= region
    const hits = region.tokens.map((t) => isHit(t[0]))
    if (!hits.includes(true)) continue
    // The window with the most distinct matching words, then the most matches; the first wins ties.
    const tokens = region.tokens
    let best = { start: 0, distinct: -1, total: -1 }
    for (let i = 0; i < tokens.length; i++) {
      if (!hits[i]) continue
      const start = Math.max(0, Math.min(i - 3, tokens.length - SNIPPET_WORDS))
      const seen = new Set<string>()
      let total = 0
      for (let k = start; k < Math.min(tokens.length, start + SNIPPET_WORDS); k++) {
        if (hits[k]) {
          seen.add(fold(tokens[k]![0]))
          total++
        }
      }
      if (seen.size > best.distinct || (seen.size === best.distinct && total > best.total)) best = { start, distinct: seen.size, total }
    }
    return render(region, hits, best.start)
  }
  return fallback ? render(fallback, fallback.tokens.map(() => false), 0) : ''
}

// One compiled pattern per query (a search draws up to 100 snippets with it).
const patterns = new WeakMap<SearchTerms, RegExp>()
function firstMatchPattern(terms: SearchTerms): RegExp {
  let pattern = patterns.get(terms)
  if (!pattern) {
    const words = terms.words.map((w, i) => escapeRegExp(w) + (terms.prefix && i === terms.words.length - 1 ? '[\\p{L}\\p{N}\\p{M}]*' : ''))
    pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])(?:${words.join('|')})(?![\\p{L}\\p{N}\\p{M}])`, 'iu')
    patterns.set(terms, pattern)
  }
  return pattern
}

/** How much text after the first match is searched for the best window. */
const REGION = 600

interface Region {
  text: string
  tokens: RegExpMatchArray[]
  /** text was cut before / after this region */
  before: boolean
  after: boolean
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function render({ text, tokens, before, after }: Region, hits: boolean[], start: number): string {
  const end = Math.min(tokens.length, start + SNIPPET_WORDS)
  let out = start > 0 || before ? '…' : ''
  let at = tokens[start]!.index!
  for (let k = start; k < end; k++) {
    const token = tokens[k]!
    out += escapeHtml(text.slice(at, token.index!).replace(/\s+/g, ' '))
    out += hits[k] ? MARK_OPEN + escapeHtml(token[0]) + MARK_CLOSE : escapeHtml(token[0])
    at = token.index! + token[0].length
  }
  if (end < tokens.length || after) out += '…'
  else out += escapeHtml(text.slice(at).replace(/\s+/g, ' ').trimEnd())
  return out
}
