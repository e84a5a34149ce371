// SQLite adapter of the catalogue port. The search indexes (search.sqlite.ts reads them) are
// written here, explicitly, in the same transaction as the
// rows (an update first removes the old text: the 'delete' command needs the old values), and
// the index writes of a call (a whole file) are queued and run together at its end: any other statement that
// opens a statement journal between two FTS5 inserts makes FTS5 flush its in-memory segment, and
// one tiny segment per prompt made a large import four times slower.
// Raw prepared statements, once per connection: the write path runs 100,000 times in a big
// import (bench-search.ts), and search on every request.
import type { SQLQueryBindings } from 'bun:sqlite'
import { perConnection, statementsBySql } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage, Tx } from '../../db/storage'
import { promptFacets } from '../../lib/search/fts5'
import { joinTags, splitTags } from '../../lib/text'
import { revisionCache } from './revision-cache'
import type { CatalogueStore, CategoryExport, Outcome, PromptExport, PromptRecord, Sort } from './store'
import { DEFAULT_PROMPT_TYPE, nameFromSlug, previewOf, promptSourceHash, sameImportedText, sameTimestamps } from './text'
import { keepWordsOf, readAllWords, setWordsAside } from './search-words.sqlite'

export interface SummaryRow {
  seq: number
  id: string
  title: string
  description: string
  category_id: string
  subcategory_id: string | null
  tags: string
  type: string
  preview: string
  favorite_count: number
  created_at: number
  updated_at: number
}

export const SUMMARY_COLUMNS =
  'p.seq, p.id, p.title, p.description, p.category_id, p.subcategory_id, p.tags, p.type, p.preview, p.favorite_count, p.created_at, p.updated_at'

export const record = (r: SummaryRow): PromptRecord => ({
  id: r.id,
  title: r.title,
  description: r.description,
  categoryId: r.category_id,
  subcategoryId: r.subcategory_id,
  tags: splitTags(r.tags),
  type: r.type,
  preview: r.preview,
  favoriteCount: r.favorite_count,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
})

/** A listing's order (also a sorted search's: search.sqlite.ts). */
export const ORDER: Record<Sort, string> = {
  popular: 'p.favorite_count DESC, p.created_at DESC, p.seq DESC',
  newest: 'p.created_at DESC, p.seq DESC',
  title: 'p.title COLLATE NOCASE ASC, p.seq ASC',
}

/** A page of a category's prompts (`clause`: the WHERE conditions, `p.category_id = ?` first). */
export const listingSql = (clause: string, sort: Sort) =>
  `SELECT ${SUMMARY_COLUMNS} FROM prompts p WHERE ${clause} ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?`

const PROGRESS_EVERY = 1000
/** The indexes that only serve category listings (deferIndexes). */
const LISTING_INDEXES = ['prompts_popular', 'prompts_newest', 'prompts_title', 'prompts_subcategory']

type OldPrompt = {
  seq: number
  title: string
  description: string
  category_id: string
  subcategory_id: string | null
  type: string
  content: string
  tags: string
  facets: string
}

type ExportRow = Omit<PromptExport, 'categoryId' | 'subcategoryId' | 'tags' | 'createdAt' | 'updatedAt'> & {
  seq: number
  category_id: string
  subcategory_id: string | null
  tags: string
  created_at: number
  updated_at: number
}

/** The type's facet token (lib/search/fts5.ts): none for the default type. */
const facetType = (type: string) => (type === DEFAULT_PROMPT_TYPE ? null : type)

