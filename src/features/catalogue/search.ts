// The prompt search port: full-text search over the catalogue's prompts, and the upkeep of its
// index. The index itself is written by the catalogue store's write path, in the same
// transaction as the prompts (so it never disagrees with them).
import type { Tx } from '../../db/storage'
import type { SearchTerms } from '../../lib/search/terms'
import type { Page, PromptRecord } from './store'

export interface SearchQuery {
  terms: SearchTerms
  categoryId?: string
  subcategoryId?: string
  /** in slug form */
  tag?: string
  type?: string
}

/**
 * A search hit in rank order. `content` (its first 50,000 characters) comes with content-only
 * matches, whose snippet is drawn from it; a head match's snippet comes from its short fields.
 */
export interface SearchHit {
  prompt: PromptRecord
  content?: string
}

export interface PromptSearch {
  /**
   * Two tiers: prompts whose title, description or tags hold every word, best first; then those
   * that match only with their content, newest first. `total` counts matches up to `cap`.
   */
  search(query: SearchQuery, page: Page, cap: number): Promise<{ total: number; hits: SearchHit[] }>
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
