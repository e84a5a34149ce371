// Highlighted snippets of search hits, the same on both engines: about 24 words around the
// matches, HTML-escaped, matching words between <mark> and </mark>.
import { SPACE_OR_CONTROL } from '../text'
import { ASCII_WORD, fold, NON_ASCII, type SearchTerms, WORD } from './terms'

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
  const exact = new Set(terms.prefix ? terms.words.slice(0, -1) : terms.words)
  const prefix = terms.prefix ? terms.words[terms.words.length - 1]! : null
  // Most tokens are short or start with a letter no query word starts with: they are ruled out
  // before the (comparatively costly) folding.
  const shortest = Math.min(...terms.words.map((w) => w.length))
  const initials = new Set(terms.words.map((w) => w[0]))
  const isHit = (token: string) => {
    if (token.length < shortest) return false
    if (!NON_ASCII.test(token) && !initials.has(token[0]!.toLowerCase())) return false
    const w = fold(token)
    return exact.has(w) || (prefix !== null && w.startsWith(prefix))
  }
  // Finding the first match with one regex spares tokenising a whole long text; it cannot see
  // through diacritics, so text with non-ASCII letters is tokenised in full when it finds nothing.
  const first = firstMatchPattern(terms)
  let fallback: Region | null = null
  for (const full of texts) {
    const scanned = full.length > SNIPPET_SCAN ? full.slice(0, SNIPPET_SCAN) : full
    const at = NON_ASCII.test(scanned) ? (first.exec(scanned)?.index ?? -1) : firstAsciiMatch(scanned.toLowerCase(), terms)
    // An ASCII text the regex found nothing in has no match: skip it (its start is only needed as
    // a fallback, made at the end if nothing matched at all).
    if (at === -1 && !NON_ASCII.test(full)) continue
    // The region scanned for the best window: from a little before the first match onwards.
    // Without a regex hit only the start is tokenised: a hit hidden by diacritics sits there in
    // practice, and the start is what a fallback shows anyway (a head match's long content
    // would otherwise be tokenised whole for nothing).
    const from = at === -1 ? 0 : Math.max(0, at - 120)
    const to = Math.min(full.length, from + REGION)
    const region: Region = { text: full.slice(from, to), tokens: [], before: from > 0, after: to < full.length }
    region.tokens = tokenize(region.text)
    if (region.tokens.length === 0) continue
    fallback ??= region
    const hits = region.tokens.map((t) => isHit(t.text))
    if (!hits.includes(true)) continue
    // The window with the most distinct matching words, then the most matches; the first wins ties.
    // Windows starting near each of the first few matches are compared.
    const tokens = region.tokens
    const hitWords = tokens.map((t, i) => (hits[i] ? fold(t.text) : null))
    let best = { start: 0, distinct: -1, total: -1 }
    let considered = 0
    for (let i = 0; i < tokens.length && considered < MAX_WINDOWS; i++) {
      if (hitWords[i] === null) continue
      considered++
      const start = Math.max(0, Math.min(i - 3, tokens.length - SNIPPET_WORDS))
      const seen = new Set<string>()
      let total = 0
      for (let k = start; k < Math.min(tokens.length, start + SNIPPET_WORDS); k++) {
        const word = hitWords[k]
        if (word != null) {
          seen.add(word)
          total++
        }
      }
      if (seen.size > best.distinct || (seen.size === best.distinct && total > best.total)) best = { start, distinct: seen.size, total }
    }
    return render(region, hits, best.start)
  }
  fallback ??=
    texts
      .map((full) => ({ text: full.slice(0, REGION), tokens: tokenize(full.slice(0, REGION)), before: false, after: full.length > REGION }))
      .find((r) => r.tokens.length > 0) ?? null
  return fallback
    ? render(
        fallback,
        fallback.tokens.map(() => false),
        0,
      )
    : ''
}

const isWordChar = (code: number) => (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90)

/** Where the first query word starts in lower-cased ASCII text (indexOf beats a Unicode regex here), or -1. */
function firstAsciiMatch(lower: string, terms: SearchTerms): number {
  let best = -1
  terms.words.forEach((word, i) => {
    const isPrefix = terms.prefix && i === terms.words.length - 1
    for (let at = lower.indexOf(word); at !== -1 && (best === -1 || at < best); at = lower.indexOf(word, at + 1)) {
      const end = at + word.length
      if ((at === 0 || !isWordChar(lower.charCodeAt(at - 1))) && (isPrefix || end === lower.length || !isWordChar(lower.charCodeAt(end)))) {
        best = at
        break
      }
    }
  })
  return best
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

/** How much text around the first match is searched for the best window. */
const REGION = 400

interface Token {
  text: string
  index: number
}

/** The words of a text with their offsets (a plain exec loop: spreading matchAll costs more than the matching). */
function tokenize(text: string): Token[] {
  const pattern = NON_ASCII.test(text) ? WORD : ASCII_WORD
  const tokens: Token[] = []
  pattern.lastIndex = 0
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) tokens.push({ text: m[0], index: m.index })
  return tokens
}

interface Region {
  text: string
  tokens: Token[]
  /** text was cut before / after this region */
  before: boolean
  after: boolean
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function render({ text, tokens, before, after }: Region, hits: boolean[], start: number): string {
  const end = Math.min(tokens.length, start + SNIPPET_WORDS)
  let out = start > 0 || before ? '…' : ''
  let at = tokens[start]!.index
  for (let k = start; k < end; k++) {
    const token = tokens[k]!
    out += escapeHtml(text.slice(at, token.index).replace(SPACE_OR_CONTROL, ' '))
    out += hits[k] ? MARK_OPEN + escapeHtml(token.text) + MARK_CLOSE : escapeHtml(token.text)
    at = token.index + token.text.length
  }
  if (end < tokens.length || after) out += '…'
  else out += escapeHtml(text.slice(at).replace(SPACE_OR_CONTROL, ' ').trimEnd())
  return out
}
