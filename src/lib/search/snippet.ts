// Highlighted snippets of search hits, the same on both engines: about 24 words around the
// matches, HTML-escaped, matching words between <mark> and </mark>. Drawing them was about a fifth
// of a search's time on the 100,000-prompt benchmark, most of it garbage: so tokens are offsets
// (a substring only for a possible match), the per-query sets are built once, and ASCII text is
// searched with a case-insensitive pattern rather than lower-cased whole.
import { SPACE_OR_CONTROL } from '../text'
import { fold, NON_ASCII, type SearchTerms, WORD } from './terms'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const NEEDS_ESCAPE = /[&<>"']/
export const escapeHtml = (text: string) => (NEEDS_ESCAPE.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text)

export const MARK_OPEN = '<mark>'
export const MARK_CLOSE = '</mark>'
const SNIPPET_WORDS = 24
const MAX_WINDOWS = 8
/** Only this much of a very long text is scanned for the snippet. */
const SNIPPET_SCAN = 50_000

/**
 * A window of about 24 words from the first of `texts` that contains a query word, with the
 * matching words between <mark> and </mark>. Everything else is HTML-escaped, so the snippet
 * can be inserted as HTML as it is; white space and control characters (the U+001F/U+001E that
 * separate the files of a multi-file skill) between words show as one space. "…" marks text cut
 * at either end.
 */
export function snippet(texts: string[], terms: SearchTerms): string {
  return draw(texts, terms, false)!
}

/**
 * snippet([content, ...rest]) drawn from only the first characters of a long content, or null
 * when they do not decide it: no match among them, or one too near their end for its window.
 * Then the content is needed as snippet() takes it (search reads only the start of a long one).
 */
export function snippetOfStart(contentStart: string, rest: string[], terms: SearchTerms): string | null {
  return draw([contentStart, ...rest], terms, true)
}

/** snippet(texts), or null when none of them holds a query word. */
export function snippetOfMatch(texts: string[], terms: SearchTerms): string | null {
  return draw(texts, terms, false, true)
}

/**
 * `startOnly`: texts[0] is the start of a longer text; null when that is not enough.
 * `matchOnly`: null instead of a fallback when no text holds a query word.
 */
function draw(texts: string[], terms: SearchTerms, startOnly: boolean, matchOnly = false): string | null {
  const matcher = matcherOf(terms)
  // Finding the first match with one regex spares tokenising a whole long text; it cannot see
  // through diacritics, so text with non-ASCII letters is tokenised in full when it finds nothing.
  let fallback: Region | null = null
  for (let t = 0; t < texts.length; t++) {
    const full = texts[t]!
    const partial = startOnly && t === 0
    const scanned = full.length > SNIPPET_SCAN ? full.slice(0, SNIPPET_SCAN) : full
    const ascii = !NON_ASCII.test(scanned)
    const at = ascii ? firstAsciiMatch(scanned, matcher) : firstMatch(scanned, matcher)
    // The first match of a start is the first of the whole text; without one, it may come later.
    if (partial && at === -1) return null
    // An ASCII text the regex found nothing in has no match: skip it (its start is only needed as
    // a fallback, made at the end if nothing matched at all).
    if (at === -1 && ascii && (scanned === full || !NON_ASCII.test(full))) continue
    // The region scanned for the best window: from a little before the first match onwards.
    // Without a regex hit only the start is tokenised: a hit hidden by diacritics sits there in
    // practice, and the start is what a fallback shows anyway (a head match's long content
    // would otherwise be tokenised whole for nothing).
    const from = at === -1 ? 0 : Math.max(0, at - 120)
    const to = Math.min(full.length, from + REGION)
    // A start decides only a region that ends inside it: the text goes on after it either way.
    if (partial && to >= full.length) return null
    const region = regionOf(full.slice(from, to), from > 0, partial || to < full.length)
    const count = region.starts.length
    if (count === 0) continue
    fallback ??= region
    // The folded word of each matching token, null for the others.
    const hitWords: (string | null)[] = new Array(count)
    let anyHit = false
    for (let i = 0; i < count; i++) {
      const word = hitWord(matcher, region, i)
      hitWords[i] = word
      if (word !== null) anyHit = true
    }
    if (!anyHit) continue
    // The window with the most distinct matching words, then the most matches; the first wins ties.
    // Windows starting near each of the first few matches are compared.
    let best = { start: 0, distinct: -1, total: -1 }
    let considered = 0
    for (let i = 0; i < count && considered < MAX_WINDOWS; i++) {
      if (hitWords[i] === null) continue
      considered++
      const start = Math.max(0, Math.min(i - 3, count - SNIPPET_WORDS))
      const seen = new Set<string>()
      let total = 0
      for (let k = start; k < Math.min(count, start + SNIPPET_WORDS); k++) {
        const word = hitWords[k]
        if (word != null) {
          seen.add(word)
          total++
        }
      }
      if (seen.size > best.distinct || (seen.size === best.distinct && total > best.total)) best = { start, distinct: seen.size, total }
    }
    return render(region, hitWords, best.start)
  }
  if (matchOnly) return null
  if (fallback === null) {
    for (const full of texts) {
      const region = regionOf(full.slice(0, REGION), false, full.length > REGION)
      if (region.starts.length > 0) {
        fallback = region
        break
      }
    }
  }
  return fallback ? render(fallback, [], 0) : ''
}

/** What a token is compared with: per query, not per snippet (a search draws up to 100). */
interface Matcher {
  terms: SearchTerms
  exact: Set<string>
  prefix: string | null
  shortest: number
  /** the first UTF-16 unit of each word */
  initials: Set<number>
  /** the first-match patterns, compiled when first needed (null: no word can match ASCII text) */
  asciiPattern?: RegExp | null
  /** the ASCII pattern, global: candidates in other text when every query word is ASCII (null: one is not) */
  asciiScan?: RegExp | null
  pattern?: RegExp
}
const matchers = new WeakMap<SearchTerms, Matcher>()
function matcherOf(terms: SearchTerms): Matcher {
  let matcher = matchers.get(terms)
  if (!matcher) {
    matcher = {
      terms,
      exact: new Set(terms.prefix ? terms.words.slice(0, -1) : terms.words),
      prefix: terms.prefix ? terms.words[terms.words.length - 1]! : null,
      shortest: Math.min(...terms.words.map((w) => w.length)),
      initials: new Set(terms.words.map((w) => w.charCodeAt(0))),
    }
    matchers.set(terms, matcher)
  }
  return matcher
}

/**
 * The folded word of token `i` when it matches a query word, else null. Most tokens are short or
 * start with a letter no query word starts with: they are ruled out before the (comparatively
 * costly) substring and folding.
 */
function hitWord(m: Matcher, { text, ascii, starts, ends }: Region, i: number): string | null {
  const start = starts[i]!
  if (ends[i]! - start < m.shortest) return null
  if (ascii) {
    const c = text.charCodeAt(start)
    if (!m.initials.has(c >= 65 && c <= 90 ? c + 32 : c)) return null
  }
  const token = text.slice(start, ends[i])
  if (!ascii && !NON_ASCII.test(token) && !m.initials.has(token[0]!.toLowerCase().charCodeAt(0))) return null
  const w = fold(token)
  return m.exact.has(w) || (m.prefix !== null && w.startsWith(m.prefix)) ? w : null
}

/**
 * Where the first query word starts in ASCII text, or -1: one case-insensitive pattern per query
 * with ASCII word boundaries (the last word, when unfinished, only at its start). Lower-casing
 * the whole text to search it with indexOf cost more than the search itself.
 */
function firstAsciiMatch(text: string, m: Matcher): number {
  const pattern = asciiPatternOf(m)
  return pattern === null ? -1 : (pattern.exec(text)?.index ?? -1)
}

/** The query's ASCII words as one case-insensitive pattern (null: none is ASCII), built once per query. */
function asciiPatternOf(m: Matcher): RegExp | null {
  if (m.asciiPattern === undefined) {
    const { words: all, prefix } = m.terms
    // A word with other letters never matches ASCII text.
    const words = all.flatMap((w, i) => (NON_ASCII.test(w) ? [] : [escapeRegExp(w) + (prefix && i === all.length - 1 ? '' : '(?![A-Za-z0-9])')]))
    m.asciiPattern = words.length === 0 ? null : new RegExp(`(?<![A-Za-z0-9])(?:${words.join('|')})`, 'i')
  }
  return m.asciiPattern
}

const LETTER_BEFORE = /[\p{L}\p{N}\p{M}]$/u
const LETTER_AFTER = /^[\p{L}\p{N}\p{M}]/u

/**
 * The same for any text: word boundaries of every script. When every query word is ASCII (most
 * queries), the ASCII pattern finds the candidates and each is checked against the letters of
 * every script around it. The Unicode pattern was the largest cost of drawing snippets in a
 * profile of bench-search.ts on PostgreSQL (whose prefix matches bring more content-only hits);
 * 8,000 snippets of generated prompts: 165 → 122 ms.
 */
function firstMatch(text: string, m: Matcher): number {
  if (m.asciiScan === undefined) {
    const ascii = asciiPatternOf(m)
    m.asciiScan = ascii === null || m.terms.words.some((w) => NON_ASCII.test(w)) ? null : new RegExp(ascii.source, 'gi')
  }
  const pattern = m.asciiScan
  if (pattern !== null) {
    pattern.lastIndex = 0
    for (let hit = pattern.exec(text); hit !== null; hit = pattern.exec(text)) {
      const at = hit.index
      const end = at + hit[0].length
      // The unfinished last word may run on into more letters; any other word ends at a boundary.
      const isPrefix = m.prefix !== null && hit[0].toLowerCase() === m.prefix
      if (LETTER_BEFORE.test(text.slice(Math.max(0, at - 2), at))) continue
      if (!isPrefix && LETTER_AFTER.test(text.slice(end, end + 2))) continue
      return at
    }
    return -1
  }
  if (m.pattern === undefined) {
    const { words: all, prefix } = m.terms
    const words = all.map((w, i) => escapeRegExp(w) + (prefix && i === all.length - 1 ? '[\\p{L}\\p{N}\\p{M}]*' : ''))
    m.pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])(?:${words.join('|')})(?![\\p{L}\\p{N}\\p{M}])`, 'iu')
  }
  return m.pattern.exec(text)?.index ?? -1
}

/** How much text around the first match is searched for the best window. */
const REGION = 400

interface Region {
  text: string
  /** the text has only ASCII characters */
  ascii: boolean
  /** where each word starts and ends in the text (offsets, not substrings: most are never needed) */
  starts: number[]
  ends: number[]
  /** text was cut before / after this region */
  before: boolean
  after: boolean
}

/** A region and its words: ASCII text by its character codes, other text with the Unicode word pattern. */
function regionOf(text: string, before: boolean, after: boolean): Region {
  const ascii = !NON_ASCII.test(text)
  const starts: number[] = []
  const ends: number[] = []
  if (ascii) {
    let start = -1
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 0
      const word = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
      if (word && start === -1) start = i
      else if (!word && start !== -1) {
        starts.push(start)
        ends.push(i)
        start = -1
      }
    }
  } else {
    WORD.lastIndex = 0
    for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
      starts.push(m.index)
      ends.push(m.index + m[0].length)
    }
  }
  return { text, ascii, starts, ends, before, after }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** `hitWords[k]` non-null: token k is a match (none given: no token is). */
function render({ text, starts, ends, before, after }: Region, hitWords: (string | null)[], start: number): string {
  const end = Math.min(starts.length, start + SNIPPET_WORDS)
  // From the very start of the text, what comes before its first word is shown too (an opening
  // quote, a "<"): cut without a "…", it misquoted the text.
  let out = start > 0 || before ? '…' : escapeHtml(text.slice(0, starts[0]).replace(SPACE_OR_CONTROL, ' ').trimStart())
  let at = starts[start]!
  for (let k = start; k < end; k++) {
    out += escapeHtml(text.slice(at, starts[k]).replace(SPACE_OR_CONTROL, ' '))
    const token = escapeHtml(text.slice(starts[k], ends[k]))
    out += hitWords[k] != null ? MARK_OPEN + token + MARK_CLOSE : token
    at = ends[k]!
  }
  if (end < starts.length || after) out += '…'
  else out += escapeHtml(text.slice(at).replace(SPACE_OR_CONTROL, ' ').trimEnd())
  return out
}
