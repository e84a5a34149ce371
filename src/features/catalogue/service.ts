// The catalogue's read side: the category tree (kept in memory per instance, reloaded when the
// database's catalogue revision moves), category listings, prompt detail and full-text search.
import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite'
import type { Db } from '../../db/sqlite/client'
import { notFound, validationFailed } from '../../http/problem'
import { categoryFacet, ftsExpression, searchTerms, snippet, subcategoryFacet, tagFacet } from './search-query'
import { catalogueWritesInProcess, REVALIDATE_MS } from './revision'
import { parseVariables, slugify, splitTags } from './text'

export interface SubcategoryView { id: string; name: string; prompt_count: number }
export interface CategoryView { id: string; name: string; description: string; icon: string; prompt_count: number; subcategories: SubcategoryView[] }

export type Sort = 'popular' | 'newest' | 'title'
export interface Page { limit: number; offset: number }

interface SummaryRow {
  seq: number
  id: string
  title: string
  description: string
  category_id: string
  subcategory_id: string | null
  tags: string
  preview: string
  favorite_count: number
  created_at: number
  updated_at: number
}

const SUMMARY_COLUMNS = 'p.seq, p.id, p.title, p.description, p.category_id, p.subcategory_id, p.tags, p.preview, p.favorite_count, p.created_at, p.updated_at'

export const summary = (r: SummaryRow) => ({
  id: r.id,
  title: r.title,
  description: r.description,
  category_id: r.category_id,
  subcategory_id: r.subcategory_id,
  tags: splitTags(r.tags),
  preview: r.preview,
  favorite_count: r.favorite_count,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
})

const ORDER: Record<Sort, string> = {
  popular: 'p.favorite_count DESC, p.created_at DESC, p.seq DESC',
  newest: 'p.created_at DESC, p.seq DESC',
  title: 'p.title COLLATE NOCASE ASC, p.seq ASC',
}

/**
 * Search counts matches up to this many, and serves pages within them. Counting every match of
 * a common word costs a pass over its whole index entries; beyond a thousand results a query
 * wants narrowing more than paging.
 */
export const SEARCH_COUNT_CAP = 1000
/** bm25 column weights over the heads index: title, description, tags, facets. */
const HEAD_BM25 = 'bm25(prompts_head_fts, 10.0, 4.0, 6.0, 0.0)'
/**
 * At most this many head matches (the newest) are ranked: only a query of little but common
 * words reaches it, and ranking every title that holds "for" would take a hundred milliseconds.
 */
const HEAD_RANK_CAP = 5000
/** How many whole words an unfinished last word may stand for (the most frequent first). */
const MAX_COMPLETIONS = 16

/** Prepared statements by SQL text: the listing and search build a handful of variants. */
function statementCache(client: Database) {
  const cache = new Map<string, Statement>()
  return <R>(sql: string) => {
    let st = cache.get(sql)
    if (!st) cache.set(sql, (st = client.prepare(sql)))
    return st as Statement<R, SQLQueryBindings[]>
  }
}

