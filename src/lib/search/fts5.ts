// SQLite's side of search: the FTS5 expression for the words of a query (terms.ts) and the facet
// tokens that carry the filters inside the index. Used by the SQLite adapters only.
import type { SearchTerms } from './terms'

const quote = (word: string) => `"${word.replaceAll('"', '""')}"`

/**
 * The FTS5 expression: every word must appear, and each filter's facet token in the `facets`
 * column. Words go as typed: FTS5 folds them with the tokenizer that indexed the text (the
 * folded words only decide which words count and find completions). A word is one token (the
 * tokenizer keeps letters, digits and marks together, as terms.ts does), so no expression is a
 * phrase, which the whole-prompt index (detail=column) could not answer. The last word, when it
 * may be unfinished, matches as a prefix: natively (`*`), or, when `completions` are given, as
 * itself OR one of those whole words. FTS5 answers a native prefix by merging the index entries
 * of every word with that prefix before anything else; on a large index that merge is most of a
 * search's time, while an OR of whole words is read lazily like any other word. Typed words
 * could only match a facet token by spelling its hex code exactly, so no column filter is spent
 * on keeping them apart.
 */
export function ftsExpression(terms: SearchTerms, facets: string[] = [], completions?: readonly string[], withoutFacetsOf: FacetKind[] = []): string {
  const lastIndex = terms.words.length - 1
  const parts = terms.typed.map((typed, i) => {
    if (!terms.prefix || i !== lastIndex) return quote(typed)
    const word = terms.words[i]!
    if (!completions) return `${quote(typed)}*`
    const alternatives = completions.filter((c) => c !== word)
    if (alternatives.length === 0) return quote(typed)
    return `(${[typed, ...alternatives].map(quote).join(' OR ')})`
  })
  let expression = parts.join(' AND ')
  for (const facet of facets) expression += ` AND facets : ${quote(facet)}`
  // A prefix of one letter within the facets column: every facet token of that kind, whatever its value.
  for (const kind of withoutFacetsOf) expression += ` NOT facets : ${quote(kind)}*`
  return expression
}

// Search filters become tokens in the index's `facets` column: a kind letter and the value's
// UTF-8 bytes in hex, which the unicode61 tokenizer keeps as one token that no typed word matches.
// Kinds: c category, s subcategory, t tag, y type. A prompt of the default type (text) has no
// type token, so the prompts indexed before types existed need none: "text only" is "no y token".
export type FacetKind = 'c' | 's' | 't' | 'y'
const hex = (value: string) => Buffer.from(value, 'utf8').toString('hex')
// Categories, subcategories, tags and types are a small vocabulary that a large import repeats on
// every prompt: their tokens are remembered (bench-data.ts: 0.4 s of a 100,000-prompt import).
const TOKENS_KEPT = 10_000
const tokens = new Map<string, string>()
export function facetToken(kind: FacetKind, value: string): string {
  const key = kind + value
  let token = tokens.get(key)
  if (token === undefined) {
    if (tokens.size >= TOKENS_KEPT) tokens.clear()
    tokens.set(key, (token = `${kind}${hex(value)}`))
  }
  return token
}

/** `type`: null for the default type, which has no token. */
export function promptFacets(categoryId: string, subcategoryId: string | null, tags: readonly string[], type: string | null): string {
  const tokens = [facetToken('c', categoryId)]
  if (subcategoryId) tokens.push(facetToken('s', subcategoryId))
  for (const tag of tags) tokens.push(facetToken('t', tag))
  if (type !== null) tokens.push(facetToken('y', type))
  return tokens.join(' ')
}

export function skillFacets(category: string, tags: readonly string[]): string {
  return [facetToken('c', category), ...tags.map((t) => facetToken('t', t))].join(' ')
}
