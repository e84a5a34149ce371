// The catalogue port: categories, prompts, and the write path the importers use (search is its
// own port: search.ts). Every write method joins the caller's transaction (`tx`): an imported file is one
// transaction, whichever engine.
import type { Tx } from '../../db/storage'

export type Outcome = 'created' | 'updated' | 'unchanged'
export type Sort = 'popular' | 'newest' | 'title'

export interface Page {
  limit: number
  offset: number
}

export interface CategoryInput {
  id: string
  name: string
  description: string
  icon: string
  order: number
  /** epoch milliseconds; absent: the import's time (created) or kept (updated) */
  createdAt?: number
  updatedAt?: number
}

export interface SubcategoryInput {
  id: string
  name: string
  description: string
  order: number
}

export interface PromptInput {
  id: string
  title: string
  description: string
  categoryId: string
  subcategoryId: string | null
  tags: string[]
  /** `text` (the default), `structured`, `image`, …: a lower-case slug */
  type: string
  content: string
  /** epoch milliseconds; absent: the import's time (created) or kept (updated) */
  createdAt?: number
  updatedAt?: number
}

/** What the category tree is built from, read at one catalogue revision (or a later one). */
export interface TreeRows {
  revision: number
  categories: { id: string; name: string; description: string; icon: string }[]
  subcategories: { categoryId: string; id: string; name: string }[]
  counts: { categoryId: string; subcategoryId: string | null; n: number }[]
}

export interface PromptRecord {
  id: string
  title: string
  description: string
  categoryId: string
  subcategoryId: string | null
  tags: string[]
  type: string
  preview: string
  favoriteCount: number
  createdAt: Date
  updatedAt: Date
}

/** The times as stored, where an input's are optional. */
type Stored<T> = Omit<T, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date }

/** A category as an export writes it: every imported field as stored, subcategories in order. */
export type CategoryExport = Stored<CategoryInput> & { subcategories: SubcategoryInput[] }

/** A prompt as an export writes it: every imported field as stored. */
export type PromptExport = Stored<PromptInput>

export interface PromptFilter {
  categoryId: string
  subcategoryId?: string
  /** in slug form */
  tag?: string
  type?: string
}

/** Where a newest-first walk through every prompt stopped: the last prompt's creation time (epoch ms) and seq. */
export interface NewestKey {
  createdAt: number
  seq: number
}

export interface CatalogueStore {
  /** The catalogue revision: it moves with every transaction that changes categories or prompt placement. */
  revision(): Promise<number>
  tree(): Promise<TreeRows>
  listPrompts(filter: PromptFilter, sort: Sort, page: Page): Promise<{ items: PromptRecord[]; total: number }>
  prompt(id: string): Promise<(PromptRecord & { content: string }) | null>
  /**
   * Every prompt, newest first (creation time, then seq, descending), `limit` after `after`, with
   * its content (MCP prompts/list). `next` is the key of the last one when the page is full.
   */
  newestPrompts(after: NewestKey | null, limit: number): Promise<{ items: (PromptRecord & { content: string })[]; next: NewestKey | null }>
  /** Title and category of each prompt that exists, in no particular order. */
  titles(ids: string[]): Promise<{ id: string; title: string; categoryId: string }[]>

  /** The given categories that exist, each with the ids of its subcategories. */
  categoryOutline(categoryIds: string[], tx?: Tx): Promise<Map<string, Set<string>>>
  upsertCategory(input: CategoryInput, now: number, tx: Tx): Promise<Outcome>
  /** Creates a category named after its slug, shown last, when it does not exist; true when it did not. */
  ensureCategory(id: string, now: number, tx: Tx): Promise<boolean>
  upsertSubcategory(categoryId: string, input: SubcategoryInput, tx: Tx): Promise<Outcome>
  /**
   * Upserts prompts (ids unique within the call; a file's prompts in one call); a prompt whose
   * imported fields did not change is not written. `onProgress` hears how many are done. Part of
   * `tx` only: a failure midway leaves `tx` to roll back.
   */
  upsertPrompts(inputs: PromptInput[], now: number, tx: Tx, onProgress?: (done: number) => void): Promise<Outcome[]>
  /** Moves the revision, so every instance reloads its category tree; once per importing transaction. */
  bumpRevision(tx: Tx): Promise<void>
  /**
   * Many prompts follow in `tx`, `written` of them so far: where it is faster and safe, indexes the
   * import does not read (SQLite: the listing indexes; PostgreSQL: every secondary index and foreign
   * key of the prompt tables) are built once when `tx` ends rather than row by row. Returns the
   * undo (which builds them), to run before `tx` ends.
   */
  deferIndexes(tx: Tx, written: number): Promise<() => Promise<void>>
  /** true when any category or prompt exists */
  hasContent(tx?: Tx): Promise<boolean>
  /**
   * Serialises the demo loader with itself and with imports (held until `tx` ends): instances
   * that start together load it once, and one that starts during an import sees that import.
   */
  lockDemoLoad(tx: Tx): Promise<void>

  /** Every category (or the one asked for) in display order, for an export (`tx`: a snapshot). */
  exportCategories(filter: { categoryId?: string }, tx?: Tx): Promise<CategoryExport[]>
  /**
   * The next prompts after `cursor` (0 to start) in the order they were added: at most `limits.rows`,
   * and no more than `limits.chars` characters of content unless a single prompt has more. An
   * empty page ends the export; `cursor` continues it.
   */
  exportPrompts(
    cursor: number,
    filter: { categoryId?: string },
    limits: { rows: number; chars: number },
    tx?: Tx,
  ): Promise<{ prompts: PromptExport[]; cursor: number }>
}