export function createCatalogue(db: Db) {
  const c = db.$client
  const prepared = statementCache(c)
  const revision = c.prepare<{ revision: number }, []>('SELECT revision FROM catalogue_state WHERE id = 1')
  const completionsOf = c.prepare<{ term: string }, [string, string]>(
    `SELECT term FROM prompts_head_vocab WHERE term > ? AND term < ? ORDER BY doc DESC LIMIT ${MAX_COMPLETIONS}`,
  )
  const countMatches = c.prepare<{ n: number }, [string]>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM prompts_fts WHERE prompts_fts MATCH ? LIMIT ${SEARCH_COUNT_CAP})`,
  )
  // One row always: the number of head matches and the page of them, best first.
  const headPage = c.prepare<{ n: number; page: string }, [string, number, number]>(
    `WITH m AS MATERIALIZED (SELECT rowid AS seq, ${HEAD_BM25} AS score FROM prompts_head_fts WHERE prompts_head_fts MATCH ?1 ORDER BY rowid DESC LIMIT ${HEAD_RANK_CAP})
     SELECT (SELECT count(*) FROM m) AS n,
            (SELECT json_group_array(seq) FROM (SELECT seq FROM m ORDER BY score, seq DESC LIMIT ?2 OFFSET ?3)) AS page`,
  )
  const contentOnlyPage = c.prepare<{ seq: number }, [string, string, number, number]>(
    `SELECT rowid AS seq FROM prompts_fts WHERE prompts_fts MATCH ?
       AND rowid NOT IN (SELECT rowid FROM prompts_head_fts WHERE prompts_head_fts MATCH ?)
     ORDER BY rowid DESC LIMIT ? OFFSET ?`,
  )
  let tree: { revision: number; list: CategoryView[]; byId: Map<string, CategoryView>; json: string } | null = null
  let checkedAt = -Infinity
  let seenLocalWrites = -1

  function loadTree(rev: number) {
    const cats = c.query<{ id: string; name: string; description: string; icon: string }, []>('SELECT id, name, description, icon FROM categories ORDER BY sort_order, id').all()
    const subs = c.query<{ category_id: string; id: string; name: string }, []>('SELECT category_id, id, name FROM subcategories ORDER BY category_id, sort_order, id').all()
    const counts = c.query<{ category_id: string; subcategory_id: string | null; n: number }, []>(
      'SELECT category_id, subcategory_id, count(*) AS n FROM prompts GROUP BY category_id, subcategory_id',
    ).all()
    const list: CategoryView[] = cats.map((cat) => ({ ...cat, prompt_count: 0, subcategories: [] }))
    const byId = new Map(list.map((cat) => [cat.id, cat]))
    for (const s of subs) byId.get(s.category_id)?.subcategories.push({ id: s.id, name: s.name, prompt_count: 0 })
    for (const row of counts) {
      const cat = byId.get(row.category_id)
      if (!cat) continue
      cat.prompt_count += row.n
      const sub = cat.subcategories.find((s) => s.id === row.subcategory_id)
      if (sub) sub.prompt_count += row.n
    }
    tree = { revision: rev, list, byId, json: JSON.stringify({ items: list }) }
    return tree
  }

  /**
   * The cached tree; the database's revision is re-read at most every REVALIDATE_MS (an import by
   * another process shows within that time) or at once after a write by this process. The tree
   * itself is reloaded only when the revision moved.
   */
  // Completions of unfinished words, remembered for the catalogue revision they were read at
  // (people type the same beginnings over and over).
  let completionCache = { revision: -1, words: new Map<string, string[]>() }
  function completionsFor(prefix: string): string[] {
    const rev = categoryTree().revision
    if (completionCache.revision !== rev) completionCache = { revision: rev, words: new Map() }
    let words = completionCache.words.get(prefix)
    if (!words) {
      words = completionsOf.all(prefix, `${prefix}\u{10ffff}`).map((r) => r.term)
      if (completionCache.words.size >= 10_000) completionCache.words.clear()
      completionCache.words.set(prefix, words)
    }
    return words
  }

  function categoryTree() {
    const now = performance.now()
    const local = catalogueWritesInProcess()
    if (tree && now - checkedAt < REVALIDATE_MS && local === seenLocalWrites) return tree
    checkedAt = now
    seenLocalWrites = local
    const rev = revision.get()?.revision ?? 0
    return tree && tree.revision === rev ? tree : loadTree(rev)
  }

  return {
    categories: () => categoryTree().list,
    /** GET /api/categories, serialised once per catalogue revision (the busiest read of all). */
    categoriesJson: () => categoryTree().json,

    category(id: string): CategoryView {
      const category = categoryTree().byId.get(id)
      if (!category) throw notFound(`There is no category "${id}".`)
      return category
    },

    listPrompts(categoryId: string, filters: { subcategory?: string; tag?: string; sort: Sort } & Page) {
      const category = this.category(categoryId)
      if (filters.subcategory !== undefined && !category.subcategories.some((s) => s.id === filters.subcategory)) {
        throw validationFailed([{ path: '/subcategory', message: `category "${categoryId}" has no subcategory "${filters.subcategory}"` }])
      }
      const where = ['p.category_id = ?']
      const args: SQLQueryBindings[] = [categoryId]
      if (filters.subcategory !== undefined) {
        where.push('p.subcategory_id = ?')
        args.push(filters.subcategory)
      }
      if (filters.tag !== undefined) {
        where.push('p.seq IN (SELECT prompt_seq FROM prompt_tags WHERE tag = ?)')
        args.push(slugify(filters.tag))
      }
      const clause = where.join(' AND ')
      const total = prepared<{ n: number }>(`SELECT count(*) AS n FROM prompts p WHERE ${clause}`).get(...args)!.n
      const rows = prepared<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM prompts p WHERE ${clause} ORDER BY ${ORDER[filters.sort]} LIMIT ? OFFSET ?`).all(
        ...args,
        filters.limit,
        filters.offset,
      )
      return { items: rows.map(summary), total, limit: filters.limit, offset: filters.offset }
    },

    /** The prompt for /api/prompts/{id}, or null. */
    prompt(id: string) {
      const row = prepared<SummaryRow & { content: string }>(`SELECT ${SUMMARY_COLUMNS}, p.content FROM prompts p WHERE p.id = ?`).get(id.toLowerCase())
      if (!row) return null
      return { ...summary(row), content: row.content, variables: parseVariables(row.content) }
    },

    /**
     * Full-text search in two tiers: prompts whose title, description or tags hold every word
     * come first, ranked by weighted bm25 over those fields (a small index, so ranking stays
     * cheap); prompts that match only with their content follow, newest first.
     */
    search(q: string, filters: { category?: string; subcategory?: string; tag?: string } & Page) {
      const terms = searchTerms(q)
      const { limit, offset } = filters
      const empty = { items: [], total: 0, limit, offset }
      if (!terms) return empty
      const facets: string[] = []
      if (filters.category !== undefined) facets.push(categoryFacet(filters.category))
      if (filters.subcategory !== undefined) facets.push(subcategoryFacet(filters.subcategory))
      if (filters.tag !== undefined) {
        const tag = slugify(filters.tag)
        if (tag === '') return empty
        facets.push(tagFacet(tag))
      }
      const last = terms.words[terms.words.length - 1]!
      const completions = terms.prefix ? completionsFor(last) : undefined
      const match = ftsExpression(terms, facets, completions)

      const total = Math.min(countMatches.get(match)!.n, SEARCH_COUNT_CAP)
      if (offset >= total) return { ...empty, total }
      const end = Math.min(offset + limit, total)
      const heads = headPage.get(match, end - offset, offset)!
      const headSeqs = JSON.parse(heads.page) as number[]
      const contentSeqs: number[] = []
      if (offset + headSeqs.length < end) {
        const tailOffset = Math.max(0, offset - heads.n)
        for (const r of contentOnlyPage.all(match, match, end - offset - headSeqs.length, tailOffset)) contentSeqs.push(r.seq)
      }
      const seqs = [...headSeqs, ...contentSeqs]
      if (seqs.length === 0) return { ...empty, total }
      const rows = new Map(
        prepared<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM prompts p WHERE p.seq IN (${seqs.map(() => '?').join(',')})`)
          .all(...seqs)
          .map((r) => [r.seq, r]),
      )
      // A head match found its words in the title, description or tags: the snippet comes from
      // there first (short texts), and the content is read only for content-only matches.
      const contents = new Map<number, string>()
      if (contentSeqs.length > 0) {
        for (const r of prepared<{ seq: number; content: string }>(
          `SELECT seq, substr(content, 1, 50000) AS content FROM prompts WHERE seq IN (${contentSeqs.map(() => '?').join(',')})`,
        ).all(...contentSeqs)) {
          contents.set(r.seq, r.content)
        }
      }
      const items = seqs.flatMap((seq) => {
        const r = rows.get(seq)
        if (!r) return []
        const content = contents.get(seq)
        const texts = content === undefined ? [r.description, r.title, r.preview] : [content, r.description, r.title]
        return [{ ...summary(r), snippet: snippet(texts, terms) }]
      })
      return { items, total, limit, offset }
    },
  }
}

export type Catalogue = ReturnType<typeof createCatalogue>
