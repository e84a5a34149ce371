// The catalogue's one write path (the importers and the demo loader use it). Every call runs
// inside the caller's transaction, which must end with flushSearchIndex(): the full-text index
// is written explicitly, in the same transaction as the rows. prompts_fts and prompts_head_fts
// (title, description and tags: what search ranks with) are external-content FTS5 tables, so an
// update first removes the old text (the 'delete' command needs the old
// values) and then adds the new. The index writes are queued and run together at the end:
// any other statement that opens a statement journal between two FTS5 inserts makes FTS5 flush
// its in-memory segment, and one tiny segment per prompt made a large import four times slower.
// Raw prepared statements: this path runs 100,000 times in a big import.
import type { SQLQueryBindings } from 'bun:sqlite'
import type { Db } from '../../db/sqlite/client'
import { noteCatalogueWrite } from './revision'
import { fingerprint, joinTags, previewOf, promptFacets } from './text'

export type Outcome = 'created' | 'updated' | 'unchanged'

export interface CategoryInput {
  id: string
  name: string
  description: string
  icon: string
  order: number
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
  content: string
  createdAt?: number
  updatedAt?: number
}

type OldPrompt = { seq: number; title: string; description: string; content: string; tags: string; facets: string }

export function createCatalogueStore(db: Db) {
  const c = db.$client
  const q = {
    category: c.prepare<{ name: string; description: string; icon: string; sort_order: number }, [string]>(
      'SELECT name, description, icon, sort_order FROM categories WHERE id = ?',
    ),
    insertCategory: c.prepare('INSERT INTO categories (id, name, description, icon, sort_order, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    updateCategory: c.prepare('UPDATE categories SET name = ?, description = ?, icon = ?, sort_order = ?, updated_at = ? WHERE id = ?'),
    maxOrder: c.prepare<{ n: number }, []>('SELECT coalesce(max(sort_order), 0) AS n FROM categories'),
    subcategory: c.prepare<{ name: string; description: string; sort_order: number }, [string, string]>(
      'SELECT name, description, sort_order FROM subcategories WHERE category_id = ? AND id = ?',
    ),
    insertSubcategory: c.prepare('INSERT INTO subcategories (category_id, id, name, description, sort_order) VALUES (?, ?, ?, ?, ?)'),
    updateSubcategory: c.prepare('UPDATE subcategories SET name = ?, description = ?, sort_order = ? WHERE category_id = ? AND id = ?'),
    promptHash: c.prepare<{ seq: number; source_hash: string }, [string]>('SELECT seq, source_hash FROM prompts WHERE id = ?'),
    oldPrompt: c.prepare<OldPrompt, [number]>('SELECT seq, title, description, content, tags, facets FROM prompts WHERE seq = ?'),
    insertPrompt: c.prepare<never, SQLQueryBindings[]>(
      `INSERT INTO prompts (id, title, description, category_id, subcategory_id, tags, favorite_count, created_at, updated_at, facets, source_hash, preview, content)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)`,
    ),
    updatePrompt: c.prepare(
      `UPDATE prompts SET title = ?, description = ?, category_id = ?, subcategory_id = ?, tags = ?, created_at = coalesce(?, created_at),
       updated_at = ?, facets = ?, source_hash = ?, preview = ?, content = ? WHERE seq = ?`,
    ),
    ftsInsert: c.prepare('INSERT INTO prompts_fts (rowid, title, description, content, tags, facets) VALUES (?, ?, ?, ?, ?, ?)'),
    ftsDelete: c.prepare("INSERT INTO prompts_fts (prompts_fts, rowid, title, description, content, tags, facets) VALUES ('delete', ?, ?, ?, ?, ?, ?)"),
    headInsert: c.prepare('INSERT INTO prompts_head_fts (rowid, title, description, tags, facets) VALUES (?, ?, ?, ?, ?)'),
    headDelete: c.prepare("INSERT INTO prompts_head_fts (prompts_head_fts, rowid, title, description, tags, facets) VALUES ('delete', ?, ?, ?, ?, ?)"),
    insertTag: c.prepare('INSERT OR IGNORE INTO prompt_tags (tag, prompt_seq) VALUES (?, ?)'),
    deleteTags: c.prepare('DELETE FROM prompt_tags WHERE prompt_seq = ?'),
    bump: c.prepare('UPDATE catalogue_state SET revision = revision + 1 WHERE id = 1'),
    anything: c.prepare<{ one: number }, []>(
      'SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM categories) OR EXISTS (SELECT 1 FROM prompts) OR EXISTS (SELECT 1 FROM skills)',
    ),
  }

  // Index writes waiting for flushSearchIndex(): [seq, title, description, content, tags, facets], 'delete' first.
  const ftsQueue: { remove: boolean; values: [number, string, string, string, string, string] }[] = []

  return {
    categoryExists: (id: string) => q.category.get(id) !== null,
    subcategoryExists: (categoryId: string, id: string) => q.subcategory.get(categoryId, id) !== null,

    upsertCategory(input: CategoryInput, now = Date.now()): Outcome {
      const old = q.category.get(input.id)
      if (!old) {
        q.insertCategory.run(input.id, input.name, input.description, input.icon, input.order, now, now)
        return 'created'
      }
      if (old.name === input.name && old.description === input.description && old.icon === input.icon && old.sort_order === input.order) {
        return 'unchanged'
      }
      q.updateCategory.run(input.name, input.description, input.icon, input.order, now, input.id)
      return 'updated'
    },

    /** For rows that name a category the catalogue lacks (CSV): created with a name made from the slug, shown last. */
    ensureCategory(id: string, now = Date.now()): boolean {
      if (q.category.get(id)) return false
      const order = (q.maxOrder.get()?.n ?? 0) + 1
      q.insertCategory.run(id, id.charAt(0).toUpperCase() + id.slice(1).replace(/-/g, ' '), '', '📁', order, now, now)
      return true
    },

    upsertSubcategory(categoryId: string, input: SubcategoryInput): Outcome {
      const old = q.subcategory.get(categoryId, input.id)
      if (!old) {
        q.insertSubcategory.run(categoryId, input.id, input.name, input.description, input.order)
        return 'created'
      }
      if (old.name === input.name && old.description === input.description && old.sort_order === input.order) return 'unchanged'
      q.updateSubcategory.run(input.name, input.description, input.order, categoryId, input.id)
      return 'updated'
    },

    upsertPrompt(p: PromptInput, now = Date.now()): Outcome {
      const tags = joinTags(p.tags)
      const hash = fingerprint([p.title, p.description, p.categoryId, p.subcategoryId, tags, p.content, p.createdAt ?? null, p.updatedAt ?? null])
      const facets = promptFacets(p.categoryId, p.subcategoryId, p.tags)
      const existing = q.promptHash.get(p.id)
      if (existing?.source_hash === hash) return 'unchanged'
      const preview = previewOf(p.content)
      let seq: number
      if (!existing) {
        const createdAt = p.createdAt ?? now
        seq = Number(q.insertPrompt.run(p.id, p.title, p.description, p.categoryId, p.subcategoryId, tags, createdAt, p.updatedAt ?? createdAt, facets, hash, preview, p.content).lastInsertRowid)
      } else {
        seq = existing.seq
        const old = q.oldPrompt.get(seq)!
        ftsQueue.push({ remove: true, values: [seq, old.title, old.description, old.content, old.tags, old.facets] })
        q.updatePrompt.run(p.title, p.description, p.categoryId, p.subcategoryId, tags, p.createdAt ?? null, p.updatedAt ?? now, facets, hash, preview, p.content, seq)
        q.deleteTags.run(seq)
      }
      ftsQueue.push({ remove: false, values: [seq, p.title, p.description, p.content, tags, facets] })
      for (const tag of p.tags) q.insertTag.run(tag, seq)
      return existing ? 'updated' : 'created'
    },

    /** Writes the queued full-text index changes (both indexes, one after the other); call before the transaction commits. */
    flushSearchIndex(): void {
      for (const op of ftsQueue) (op.remove ? q.ftsDelete : q.ftsInsert).run(...op.values)
      for (const { remove, values: [seq, title, description, , tags, facets] } of ftsQueue) {
        ;(remove ? q.headDelete : q.headInsert).run(seq, title, description, tags, facets)
      }
      ftsQueue.length = 0
    },

    /** Tells every instance's category cache to reload; once per importing transaction. */
    bumpRevision: () => {
      q.bump.run()
      noteCatalogueWrite()
    },

    isEmpty: () => q.anything.get() === null,
  }
}

export type CatalogueStore = ReturnType<typeof createCatalogueStore>
