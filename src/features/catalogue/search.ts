// The prompt search port: full-text search over the catalogue's prompts, and the upkeep of its
// index. The index itself is written by the catalogue store's write path, in the same
// transaction as the prompts (so it never disagrees with them).
import type { Tx } from '../../db/storage'
import type { SearchTerms } from '../../lib/search/terms'
import type { Page, PromptRecord, Sort } from './store'

export interface SearchQuery {
  terms: SearchTerms
  categoryId?: string
  subcategoryId?: string
  /** in slug form */
  tag?: string
  type?: string
  /** the matches in a listing's order instead of by relevance (see SORTED_MATCH_CAP) */
  sort?: Sort
}

/**
 * A search in a listing's order sorts at most this many matches, the newest: as many as a search
 * counts and pages through (SEARCH_COUNT_CAP), and a bound on what one request costs (100,000
 * prompts, SQLite: every match of a common word sorted in 150 ms with the event loop held, the
 * newest 5,000 in 8–13 ms, the newest 1,000 in 0.4–1.8 ms). A sorted page is exact unless the
 * query matches more.
 */
export const SORTED_MATCH_CAP = 1000

/**
 * A content-only match comes with its content when that is at most this long, else with the
 * content's start of this length: its snippet is drawn from there (snippetOfStart) unless the
 * first match is further on, and then from the first CONTENT_SNIPPET_CHARS (contents()).
 * bench-search.ts on PostgreSQL: a search's p50 0.3 ms lower for the text not read and sent; 3.6 %
 * of its queries read a content again (4,096 characters: 28 %, which cost more than they saved).
 */
export const CONTENT_START_CHARS = 16_384
/** The most of a content a snippet is drawn from. */
export const CONTENT_SNIPPET_CHARS = 50_000

/**
 * A search hit in rank order. A content-only match comes with `content` (the whole, when at most
 * CONTENT_START_CHARS long) or `contentStart` (its start); a head match's snippet comes from its
 * short fields. A sorted search's hits come with neither: their snippets come from the short
 * fields when these hold a word, else from contents().
 */
export interface SearchHit {
  prompt: PromptRecord
  content?: string
  contentStart?: string
}

export interface PromptSearch {
  /**
   * Two tiers: prompts whose title, description or tags hold every word, best first; then those
   * that match only with their content, newest first. With `sort`, the matches in that order
   * (SORTED_MATCH_CAP), without content (snippets come from the short fields, else contents()).
   * `total` counts matches up to `cap`.
   */
  search(query: SearchQuery, page: Page, cap: number): Promise<{ total: number; hits: SearchHit[] }>
  /** The first CONTENT_SNIPPET_CHARS characters of these prompts' contents, by prompt id. */
  contents(ids: string[]): Promise<Map<string, string>>
  /** After a large import: merge the index (SQLite) or refresh statistics and pending index entries (PostgreSQL). */
  optimize(): Promise<void>
  /** Writes the index of every prompt again from the rows (after `promptlib db copy`). */
  rebuild(): Promise<void>
  /**
   * Many prompts follow in `tx` (a large file): the index may leave merging its pieces to
   * optimize(), which a large import runs after it. Returns the undo, to run before `tx` ends.
   */
  deferMerges(tx: Tx): Promise<() => Promise<void>>
}
