// PostgreSQL adapter of the prompt search port. Search runs on prompt_search, one narrow row per
// prompt with two GIN-indexed vectors written from the same folded words as the query
// (lib/search/tsquery.ts): `head` (title A, tags B, description C, with positions: ranked with
// ts_rank_cd) and `words` (the distinct words of the head and the content: what matches).
// Filters are WHERE clauses. The catalogue store's write path writes the rows (searchRow);
// triggers add their words to prompt_words, where an unfinished last word finds its completions.
import { gt, type SQL, sql } from 'drizzle-orm'
import type { PgStorage } from '../../db/storage'
import { tsquery, weightedVector, wordSet } from '../../lib/search/tsquery'
import { joinTags, splitTags } from '../../lib/text'
import { catalogueState, prompts, promptSearch, promptTags, promptWords } from './schema.pg'
import { CONTENT_SNIPPET_CHARS, CONTENT_START_CHARS, type PromptSearch, SORTED_MATCH_CAP, type SearchHit, type SearchQuery } from './search'
import type { Page, PromptInput, Sort } from './store'
import { bytewise, LISTING_ORDER, record, type SummaryRow, summaryColumns } from './store.pg'

/** Rows read and written per statement by the index rebuild. */
const ROWS_PER_STATEMENT = 1000
const rowsOf = <T>(result: unknown) => result as T[]

/** ts_rank_cd weights {D, C, B, A}: title 1.0, tags 0.6, description 0.4, in the ratio of SQLite's bm25 weights (10, 6, 4). */
const HEAD_WEIGHTS = '{0.1,0.4,0.6,1.0}'
/** At most this many head matches (the newest) are ranked, as on SQLite. */
const HEAD_RANK_CAP = 5000
/**
 * An unfinished last word that begins at most this many indexed words is asked as those words:
 * the GIN index intersects their entries with the other words', where `'word':*` first gathered
 * every posting of every word it stands for (bench-search.ts: 4.2 → 2.5 ms for the statement that
 * counts). The matches are the same; with more words, or none, the query keeps `:*`.
 */
const MAX_COMPLETIONS = 32
/** At most this many prefixes' completions are remembered. */
const REMEMBERED_PREFIXES = 10_000
interface Completions {
  words: string[]
  revision: number
}
/** The catalogue's revision, as a statement's column: the one it ran at. */
const revisionNow = sql`(SELECT ${catalogueState.revision} FROM ${catalogueState} WHERE ${catalogueState.id} = 1)`

export const headVector = (p: { title: string; description: string; tags: readonly string[] }) =>
  weightedVector([
    { text: p.title, weight: 'A' },
    { text: joinTags(p.tags), weight: 'B' },
    { text: p.description, weight: 'C' },
  ])
/** The distinct words of a prompt, which its words vector holds (allVector). */
export const allWords = (p: { title: string; description: string; tags: readonly string[]; content: string }) =>
  wordSet([p.title, joinTags(p.tags), p.description, p.content])
export const allVector = (p: { title: string; description: string; tags: readonly string[]; content: string }) => [...allWords(p)].join(' ')
/**
 * Each words vector also holds its prompt's window, `w:<seq / WINDOW>` (no typed word has a
 * colon), so "the newest content-only matches" is asked window by window from the newest, and
 * the index intersects each window with the words instead of every match being visited
 * (bench-search.ts: 25 ms for a query of three common words, 1–2 ms by windows).
 */
const WINDOW = 4096
const WINDOWS_TRIED = 8
const windowTerm = (window: number) => sql`${`'w:${window}'`}::tsquery`
/**
 * A matching vector from its words (allVector: separated by single spaces) and its window:
 * split and gathered natively, where parsing the same text as a tsvector literal took PostgreSQL
 * half as long again (bench-search.ts: an import is bound by PostgreSQL's work).
 */
export const wordsVector = (words: SQL | string, seq: SQL | number) =>
  sql`array_to_tsvector(string_to_array(${words}, ' ') || ('w:' || (${seq}::bigint / ${WINDOW}))::text)`

/** A prompt's search row (prompt_search), for the query builder. */
export const searchRow = (
  seq: number,
  p: Pick<PromptInput, 'title' | 'description' | 'categoryId' | 'subcategoryId' | 'tags' | 'type' | 'content'>,
) => ({
  promptSeq: seq,
  categoryId: p.categoryId,
  subcategoryId: p.subcategoryId,
  type: p.type,
  head: sql`${headVector(p)}::tsvector`,
  words: wordsVector(allVector(p), seq),
})

