// SQLite adapter of the prompt search port. Search runs on two external-content FTS5 indexes:
// prompts_fts (title, description, content, tags, facets: what matches) and prompts_head_fts
// (title, description, tags, facets: what ranks, with bm25); filters are facet tokens inside the
// index (lib/search/fts5.ts). The catalogue store's write path keeps both in step with the rows.
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { facetToken, ftsExpression } from '../../lib/search/fts5'
import { CONTENT_SNIPPET_CHARS, CONTENT_START_CHARS, type PromptSearch, SORTED_MATCH_CAP } from './search'
import type { Sort } from './store'
import { ORDER, placeholders, record, SUMMARY_COLUMNS, type SummaryRow } from './store.sqlite'
import { DEFAULT_PROMPT_TYPE } from './text'
import { readAllWords } from './search-words.sqlite'

/** bm25 column weights over the heads index: title, description, tags, facets. */
const HEAD_BM25 = 'bm25(prompts_head_fts, 10.0, 4.0, 6.0, 0.0)'
/**
 * At most this many head matches (the newest) are ranked: only a query of little but common
 * words reaches it, and ranking every title that holds "for" would take a hundred milliseconds.
 */
const HEAD_RANK_CAP = 5000
/**
 * How many whole words an unfinished last word may stand for; when more words of the heads begin
 * with it, it is asked as a prefix (as PostgreSQL does past 32): a cut list lost the prompts of
 * the words left out (bench-search.ts at 100,000 prompts: no change).
 */
export const MAX_COMPLETIONS = 16
const SEARCH_INDEXES = ['prompts_fts', 'prompts_head_fts'] as const
/** FTS5's defaults, and the segments one level may hold while an import defers merging. */
const FTS5_AUTOMERGE = 4
const FTS5_CRISISMERGE = 16
const DEFERRED_CRISISMERGE = 2000
/** The statements of a search (scripts/bench-search-limit.ts runs the same ones in its bare baseline). */
export const SEARCH_SQL = {
  // The words of every prompt (search-words.sqlite.ts) that begin with a prefix: a range of a b-tree.
  completionsOf: `SELECT word FROM prompt_words WHERE word > ? AND word < ? LIMIT ${MAX_COMPLETIONS + 1}`,
  countMatches: 'SELECT count(*) AS n FROM (SELECT 1 FROM prompts_fts WHERE prompts_fts MATCH ? LIMIT ?)',
  // One row always: a page of the head matches, best first. Their number is a statement of its
  // own, asked only past the last of them: counting them beside the page kept every ranked match
  // in a table read twice (bench-search.ts's 2,000 queries, the statement alone: p99 2.3–2.6 → 1.9–2.1 ms).
  headPage: `SELECT json_group_array(seq) AS page FROM (SELECT seq FROM (SELECT rowid AS seq, ${HEAD_BM25} AS score FROM prompts_head_fts WHERE prompts_head_fts MATCH ?1 ORDER BY rowid DESC LIMIT ${HEAD_RANK_CAP}) ORDER BY score, seq DESC LIMIT ?2 OFFSET ?3)`,
  headCount: `SELECT count(*) AS n FROM (SELECT 1 FROM prompts_head_fts WHERE prompts_head_fts MATCH ? ORDER BY rowid DESC LIMIT ${HEAD_RANK_CAP})`,
  contentOnlyPage: `SELECT rowid AS seq FROM prompts_fts WHERE prompts_fts MATCH ?
         AND rowid NOT IN (SELECT rowid FROM prompts_head_fts WHERE prompts_head_fts MATCH ?)
       ORDER BY rowid DESC LIMIT ? OFFSET ?`,
  summaries: (n: number) => `SELECT ${SUMMARY_COLUMNS} FROM prompts p WHERE p.seq IN (${placeholders(n)})`,
  // A page of the newest SORTED_MATCH_CAP matches in a listing's order (FTS5 walks rowids backwards natively).
  sortedPage: (sort: Sort) =>
    `SELECT ${SUMMARY_COLUMNS} FROM (SELECT rowid AS seq FROM prompts_fts WHERE prompts_fts MATCH ? ORDER BY rowid DESC LIMIT ${SORTED_MATCH_CAP}) m
       JOIN prompts p ON p.seq = m.seq ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?`,
  // A content-only match's content: whole when short, else its start (search.ts says why).
  contentStarts: (n: number) =>
    `SELECT seq, CASE WHEN length(content) <= ${CONTENT_START_CHARS} THEN content END AS content, CASE WHEN length(content) > ${CONTENT_START_CHARS} THEN substr(content, 1, ${CONTENT_START_CHARS}) END AS start FROM prompts WHERE seq IN (${placeholders(n)})`,
  contents: (n: number) => `SELECT id, substr(content, 1, ${CONTENT_SNIPPET_CHARS}) AS content FROM prompts WHERE id IN (${placeholders(n)})`,
}

const statements = perConnection((db: SqliteDb) => {
  const c = db.$client
  return {
    completionsOf: c.prepare<{ word: string }, [string, string]>(SEARCH_SQL.completionsOf),
    countMatches: c.prepare<{ n: number }, [string, number]>(SEARCH_SQL.countMatches),
    headPage: c.prepare<{ page: string }, [string, number, number]>(SEARCH_SQL.headPage),
    headCount: c.prepare<{ n: number }, [string]>(SEARCH_SQL.headCount),
    contentOnlyPage: c.prepare<{ seq: number }, [string, string, number, number]>(SEARCH_SQL.contentOnlyPage),
    sortedPage: {
      popular: c.prepare<SummaryRow, [string, number, number]>(SEARCH_SQL.sortedPage('popular')),
      newest: c.prepare<SummaryRow, [string, number, number]>(SEARCH_SQL.sortedPage('newest')),
      title: c.prepare<SummaryRow, [string, number, number]>(SEARCH_SQL.sortedPage('title')),
    } satisfies Record<Sort, unknown>,
  }
})