const statements = perConnection((db: SqliteDb) => {
  const c = db.$client
  const prepared = statementsBySql(c)
  return {
    prepared,
    revision: c.prepare<{ revision: number }, []>('SELECT revision FROM catalogue_state WHERE id = 1'),
    dataVersion: c.prepare<{ data_version: number }, []>('PRAGMA data_version'),
    // the write path
    category: c.prepare<{ name: string; description: string; icon: string; sort_order: number }, [string]>(
      'SELECT name, description, icon, sort_order FROM categories WHERE id = ?',
    ),
    outline: c.prepare<{ id: string; sub: string | null }, [string]>(
      'SELECT c.id, s.id AS sub FROM categories c LEFT JOIN subcategories s ON s.category_id = c.id WHERE c.id IN (SELECT value FROM json_each(?))',
    ),
    categoryTimes: c.prepare<{ created_at: number; updated_at: number }, [string]>('SELECT created_at, updated_at FROM categories WHERE id = ?'),
    insertCategory: c.prepare(
      'INSERT INTO categories (id, name, description, icon, sort_order, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    updateCategory: c.prepare(
      'UPDATE categories SET name = ?, description = ?, icon = ?, sort_order = ?, created_at = coalesce(?, created_at), updated_at = ? WHERE id = ?',
    ),
    maxOrder: c.prepare<{ n: number }, []>('SELECT coalesce(max(sort_order), 0) AS n FROM categories'),
    subcategory: c.prepare<{ name: string; description: string; sort_order: number }, [string, string]>(
      'SELECT name, description, sort_order FROM subcategories WHERE category_id = ? AND id = ?',
    ),
    insertSubcategory: c.prepare('INSERT INTO subcategories (category_id, id, name, description, sort_order) VALUES (?, ?, ?, ?, ?)'),
    updateSubcategory: c.prepare('UPDATE subcategories SET name = ?, description = ?, sort_order = ? WHERE category_id = ? AND id = ?'),
    // The stored prompts among a batch's ids, in one statement (bench-data.ts: one lookup per prompt was 0.3 s of 100,000).
    promptHashes: c.prepare<{ id: string; seq: number; source_hash: string; created_at: number; updated_at: number }, [string]>(
      'SELECT id, seq, source_hash, created_at, updated_at FROM prompts WHERE id IN (SELECT value FROM json_each(?))',
    ),
    oldPrompt: c.prepare<OldPrompt, [number]>(
      'SELECT seq, title, description, category_id, subcategory_id, type, content, tags, facets FROM prompts WHERE seq = ?',
    ),
    insertPrompt: c.prepare<never, SQLQueryBindings[]>(
      `INSERT INTO prompts (id, title, description, category_id, subcategory_id, tags, favorite_count, created_at, updated_at, facets, source_hash, preview, type, content)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updatePrompt: c.prepare(
      `UPDATE prompts SET title = ?, description = ?, category_id = ?, subcategory_id = ?, tags = ?, created_at = coalesce(?, created_at),
       updated_at = ?, facets = ?, source_hash = ?, preview = ?, type = ?, content = ? WHERE seq = ?`,
    ),
    refreshHash: c.prepare('UPDATE prompts SET source_hash = ? WHERE seq = ?'),
    updateTimes: c.prepare('UPDATE prompts SET created_at = coalesce(?, created_at), updated_at = coalesce(?, updated_at) WHERE seq = ?'),
    ftsInsert: c.prepare('INSERT INTO prompts_fts (rowid, title, description, content, tags, facets) VALUES (?, ?, ?, ?, ?, ?)'),
    ftsDelete: c.prepare(
      "INSERT INTO prompts_fts (prompts_fts, rowid, title, description, content, tags, facets) VALUES ('delete', ?, ?, ?, ?, ?, ?)",
    ),
    headInsert: c.prepare('INSERT INTO prompts_head_fts (rowid, title, description, tags, facets) VALUES (?, ?, ?, ?, ?)'),
    headDelete: c.prepare(
      "INSERT INTO prompts_head_fts (prompts_head_fts, rowid, title, description, tags, facets) VALUES ('delete', ?, ?, ?, ?, ?)",
    ),
    insertTag: c.prepare('INSERT OR IGNORE INTO prompt_tags (tag, prompt_seq) VALUES (?, ?)'),
    deleteTags: c.prepare('DELETE FROM prompt_tags WHERE prompt_seq = ?'),
    bump: c.prepare('UPDATE catalogue_state SET revision = revision + 1 WHERE id = 1'),
    anything: c.prepare<{ one: number }, []>('SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM categories) OR EXISTS (SELECT 1 FROM prompts)'),
  }
})

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(',')

export function sqliteCatalogueStore(storage: SqliteStorage): CatalogueStore {
  /**
   * Runs `fn` right on the transaction's connection, without a savepoint of its own: inside a
   * savepoint every statement that might fail halfway opens a statement journal, which cost a
   * 100,000-prompt import a fifth of its time (bench-search.ts). The caller's transaction is
   * what makes it atomic (a throw rolls all of it back).
   */
  const inTransaction = <T>(tx: Tx, fn: (db: SqliteDb) => T): Promise<T> => storage.read(fn, tx)
  /**
   * A listing's total, counted once per catalogue revision (revision-cache.ts): counting a
   * category of 10,000 prompts took ~220 µs, more than its page of 20 (~50 µs).
   */
  const totals = revisionCache<number>()
  const listingTotal = (db: SqliteDb, clause: string, args: SQLQueryBindings[]): number =>
    totals(
      statements(db).revision.get()?.revision ?? 0,
      JSON.stringify([clause, args]),
      () =>
        statements(db)
          .prepared<{ n: number }>(`SELECT count(*) AS n FROM prompts p WHERE ${clause}`)
          .get(...args)!.n,
    )

  /**
   * Listing pages, reused until anything is committed to the database: the read connection's
   * data_version moves with every commit of another connection (this process's writer, an
   * import), and is read in the same snapshot as the page. bench-data.ts's backup reads: the
   * statement and its rows were 38 % of the server's CPU on a listing. Not with one connection
   * (an import), whose own commits do not move it.
   */
  type Listing = { items: PromptRecord[]; total: number }
  const pages = revisionCache<Listing>(200)
  const unlessWritten = (db: SqliteDb, key: string, read: () => Listing): Listing =>
    db === storage.writer ? read() : pages(statements(db).dataVersion.get()!.data_version, key, read)

  return {
    revision: () => storage.read((db) => statements(db).revision.get()?.revision ?? 0),

    tree: () =>
      storage.read((db) => {
        const c = db.$client
        return {
          revision: statements(db).revision.get()?.revision ?? 0,
          categories: c
            .query<{ id: string; name: string; description: string; icon: string }, []>(
              'SELECT id, name, description, icon FROM categories ORDER BY sort_order, id',
            )
            .all(),
          subcategories: c
            .query<{ categoryId: string; id: string; name: string }, []>(
              'SELECT category_id AS categoryId, id, name FROM subcategories ORDER BY category_id, sort_order, id',
            )
            .all(),
          counts: c
            .query<{ categoryId: string; subcategoryId: string | null; n: number }, []>(
              'SELECT category_id AS categoryId, subcategory_id AS subcategoryId, count(*) AS n FROM prompts GROUP BY category_id, subcategory_id',
            )
            .all(),
        }
      }),

    listPrompts: (filter, sort, page) =>
      storage.read((db) => {
        const { prepared } = statements(db)
        const where = ['p.category_id = ?']
        const args: SQLQueryBindings[] = [filter.categoryId]
        if (filter.subcategoryId !== undefined) {
          where.push('p.subcategory_id = ?')
          args.push(filter.subcategoryId)
        }
        if (filter.tag !== undefined) {
          where.push('p.seq IN (SELECT prompt_seq FROM prompt_tags WHERE tag = ?)')
          args.push(filter.tag)
        }
        if (filter.type !== undefined) {
          where.push('p.type = ?')
          args.push(filter.type)
        }
        const clause = where.join(' AND ')
        return unlessWritten(db, JSON.stringify([clause, args, sort, page.limit, page.offset]), () => {
          const total = listingTotal(db, clause, args)
          const rows = prepared<SummaryRow>(listingSql(clause, sort)).all(...args, page.limit, page.offset)
          return { items: rows.map(record), total }
        })
      }),

    prompt: (id) =>
      storage.read((db) => {
        const row = statements(db)
          .prepared<SummaryRow & { content: string }>(`SELECT ${SUMMARY_COLUMNS}, p.content FROM prompts p WHERE p.id = ?`)
          .get(id)
        return row ? { ...record(row), content: row.content } : null
      }),

    // The seqs first, from a scan of the prompts_newest index (created_at and the rowid are in
    // it), then only the page's rows: the table itself holds every prompt's content.
    newestPrompts: (after, limit) =>
      storage.read((db) => {
        const where = after === null ? '' : 'WHERE (created_at, seq) < (?, ?)'
        const page = `SELECT seq FROM prompts ${where} ORDER BY created_at DESC, seq DESC LIMIT ?`
        const rows = statements(db)
          .prepared<SummaryRow & { content: string }>(
            `SELECT ${SUMMARY_COLUMNS}, p.content FROM prompts p WHERE p.seq IN (${page}) ORDER BY p.created_at DESC, p.seq DESC`,
          )
          .all(...(after === null ? [limit] : [after.createdAt, after.seq, limit]))
        const last = rows.length === limit ? rows.at(-1) : undefined
        return {
          items: rows.map((row) => ({ ...record(row), content: row.content })),
          next: last ? { createdAt: last.created_at, seq: last.seq } : null,
        }
      }),

    titles: (ids) =>
      storage.read((db) => {
        if (ids.length === 0) return []
        return statements(db)
          .prepared<{ id: string; title: string; categoryId: string }>(
            `SELECT id, title, category_id AS categoryId FROM prompts WHERE id IN (${placeholders(ids.length)})`,
          )
          .all(...ids)
      }),

    categoryOutline: (categoryIds, tx) =>
      storage.read((db) => {
        const outline = new Map<string, Set<string>>()
        for (const { id, sub } of statements(db).outline.all(JSON.stringify(categoryIds))) {
          let subs = outline.get(id)
          if (!subs) outline.set(id, (subs = new Set()))
          if (sub !== null) subs.add(sub)
        }
        return outline
      }, tx),

    upsertCategory: (input, now, tx) =>
      storage.write((db): Outcome => {
        const q = statements(db)
        const old = q.category.get(input.id)
        if (!old) {
          const createdAt = input.createdAt ?? now
          q.insertCategory.run(input.id, input.name, input.description, input.icon, input.order, createdAt, input.updatedAt ?? createdAt)
          return 'created'
        }
        const times = q.categoryTimes.get(input.id)!
        if (
          old.name === input.name &&
          old.description === input.description &&
          old.icon === input.icon &&
          old.sort_order === input.order &&
          sameTimestamps(input, { createdAt: times.created_at, updatedAt: times.updated_at })
        ) {
          return 'unchanged'
        }
        q.updateCategory.run(input.name, input.description, input.icon, input.order, input.createdAt ?? null, input.updatedAt ?? now, input.id)
        return 'updated'
      }, tx),

    ensureCategory: (id, now, tx) =>
      storage.write((db) => {
        const q = statements(db)
        if (q.category.get(id)) return false
        const order = (q.maxOrder.get()?.n ?? 0) + 1
        q.insertCategory.run(id, nameFromSlug(id), '', '📁', order, now, now)
        return true
      }, tx),

    upsertSubcategory: (categoryId, input, tx) =>
      storage.write((db): Outcome => {
        const q = statements(db)
        const old = q.subcategory.get(categoryId, input.id)
        if (!old) {
          q.insertSubcategory.run(categoryId, input.id, input.name, input.description, input.order)
          return 'created'
        }
        if (old.name === input.name && old.description === input.description && old.sort_order === input.order) return 'unchanged'
        q.updateSubcategory.run(input.name, input.description, input.order, categoryId, input.id)
        return 'updated'
      }, tx),

    upsertPrompts: (inputs, now, tx, onProgress) =>
      inTransaction(tx, (db) => {
        const q = statements(db)
        // Index writes for the end of the call: [seq, title, description, content, tags, facets], 'delete' first.
        const queue: { remove: boolean; values: [number, string, string, string, string, string] }[] = []
        // The ids of a call are unique (the port's rule): none of its writes changes what another one finds here.
        const stored = new Map(q.promptHashes.all(JSON.stringify(inputs.map((p) => p.id))).map((row) => [row.id, row]))
        const outcomes = inputs.map((p, i): Outcome => {
          if (i > 0 && i % PROGRESS_EVERY === 0) onProgress?.(i)
          const tags = joinTags(p.tags)
          const hash = promptSourceHash(p, tags)
          const existing = stored.get(p.id)
          let old: OldPrompt | undefined
          if (existing) {
            let sameText = existing.source_hash === hash
            if (!sameText) {
              old = q.oldPrompt.get(existing.seq)!
              // A hash from an earlier rule over the same text: refreshed, nothing else written.
              sameText = sameImportedText(p, tags, { ...old, categoryId: old.category_id, subcategoryId: old.subcategory_id })
              if (sameText) q.refreshHash.run(hash, existing.seq)
            }
            if (sameText) {
              if (sameTimestamps(p, { createdAt: existing.created_at, updatedAt: existing.updated_at })) return 'unchanged'
              q.updateTimes.run(p.createdAt ?? null, p.updatedAt ?? null, existing.seq)
              return 'updated'
            }
          }
          const facets = promptFacets(p.categoryId, p.subcategoryId, p.tags, facetType(p.type))
          const preview = previewOf(p.content)
          let seq: number
          if (!existing) {
            const createdAt = p.createdAt ?? now
            seq = Number(
              q.insertPrompt.run(
                p.id,
                p.title,
                p.description,
                p.categoryId,
                p.subcategoryId,
                tags,
                createdAt,
                p.updatedAt ?? createdAt,
                facets,
                hash,
                preview,
                p.type,
                p.content,
              ).lastInsertRowid,
            )
          } else {
            seq = existing.seq
            old ??= q.oldPrompt.get(seq)!
            queue.push({ remove: true, values: [seq, old.title, old.description, old.content, old.tags, old.facets] })
            q.updatePrompt.run(
              p.title,
              p.description,
              p.categoryId,
              p.subcategoryId,
              tags,
              p.createdAt ?? null,
              p.updatedAt ?? now,
              facets,
              hash,
              preview,
              p.type,
              p.content,
              seq,
            )
            q.deleteTags.run(seq)
          }
          queue.push({ remove: false, values: [seq, p.title, p.description, p.content, tags, facets] })
          for (const tag of p.tags) q.insertTag.run(tag, seq)
          return existing ? 'updated' : 'created'
        })
        // Both indexes, one after the other.
        for (const op of queue) (op.remove ? q.ftsDelete : q.ftsInsert).run(...op.values)
        for (const {
          remove,
          values: [seq, title, description, , tags, facets],
        } of queue) {
          ;(remove ? q.headDelete : q.headInsert).run(seq, title, description, tags, facets)
        }
        // The completions' words (search-words.sqlite.ts).
        keepWordsOf(
          db,
          queue.filter((op) => !op.remove).map(({ values: [, title, description, content, tags] }) => ({ title, description, content, tags })),
        )
        onProgress?.(inputs.length)
        return outcomes
      }),

    bumpRevision: async (tx) => {
      await storage.write((db) => statements(db).bump.run(), tx)
    },

    // An import into an (almost) empty catalogue drops the listing indexes, which none of its
    // statements reads, and builds each once at the end from its own definition, in the same
    // transaction: kept row by row, their random inserts overran the import's 8 MB page cache
    // (bench-data.ts, alternated: 100,000 prompts 9.8 → 8.8–9.0 s). Into a larger
    // catalogue, rebuilding from every row would cost more than it saves. The search
    // completions' words are read once at the end the same way (search-words.sqlite.ts).
    deferIndexes: (tx, written) =>
      inTransaction(tx, (db) => {
        const c = db.$client
        const rows = c.query<{ n: number }, [number]>('SELECT count(*) AS n FROM (SELECT 1 FROM prompts LIMIT ?)').get(2 * written + 1)!.n
        if (rows > 2 * written) return async () => {}
        const indexes = c
          .query<{ name: string; sql: string }, []>(
            `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'prompts' AND name IN (${LISTING_INDEXES.map((n) => `'${n}'`).join(', ')})`,
          )
          .all()
        for (const { name } of indexes) c.run(`DROP INDEX "${name}"`)
        setWordsAside(db)
        return () =>
          inTransaction(tx, (db) => {
            readAllWords(db)
            // SQLite's sorter sizes its runs by the page cache: with the import's 8 MB the builds
            // of 100,000 prompts' indexes added 24 MB to the peak (a 1,000,000-prompt import's rose
            // from 276 to 300 MB); with 1 MB, 4 MB.
            const { cache_size } = db.$client.query<{ cache_size: number }, []>('PRAGMA cache_size').get()!
            db.$client.run('PRAGMA cache_size = -1024')
            try {
              for (const { sql } of indexes) db.$client.run(sql)
            } finally {
              db.$client.run(`PRAGMA cache_size = ${cache_size}`)
            }
          })
      }),

    hasContent: (tx) => storage.read((db) => statements(db).anything.get() !== null, tx),

    // BEGIN IMMEDIATE already keeps every other writer, in this process or another, out of the transaction.
    lockDemoLoad: async () => {},

    exportCategories: (filter, tx) =>
      storage.read((db) => {
        const { prepared } = statements(db)
        const only = filter.categoryId === undefined ? [] : [filter.categoryId]
        const categories = prepared<{
          id: string
          name: string
          description: string
          icon: string
          order: number
          created_at: number
          updated_at: number
        }>(
          `SELECT id, name, description, icon, sort_order AS "order", created_at, updated_at FROM categories ${only.length ? 'WHERE id = ?' : ''}
           ORDER BY sort_order, id`,
        ).all(...only)
        const subcategories = prepared<{ category_id: string; id: string; name: string; description: string; order: number }>(
          `SELECT category_id, id, name, description, sort_order AS "order" FROM subcategories ${only.length ? 'WHERE category_id = ?' : ''}
           ORDER BY category_id, sort_order, id`,
        ).all(...only)
        const byCategory = new Map<string, CategoryExport>()
        const out = categories.map(({ created_at, updated_at, ...c }): CategoryExport => {
          const category = { ...c, createdAt: new Date(created_at), updatedAt: new Date(updated_at), subcategories: [] }
          byCategory.set(c.id, category)
          return category
        })
        for (const { category_id, ...sub } of subcategories) byCategory.get(category_id)?.subcategories.push(sub)
        return out
      }, tx),

    exportPrompts: (cursor, filter, limits, tx) =>
      storage.read((db) => {
        // `+category_id`: walk the rows in seq order (no index on the category, which would need a sort per page).
        const only = filter.categoryId === undefined ? [] : [filter.categoryId]
        const rows = statements(db)
          .prepared<ExportRow>(
            `SELECT seq, id, title, description, category_id, subcategory_id, tags, type, created_at, updated_at, content FROM prompts
             WHERE seq > ?${only.length ? ' AND +category_id = ?' : ''} ORDER BY seq`,
          )
          .iterate(cursor, ...only)
        const prompts: PromptExport[] = []
        let chars = 0
        let last = cursor
        for (const r of rows) {
          if (prompts.length > 0 && (prompts.length >= limits.rows || chars + r.content.length > limits.chars)) break
          chars += r.content.length
          last = r.seq
          prompts.push({
            id: r.id,
            title: r.title,
            description: r.description,
            categoryId: r.category_id,
            subcategoryId: r.subcategory_id,
            tags: splitTags(r.tags),
            type: r.type,
            content: r.content,
            createdAt: new Date(r.created_at),
            updatedAt: new Date(r.updated_at),
          })
        }
        return { prompts, cursor: last }
      }, tx),
  }
}