export function pgPromptSearch(storage: PgStorage): PromptSearch {
  const { db } = storage
  // The search statements, planned for their words each time (PgStorage.unprepared says why).
  const planned = storage.unprepared

  /**
   * The words that begin with `prefix` (prompt_words), up to one more than MAX_COMPLETIONS, and
   * the catalogue revision they were read at: only an import adds words, and it moves the revision.
   */
  async function completionsOf(prefix: string): Promise<Completions> {
    const word = bytewise(promptWords.word)
    const [row] = rowsOf<{ words: string[]; revision: string | number }>(
      await db.execute(sql`
        SELECT ARRAY(SELECT ${promptWords.word} FROM ${promptWords} WHERE ${word} >= ${prefix} AND ${word} < ${`${prefix}\u{10ffff}`}
                     ORDER BY ${word} LIMIT ${MAX_COMPLETIONS + 1}) AS words, ${revisionNow} AS revision`),
    )
    return { words: row?.words ?? [], revision: Number(row?.revision ?? 0) }
  }
  /**
   * Completions remembered by prefix (people type the same beginnings over and over; bench-search.ts:
   * 0.2–0.3 ms a search saved). A search states the revision it ran at, and one that ran past the
   * revision of its remembered completions is asked again with fresh ones: never a stale answer.
   */
  const remembered = new Map<string, Completions>()
  function remember(prefix: string, found: Completions) {
    if (remembered.size >= REMEMBERED_PREFIXES) remembered.clear()
    remembered.set(prefix, found)
  }

  async function summaries(seqs: number[]): Promise<Map<number, SummaryRow>> {
    if (seqs.length === 0) return new Map()
    const rows = await db
      .select(summaryColumns)
      .from(prompts)
      .where(sql`${prompts.seq} = ANY(${sql.param(seqs)}::bigint[])`)
    return new Map(rows.map((r) => [r.seq, r]))
  }

  /**
   * The newest `wanted` prompts whose words match `query` (and `also`, a WHERE continuation),
   * newest first, gathered window by window (a few windows, then whatever is older in one
   * statement): the index intersects each window with the words, where "the newest matches" of a
   * common word visited every match first (bench-search.ts).
   */
  async function newestMatching(query: SQL, also: SQL, wanted: number, newest: number): Promise<number[]> {
    const s = promptSearch
    const found: number[] = []
    const take = async (where: SQL) => {
      const rows = await planned.execute(sql`
        SELECT ${s.promptSeq} AS seq FROM ${s} WHERE ${where}${also} ORDER BY ${s.promptSeq} DESC LIMIT ${wanted - found.length}`)
      for (const r of rowsOf<{ seq: string }>(rows)) found.push(Number(r.seq))
    }
    let window = Math.floor(newest / WINDOW)
    for (let tries = 0; window >= 0 && tries < WINDOWS_TRIED && found.length < wanted; window--, tries++)
      await take(sql`${s.words} @@ (${query} && ${windowTerm(window)})`)
    if (window >= 0 && found.length < wanted) await take(sql`${s.words} @@ ${query} AND ${s.promptSeq} < ${(window + 1) * WINDOW}`)
    return found
  }

  /**
   * A search in a listing's order: up to `cap` matches counted, every one named when fewer (a rare
   * word), else the newest SORTED_MATCH_CAP gathered by windows; then a page of them in that order.
   * 100,000 prompts, through the server: a word in every prompt took 71 ms when its newest matches
   * were one statement that visited every match, 17 ms by windows; rarer words 15–30 ms either way.
   */
  async function sortedPage(query: SQL, filter: SQL, sort: Sort, { limit, offset }: Page, cap: number) {
    const s = promptSearch
    const [counted] = rowsOf<{ n: number; seqs: string[] | null; newest: string | null; revision: string }>(
      await planned.execute(sql`
        SELECT count(*)::int AS n, CASE WHEN count(*) < ${cap} THEN array_agg(seq) END AS seqs,
               (SELECT max(${s.promptSeq}) FROM ${s}) AS newest, ${revisionNow} AS revision
        FROM (SELECT ${s.promptSeq} AS seq FROM ${s} WHERE ${s.words} @@ ${query}${filter} LIMIT ${cap}) m`),
    )
    const total = counted?.n ?? 0
    const revisions = [Number(counted?.revision)]
    if (offset >= total) return { answer: { total, hits: [] }, revisions }
    const seqs = counted?.seqs
      ? counted.seqs
          .map(Number)
          .sort((a, b) => b - a)
          .slice(0, SORTED_MATCH_CAP)
      : await newestMatching(query, filter, SORTED_MATCH_CAP, Number(counted?.newest ?? 0))
    const rows = await planned
      .select(summaryColumns)
      .from(prompts)
      .where(sql`${prompts.seq} = ANY(${sql.param(seqs)}::bigint[])`)
      .orderBy(...LISTING_ORDER[sort])
      .limit(Math.min(limit, total - offset))
      .offset(offset)
    return { answer: { total, hits: rows.map((row) => ({ prompt: record(row) })) }, revisions }
  }

  /** One search with these completions of the last word, and the catalogue revision each statement ran at. */
  async function searchWith(
    { terms, categoryId, subcategoryId, tag, type, sort }: SearchQuery,
    { limit, offset }: Page,
    cap: number,
    completions: string[] | undefined,
  ): Promise<{ answer: { total: number; hits: SearchHit[] }; revisions: number[] }> {
    const query = sql`${tsquery(terms, completions)}::tsquery`
    const s = promptSearch
    const filters: SQL[] = []
    if (categoryId !== undefined) filters.push(sql` AND ${s.categoryId} = ${categoryId}`)
    if (subcategoryId !== undefined) filters.push(sql` AND ${s.subcategoryId} = ${subcategoryId}`)
    if (type !== undefined) filters.push(sql` AND ${s.type} = ${type}`)
    if (tag !== undefined)
      filters.push(sql` AND EXISTS (SELECT 1 FROM ${promptTags} WHERE ${promptTags.promptSeq} = ${s.promptSeq} AND ${promptTags.tag} = ${tag})`)
    const filter = sql.join(filters)
    if (sort !== undefined) return sortedPage(query, filter, sort, { limit, offset }, cap)

    // Every candidate costs PostgreSQL a visit to its row (a GIN index answers only with a
    // bitmap; 2–4 µs a row here), so the statements visit as few as they can, side by side on
    // two connections (bench-search.ts). The first takes up to `cap` matches in any order: their
    // number is `total`, and when there are fewer than `cap` they are every match. The second
    // ranks the newest HEAD_RANK_CAP head matches, and names them all when fewer than `cap`:
    // the content-only matches are then the first's without them (where the first asked each
    // row whether its head matched too: 0.6 ms of a typical search's 2.6 ms statement).
    const matchesQuery = planned.execute(sql`
      SELECT count(*)::int AS n, CASE WHEN count(*) < ${cap} THEN array_agg(seq) END AS seqs, ${revisionNow} AS revision
      FROM (SELECT ${s.promptSeq} AS seq FROM ${s} WHERE ${s.words} @@ ${query}${filter} LIMIT ${cap}) m`)
    const headsQuery = planned.execute(sql`
      WITH m AS MATERIALIZED (
        SELECT ${s.promptSeq} AS seq, ts_rank_cd(${HEAD_WEIGHTS}::float4[], ${s.head}, ${query}, 1) AS score
        FROM ${s} WHERE ${s.head} @@ ${query}${filter} ORDER BY ${s.promptSeq} DESC LIMIT ${HEAD_RANK_CAP})
      SELECT (SELECT count(*) FROM m)::int AS n, ARRAY(SELECT seq FROM m ORDER BY score DESC, seq DESC LIMIT ${limit} OFFSET ${offset}) AS page,
             (SELECT max(${s.promptSeq}) FROM ${s}) AS newest, ${revisionNow} AS revision, CASE WHEN (SELECT count(*) FROM m) < ${cap} THEN ARRAY(SELECT seq FROM m) END AS every`)
    const [[matches], [heads]] = (await Promise.all([matchesQuery, headsQuery])) as unknown as [
      { n: number; seqs: string[] | null; revision: string }[],
      { n: number; page: string[]; newest: string | null; every: string[] | null; revision: string }[],
    ]
    const revisions = [Number(matches?.revision), Number(heads?.revision)]
    const total = matches?.n ?? 0
    if (offset >= total) return { answer: { total, hits: [] }, revisions }
    const end = Math.min(offset + limit, total)
    const headSeqs = (heads?.page ?? []).map(Number).slice(0, end - offset)
    let contentSeqs: number[] = []
    if (offset + headSeqs.length < end) {
      const tailOffset = Math.max(0, offset - (heads?.n ?? 0))
      const wanted = end - offset - headSeqs.length
      // Every match and every head match is in hand (head matches are matches, so fewer than
      // cap) unless an import came between the two statements: then as below.
      if (total < cap && heads?.every != null) {
        const head = new Set(heads.every.map(Number))
        const contentOnly = (matches?.seqs ?? []).map(Number).filter((seq) => !head.has(seq))
        contentSeqs = contentOnly.sort((a, b) => b - a).slice(tailOffset, tailOffset + wanted)
      } else {
        // At least `cap` matches: the content-only ones that make the page, newest first.
        const contentOnly = sql` AND NOT (${s.head} @@ ${query})${filter}`
        contentSeqs = (await newestMatching(query, contentOnly, tailOffset + wanted, Number(heads?.newest ?? 0))).slice(
          tailOffset,
          tailOffset + wanted,
        )
      }
    }
    const seqs = [...headSeqs, ...contentSeqs]
    if (seqs.length === 0) return { answer: { total, hits: [] }, revisions }
    // A content-only match's content: whole when short, else its start (search.ts says why). Its
    // size in bytes, known without reading it, says "short": a few longer texts of multi-byte
    // characters come as a start that is in fact whole, which snippetOfStart handles alike.
    const [rows, contents] = await Promise.all([
      summaries(seqs),
      contentSeqs.length === 0
        ? []
        : db
            .select({
              seq: prompts.seq,
              content: sql<string | null>`CASE WHEN octet_length(${prompts.content}) <= ${CONTENT_START_CHARS} THEN ${prompts.content} END`,
              start: sql<
                string | null
              >`CASE WHEN octet_length(${prompts.content}) > ${CONTENT_START_CHARS} THEN substr(${prompts.content}, 1, ${CONTENT_START_CHARS}) END`,
            })
            .from(prompts)
            .where(sql`${prompts.seq} = ANY(${sql.param(contentSeqs)}::bigint[])`),
    ])
    const contentOf = new Map(contents.map((r) => [r.seq, r]))
    const hits = seqs.flatMap((seq) => {
      const row = rows.get(seq)
      const content = contentOf.get(seq)
      return row ? [{ prompt: record(row), content: content?.content ?? undefined, contentStart: content?.start ?? undefined }] : []
    })
    return { answer: { total, hits }, revisions }
  }

  return {
    async search(q, page, cap) {
      const prefix = q.terms.prefix ? q.terms.words[q.terms.words.length - 1]! : null
      if (prefix === null) return (await searchWith(q, page, cap, undefined)).answer
      const known = remembered.get(prefix)
      for (let fresh = known === undefined; ; fresh = true) {
        const found = fresh ? await completionsOf(prefix) : known!
        const usable = found.words.length > 0 && found.words.length <= MAX_COMPLETIONS ? found.words : undefined
        const { answer, revisions } = await searchWith(q, page, cap, usable)
        // Fresh completions stand as the original did: an import in between was always possible.
        if (fresh || revisions.every((r) => r === found.revision)) {
          if (fresh) remember(prefix, found)
          return answer
        }
        remembered.delete(prefix)
      }
    },

    async contents(ids) {
      if (ids.length === 0) return new Map()
      const rows = await db
        .select({ id: prompts.id, content: sql<string>`substr(${prompts.content}, 1, ${CONTENT_SNIPPET_CHARS})` })
        .from(prompts)
        .where(sql`${prompts.id} = ANY(${sql.param(ids)}::text[])`)
      return new Map(rows.map((r) => [r.id, r.content]))
    },

    async optimize() {
      // Fresh statistics for the planner; and the search rows vacuumed: their GIN indexes'
      // pending entries (fastupdate) merged, and their pages marked all-visible, which halves
      // what a search pays per candidate row (bench-search.ts).
      // VACUUM marks a page all-visible only once the commit that wrote its rows is flushed to
      // the WAL; under synchronous_commit = off the import's commit may not be yet, and every
      // page then stayed unmarked. ANALYZE writes and commits synchronously, which flushes it.
      await db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL synchronous_commit = on`)
        await tx.execute(sql`ANALYZE ${prompts}, ${promptTags}`)
      })
      await db.execute(sql`VACUUM (ANALYZE) ${promptSearch}`)
    },

    // The GIN indexes take new entries into their pending lists; the import's VACUUM merges them.
    deferMerges: async () => async () => {},

    async rebuild() {
      for (let after = 0; ; ) {
        const rows = await db
          .select({
            seq: prompts.seq,
            title: prompts.title,
            description: prompts.description,
            categoryId: prompts.categoryId,
            subcategoryId: prompts.subcategoryId,
            tags: prompts.tags,
            type: prompts.type,
            content: prompts.content,
          })
          .from(prompts)
          .where(gt(prompts.seq, after))
          .orderBy(prompts.seq)
          .limit(ROWS_PER_STATEMENT)
        if (rows.length === 0) return
        after = rows[rows.length - 1]!.seq
        await db
          .insert(promptSearch)
          .values(rows.map((r) => searchRow(r.seq, { ...r, tags: splitTags(r.tags) })))
          .onConflictDoUpdate({
            target: promptSearch.promptSeq,
            set: {
              categoryId: sql`excluded.category_id`,
              subcategoryId: sql`excluded.subcategory_id`,
              type: sql`excluded.type`,
              head: sql`excluded.head`,
              words: sql`excluded.words`,
            },
          })
      }
    },
  }
}