export function sqlitePromptSearch(storage: SqliteStorage): PromptSearch {
  const completionsOf = (db: SqliteDb, prefix: string): string[] =>
    statements(db)
      .completionsOf.all(prefix, `${prefix}\u{10ffff}`)
      .map((r) => r.word)
  /**
   * The index's words that start with the folded word, or with the word as typed in lower case:
   * FTS5 folds some letters differently (it keeps ά, й, が), and its words are what it folded.
   * Undefined when there are more than MAX_COMPLETIONS: only the prefix itself finds them all.
   */
  function completionsFor(db: SqliteDb, word: string, typed: string): string[] | undefined {
    const found = completionsOf(db, word)
    const lower = typed.toLowerCase()
    const all = lower === word ? found : [...new Set([...found, ...completionsOf(db, lower)])]
    return all.length > MAX_COMPLETIONS ? undefined : all
  }

  return {
    search: ({ terms, categoryId, subcategoryId, tag, type, sort }, { limit, offset }, cap) =>
      storage.read((db) => {
        const s = statements(db)
        const facets: string[] = []
        if (categoryId !== undefined) facets.push(facetToken('c', categoryId))
        if (subcategoryId !== undefined) facets.push(facetToken('s', subcategoryId))
        if (tag !== undefined) facets.push(facetToken('t', tag))
        // The default type has no token: "text" is every prompt without a type token.
        if (type !== undefined && type !== DEFAULT_PROMPT_TYPE) facets.push(facetToken('y', type))
        const last = terms.words.length - 1
        const completions = terms.prefix ? completionsFor(db, terms.words[last]!, terms.typed[last]!) : undefined
        const match = ftsExpression(terms, facets, completions, type === DEFAULT_PROMPT_TYPE ? ['y'] : [])

        const total = Math.min(s.countMatches.get(match, cap)!.n, cap)
        if (offset >= total) return { total, hits: [] }
        const end = Math.min(offset + limit, total)
        if (sort !== undefined) return { total, hits: s.sortedPage[sort].all(match, end - offset, offset).map((row) => ({ prompt: record(row) })) }
        const headSeqs = JSON.parse(s.headPage.get(match, end - offset, offset)!.page) as number[]
        const contentSeqs: number[] = []
        if (offset + headSeqs.length < end) {
          // The heads ran out on this page (there are offset + headSeqs.length of them) or before it.
          const heads = headSeqs.length > 0 || offset === 0 ? offset + headSeqs.length : s.headCount.get(match)!.n
          const tailOffset = Math.max(0, offset - heads)
          for (const r of s.contentOnlyPage.all(match, match, end - offset - headSeqs.length, tailOffset)) contentSeqs.push(r.seq)
        }
        const seqs = [...headSeqs, ...contentSeqs]
        if (seqs.length === 0) return { total, hits: [] }
        const rows = new Map(
          db.$client
            .query<SummaryRow, number[]>(SEARCH_SQL.summaries(seqs.length))
            .all(...seqs)
            .map((r) => [r.seq, r]),
        )
        // Content only for content-only matches: a head match's snippet comes from its short fields.
        const contents = new Map<number, { content: string | null; start: string | null }>()
        if (contentSeqs.length > 0) {
          const query = db.$client.query<{ seq: number; content: string | null; start: string | null }, number[]>(
            SEARCH_SQL.contentStarts(contentSeqs.length),
          )
          for (const r of query.all(...contentSeqs)) contents.set(r.seq, r)
        }
        const hits = seqs.flatMap((seq) => {
          const row = rows.get(seq)
          const content = contents.get(seq)
          return row ? [{ prompt: record(row), content: content?.content ?? undefined, contentStart: content?.start ?? undefined }] : []
        })
        return { total, hits }
      }),

    contents: (ids) =>
      storage.read((db) => {
        if (ids.length === 0) return new Map()
        const rows = db.$client.query<{ id: string; content: string }, string[]>(SEARCH_SQL.contents(ids.length)).all(...ids)
        return new Map(rows.map((r) => [r.id, r.content]))
      }),

    optimize: async () => {
      // FTS5 builds its index in segments as rows arrive; after a large import every query would
      // look a word up in each of them. 'optimize' merges them (about 1.5 s per 100,000 prompts).
      for (const table of SEARCH_INDEXES) await storage.write((db) => db.$client.run(`INSERT INTO ${table} (${table}) VALUES ('optimize')`))
    },

    // FTS5 merges its segments as rows arrive (automerge), and again when too many wait
    // (crisismerge); a large import is followed by 'optimize', which merges them all once, so
    // merging along the way is work done twice (bench-search.ts: a fifth of a 100,000-prompt
    // import). FTS5 keeps these settings in the index, so they are undone in the same transaction.
    deferMerges: async (tx) => {
      const set = (automerge: number, crisismerge: number) =>
        storage.read((db) => {
          for (const table of SEARCH_INDEXES) {
            db.$client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', ${automerge})`)
            db.$client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('crisismerge', ${crisismerge})`)
          }
        }, tx)
      await set(0, DEFERRED_CRISISMERGE)
      return () => set(FTS5_AUTOMERGE, FTS5_CRISISMERGE)
    },

    rebuild: async () => {
      for (const table of SEARCH_INDEXES) await storage.write((db) => db.$client.run(`INSERT INTO ${table} (${table}) VALUES ('rebuild')`))
      await storage.write(readAllWords)
    },
  }
}
