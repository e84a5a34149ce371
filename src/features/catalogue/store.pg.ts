// PostgreSQL adapter of the catalogue port. Search runs on prompt_search, one narrow row per
// prompt with two GIN-indexed vectors written here from the same folded words as the query
// (lib/search/tsquery.ts): `head` (title A, tags B, description C, with positions: ranked with
// ts_rank_cd) and `words` (the distinct words of the head and the content: what matches).
// Filters are WHERE clauses. Imports write in pipelined multi-row statements (bench-search.ts).
import { type AnyColumn, and, asc, count, desc, eq, gt, inArray, type SQL, sql } from 'drizzle-orm'
import { LOCKS } from '../../db/postgres/locks'
import type { PgDb, PgStorage, PgTx } from '../../db/storage'
import { tsquery, weightedVector, wordSetVector } from '../../lib/search/tsquery'
import { joinTags, splitTags } from '../../lib/text'
import { catalogueState, categories, prompts, promptSearch, promptTags, subcategories } from './schema.pg'
import type { CatalogueStore, Outcome, PromptInput, PromptRecord, Sort } from './store'
import { nameFromSlug, previewOf, promptSourceHash } from './text'

type Db = PgDb | PgTx

const summaryColumns = {
  seq: prompts.seq,
  id: prompts.id,
  title: prompts.title,
  description: prompts.description,
  categoryId: prompts.categoryId,
  subcategoryId: prompts.subcategoryId,
  tags: prompts.tags,
  preview: prompts.preview,
  favoriteCount: prompts.favoriteCount,
  createdAt: prompts.createdAt,
  updatedAt: prompts.updatedAt,
}
interface SummaryRow {
  seq: number
  id: string
  title: string
  description: string
  categoryId: string
  subcategoryId: string | null
  tags: string
  preview: string
  favoriteCount: number
  createdAt: Date
  updatedAt: Date
}

const record = ({ seq: _, tags, ...r }: SummaryRow): PromptRecord => ({ ...r, tags: splitTags(tags) })

/** Byte order, as SQLite compares: the same listing order whatever the database's collation. */
const bytewise = (column: SQL | AnyColumn) => sql`${column} COLLATE "C"`

const ORDER: Record<Sort, SQL[]> = {
  popular: [desc(prompts.favoriteCount), desc(prompts.createdAt), desc(prompts.seq)],
  newest: [desc(prompts.createdAt), desc(prompts.seq)],
  title: [asc(bytewise(sql`lower(${prompts.title})`)), asc(prompts.seq)],
}

/** ts_rank_cd weights {D, C, B, A}: title 10, tags 6, description 4 (as SQLite's bm25 weights). */
const HEAD_WEIGHTS = '{0.1,0.4,0.6,1.0}'
/** At most this many head matches (the newest) are ranked, as on SQLite. */
const HEAD_RANK_CAP = 5000
/** Rows read or written per statement by the upsert and the index rebuild. */
const ROWS_PER_STATEMENT = 1000

const headVector = (p: { title: string; description: string; tags: readonly string[] }) =>
  weightedVector([
    { text: p.title, weight: 'A' },
    { text: joinTags(p.tags), weight: 'B' },
    { text: p.description, weight: 'C' },
  ])
const allVector = (p: { title: string; description: string; tags: readonly string[]; content: string }) =>
  wordSetVector([p.title, joinTags(p.tags), p.description, p.content])
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
 * A matching vector from its words (wordSetVector: separated by single spaces) and its window:
 * split and gathered natively, where parsing the same text as a tsvector literal took PostgreSQL
 * half as long again (bench-search.ts: an import is bound by PostgreSQL's work).
 */
const wordsVector = (words: SQL | string, seq: SQL | number) =>
  sql`array_to_tsvector(string_to_array(${words}, ' ') || ('w:' || (${seq}::bigint / ${WINDOW}))::text)`

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
const rowsOf = <T>(result: unknown) => result as T[]

export function pgCatalogueStore(storage: PgStorage): CatalogueStore {
  const { db } = storage

  async function revision(on: Db = db): Promise<number> {
    const [row] = await on.select({ revision: catalogueState.revision }).from(catalogueState).where(eq(catalogueState.id, 1))
    return row?.revision ?? 0
  }

  async function summaries(seqs: number[]): Promise<Map<number, SummaryRow>> {
    if (seqs.length === 0) return new Map()
    const rows = await db
      .select(summaryColumns)
      .from(prompts)
      .where(sql`${prompts.seq} = ANY(${sql.param(seqs)}::bigint[])`)
    return new Map(rows.map((r) => [r.seq, r]))
  }

  return {
    revision: () => revision(),

    async tree() {
      // The revision first: rows read after it are at least as new, so a change in between is
      // only read again, never missed.
      const rev = await revision()
      const [cats, subs, counts] = await Promise.all([
        db
          .select({ id: categories.id, name: categories.name, description: categories.description, icon: categories.icon })
          .from(categories)
          .orderBy(categories.sortOrder, bytewise(categories.id)),
        db
          .select({ categoryId: subcategories.categoryId, id: subcategories.id, name: subcategories.name })
          .from(subcategories)
          .orderBy(bytewise(subcategories.categoryId), subcategories.sortOrder, bytewise(subcategories.id)),
        db
          .select({ categoryId: prompts.categoryId, subcategoryId: prompts.subcategoryId, n: count() })
          .from(prompts)
          .groupBy(prompts.categoryId, prompts.subcategoryId),
      ])
      return { revision: rev, categories: cats, subcategories: subs, counts }
    },

    async listPrompts(filter, sort, page) {
      const where = and(
        eq(prompts.categoryId, filter.categoryId),
        filter.subcategoryId === undefined ? undefined : eq(prompts.subcategoryId, filter.subcategoryId),
        filter.tag === undefined
          ? undefined
          : inArray(prompts.seq, db.select({ seq: promptTags.promptSeq }).from(promptTags).where(eq(promptTags.tag, filter.tag))),
      )
      const [[total], rows] = await Promise.all([
        db.select({ n: count() }).from(prompts).where(where),
        db
          .select(summaryColumns)
          .from(prompts)
          .where(where)
          .orderBy(...ORDER[sort])
          .limit(page.limit)
          .offset(page.offset),
      ])
      return { items: rows.map(record), total: total?.n ?? 0 }
    },

    async prompt(id) {
      const [row] = await db
        .select({ ...summaryColumns, content: prompts.content })
        .from(prompts)
        .where(eq(prompts.id, id))
      return row ? { ...record(row), content: row.content } : null
    },

    async titles(ids) {
      if (ids.length === 0) return []
      return db.select({ id: prompts.id, title: prompts.title, categoryId: prompts.categoryId }).from(prompts).where(inArray(prompts.id, ids))
    },

    async search({ terms, categoryId, subcategoryId, tag }, { limit, offset }, cap) {
      const query = sql`${tsquery(terms)}::tsquery`
      const s = promptSearch
      const filters: SQL[] = []
      if (categoryId !== undefined) filters.push(sql` AND ${s.categoryId} = ${categoryId}`)
      if (subcategoryId !== undefined) filters.push(sql` AND ${s.subcategoryId} = ${subcategoryId}`)
      if (tag !== undefined)
        filters.push(sql` AND EXISTS (SELECT 1 FROM ${promptTags} WHERE ${promptTags.promptSeq} = ${s.promptSeq} AND ${promptTags.tag} = ${tag})`)
      const filter = sql.join(filters)

      // Every candidate costs PostgreSQL a visit to its row (a GIN index answers only with a
      // bitmap; 2–4 µs a row here), so the statements visit as few as they can, side by side on
      // two connections (bench-search.ts). The first takes up to `cap` matches in any order: their
      // number is `total`, and when there are fewer than `cap` they are every match, so the
      // content-only ones come from it too. The second ranks the newest HEAD_RANK_CAP head matches.
      const matchesQuery = db.execute(sql`
        SELECT count(*)::int AS n, coalesce(array_agg(seq ORDER BY seq DESC) FILTER (WHERE NOT head_match), '{}') AS content_only
        FROM (SELECT ${s.promptSeq} AS seq, ${s.head} @@ ${query} AS head_match FROM ${s} WHERE ${s.words} @@ ${query}${filter} LIMIT ${cap}) m`)
      const headsQuery = db.execute(sql`
        WITH m AS MATERIALIZED (
          SELECT ${s.promptSeq} AS seq, ts_rank_cd(${HEAD_WEIGHTS}::float4[], ${s.head}, ${query}, 1) AS score
          FROM ${s} WHERE ${s.head} @@ ${query}${filter} ORDER BY ${s.promptSeq} DESC LIMIT ${HEAD_RANK_CAP})
        SELECT (SELECT count(*) FROM m)::int AS n, ARRAY(SELECT seq FROM m ORDER BY score DESC, seq DESC LIMIT ${limit} OFFSET ${offset}) AS page,
               (SELECT max(${s.promptSeq}) FROM ${s}) AS newest`)
      const [[matches], [heads]] = (await Promise.all([matchesQuery, headsQuery])) as unknown as [
        { n: number; content_only: string[] }[],
        { n: number; page: string[]; newest: string | null }[],
      ]
      const total = matches?.n ?? 0
      if (offset >= total) return { total, hits: [] }
      const end = Math.min(offset + limit, total)
      const headSeqs = (heads?.page ?? []).map(Number).slice(0, end - offset)
      let contentSeqs: number[] = []
      if (offset + headSeqs.length < end) {
        const tailOffset = Math.max(0, offset - (heads?.n ?? 0))
        const wanted = end - offset - headSeqs.length
        if (total < cap) contentSeqs = (matches?.content_only ?? []).slice(tailOffset, tailOffset + wanted).map(Number)
        else {
          // At least `cap` matches: the content-only ones that make the page, newest first,
          // gathered window by window (a few windows, then whatever is older in one statement).
          const content = (where: SQL) =>
            db.execute(sql`
              SELECT ${s.promptSeq} AS seq FROM ${s}
              WHERE ${where} AND NOT (${s.head} @@ ${query})${filter}
              ORDER BY ${s.promptSeq} DESC LIMIT ${tailOffset + wanted - contentSeqs.length}`)
          let window = Math.floor(Number(heads?.newest ?? 0) / WINDOW)
          for (let tries = 0; window >= 0 && tries < WINDOWS_TRIED && contentSeqs.length < tailOffset + wanted; window--, tries++) {
            for (const r of rowsOf<{ seq: string }>(await content(sql`${s.words} @@ (${query} && ${windowTerm(window)})`)))
              contentSeqs.push(Number(r.seq))
          }
          if (window >= 0 && contentSeqs.length < tailOffset + wanted) {
            const older = sql`${s.words} @@ ${query} AND ${s.promptSeq} < ${(window + 1) * WINDOW}`
            for (const r of rowsOf<{ seq: string }>(await content(older))) contentSeqs.push(Number(r.seq))
          }
          contentSeqs = contentSeqs.slice(tailOffset, tailOffset + wanted)
        }
      }
      const seqs = [...headSeqs, ...contentSeqs]
      if (seqs.length === 0) return { total, hits: [] }
      const [rows, contents] = await Promise.all([
        summaries(seqs),
        contentSeqs.length === 0
          ? []
          : db
              .select({ seq: prompts.seq, content: sql<string>`substr(${prompts.content}, 1, 50000)` })
              .from(prompts)
              .where(sql`${prompts.seq} = ANY(${sql.param(contentSeqs)}::bigint[])`),
      ])
      const contentOf = new Map(contents.map((r) => [r.seq, r.content]))
      const hits = seqs.flatMap((seq) => {
        const row = rows.get(seq)
        return row ? [{ prompt: record(row), content: contentOf.get(seq) }] : []
      })
      return { total, hits }
    },

    async categoryOutline(categoryIds, tx) {
      const outline = new Map<string, Set<string>>()
      if (categoryIds.length === 0) return outline
      const rows = await storage
        .use(tx)
        .select({ id: categories.id, sub: subcategories.id })
        .from(categories)
        .leftJoin(subcategories, eq(subcategories.categoryId, categories.id))
        .where(sql`${categories.id} = ANY(${sql.param(categoryIds)}::text[])`)
      for (const { id, sub } of rows) {
        let subs = outline.get(id)
        if (!subs) outline.set(id, (subs = new Set()))
        if (sub !== null) subs.add(sub)
      }
      return outline
    },

    async upsertCategory(input, now, tx) {
      const on = storage.use(tx)
      const [old] = await on.select().from(categories).where(eq(categories.id, input.id))
      const values = { name: input.name, description: input.description, icon: input.icon, sortOrder: input.order }
      if (!old) {
        await on.insert(categories).values({ id: input.id, ...values, createdAt: new Date(now), updatedAt: new Date(now) })
        return 'created'
      }
      if (old.name === input.name && old.description === input.description && old.icon === input.icon && old.sortOrder === input.order)
        return 'unchanged'
      await on
        .update(categories)
        .set({ ...values, updatedAt: new Date(now) })
        .where(eq(categories.id, input.id))
      return 'updated'
    },

    async ensureCategory(id, now, tx) {
      const on = storage.use(tx)
      const [max] = await on.select({ n: sql<number>`coalesce(max(${categories.sortOrder}), 0)::int` }).from(categories)
      const created = await on
        .insert(categories)
        .values({
          id,
          name: nameFromSlug(id),
          description: '',
          icon: '📁',
          sortOrder: (max?.n ?? 0) + 1,
          createdAt: new Date(now),
          updatedAt: new Date(now),
        })
        .onConflictDoNothing()
        .returning({ id: categories.id })
      return created.length > 0
    },

    async upsertSubcategory(categoryId, input, tx) {
      const on = storage.use(tx)
      const [old] = await on
        .select()
        .from(subcategories)
        .where(and(eq(subcategories.categoryId, categoryId), eq(subcategories.id, input.id)))
      const values = { name: input.name, description: input.description, sortOrder: input.order }
      if (!old) {
        await on.insert(subcategories).values({ categoryId, id: input.id, ...values })
        return 'created'
      }
      if (old.name === input.name && old.description === input.description && old.sortOrder === input.order) return 'unchanged'
      await on
        .update(subcategories)
        .set(values)
        .where(and(eq(subcategories.categoryId, categoryId), eq(subcategories.id, input.id)))
      return 'updated'
    },

    upsertPrompts: (inputs, now, tx, onProgress) => upsertPrompts(storage.use(tx), inputs, now, onProgress),

    async bumpRevision(tx) {
      await storage
        .use(tx)
        .update(catalogueState)
        .set({ revision: sql`${catalogueState.revision} + 1` })
        .where(eq(catalogueState.id, 1))
    },

    async hasContent(tx) {
      const [row] = rowsOf<{ any: boolean }>(
        await storage.use(tx).execute(sql`SELECT EXISTS (SELECT 1 FROM ${categories}) OR EXISTS (SELECT 1 FROM ${prompts}) AS any`),
      )
      return row?.any === true
    },

    async lockDemoLoad(tx) {
      await storage.use(tx).execute(sql`SELECT pg_advisory_xact_lock(${LOCKS.demoCatalogue})`)
    },

    async optimizeSearchIndex() {
      // Fresh statistics for the planner; and the search rows vacuumed: their GIN indexes'
      // pending entries (fastupdate) merged, and their pages marked all-visible, which halves
      // what a search pays per candidate row (bench-search.ts).
      await db.execute(sql`ANALYZE ${prompts}, ${promptTags}`)
      await db.execute(sql`VACUUM (ANALYZE) ${promptSearch}`)
    },

    async rebuildSearchIndex() {
      for (let after = 0; ; ) {
        const rows = await db
          .select({
            seq: prompts.seq,
            title: prompts.title,
            description: prompts.description,
            categoryId: prompts.categoryId,
            subcategoryId: prompts.subcategoryId,
            tags: prompts.tags,
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
              head: sql`excluded.head`,
              words: sql`excluded.words`,
            },
          })
      }
    },
  }
}

/** A prompt's search row (prompt_search), for the query builder. */
const searchRow = (seq: number, p: Pick<PromptInput, 'title' | 'description' | 'categoryId' | 'subcategoryId' | 'tags' | 'content'>) => ({
  promptSeq: seq,
  categoryId: p.categoryId,
  subcategoryId: p.subcategoryId,
  head: sql`${headVector(p)}::tsvector`,
  words: wordsVector(allVector(p), seq),
})

type Row = { p: PromptInput; tags: string; hash: string }

/** New prompts per insert statement: about a megabyte of text in one message. */
const INSERT_ROWS = 250
/** Insert statements sent ahead of their answers. */
const IN_FLIGHT = 3

/**
 * Upserts prompts: one read of their hashes, the new ones in multi-row inserts (with their tags),
 * then the changed ones row by row. The inserts are pipelined: each is sent as soon as it is
 * built and the next one is built while PostgreSQL stores it, a few at a time (bench-search.ts:
 * an import of 100,000 prompts is bound by PostgreSQL's work, which this keeps busy).
 */
async function upsertPrompts(on: Db, inputs: PromptInput[], now: number, onProgress?: (done: number) => void): Promise<Outcome[]> {
  const existing = new Map<string, { seq: number; hash: string }>()
  for (const part of chunks(inputs, 10 * ROWS_PER_STATEMENT)) {
    const rows = await on
      .select({ id: prompts.id, seq: prompts.seq, hash: prompts.sourceHash })
      .from(prompts)
      .where(sql`${prompts.id} = ANY(${sql.param(part.map((p) => p.id))}::text[])`)
    for (const r of rows) existing.set(r.id, r)
  }
  const outcomes: Outcome[] = []
  const created: Row[] = []
  const changed: (Row & { seq: number })[] = []
  for (const p of inputs) {
    const tags = joinTags(p.tags)
    const hash = promptSourceHash(p, tags)
    const old = existing.get(p.id)
    if (old?.hash === hash) outcomes.push('unchanged')
    else if (!old) {
      created.push({ p, tags, hash })
      outcomes.push('created')
    } else {
      changed.push({ p, tags, hash, seq: old.seq })
      outcomes.push('updated')
    }
  }

  let done = inputs.length - created.length - changed.length
  // Every statement sent is answered before this returns or throws; the first error (in the
  // order they were sent: the later ones then only say the transaction is aborted) is thrown.
  let error: unknown = null
  const inFlight: Promise<unknown>[] = []
  for (const part of chunks(created, INSERT_ROWS)) {
    if (inFlight.length >= IN_FLIGHT) await inFlight.shift()!.catch((e: unknown) => (error ??= e))
    if (error) break
    const records = await recordsOf(part, now)
    inFlight.push(
      insertRecords(on, records).then(() => {
        done += part.length
        onProgress?.(done)
      }),
    )
  }
  for (const result of await Promise.allSettled(inFlight)) if (result.status === 'rejected') error ??= result.reason
  if (error) throw error

  for (const { p, tags, hash, seq } of changed) {
    await on
      .update(prompts)
      .set({
        title: p.title,
        description: p.description,
        categoryId: p.categoryId,
        subcategoryId: p.subcategoryId,
        tags,
        sourceHash: hash,
        preview: previewOf(p.content),
        content: p.content,
        updatedAt: new Date(p.updatedAt ?? now),
        ...(p.createdAt === undefined ? {} : { createdAt: new Date(p.createdAt) }),
      })
      .where(eq(prompts.seq, seq))
    const search = searchRow(seq, p)
    await on.insert(promptSearch).values(search).onConflictDoUpdate({ target: promptSearch.promptSeq, set: search })
    await on.delete(promptTags).where(eq(promptTags.promptSeq, seq))
    if (p.tags.length > 0)
      await on
        .insert(promptTags)
        .values(p.tags.map((tag) => ({ tag, promptSeq: seq })))
        .onConflictDoNothing()
    onProgress?.(++done)
  }
  return outcomes
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))
/** Rows built between turns of the event loop, which meanwhile sends what is queued to PostgreSQL. */
const BUILD_SLICE = 25

/**
 * The JSON of new prompts for insertRecords, built a slice at a time: a statement of a few
 * megabytes leaves the socket only as the event loop turns, and PostgreSQL, waiting for the
 * rest of it, idled a quarter of an import while a whole next part was built (bench-search.ts).
 */
async function recordsOf(rows: Row[], now: number): Promise<string> {
  const records: unknown[] = []
  for (let i = 0; i < rows.length; i += BUILD_SLICE) {
    if (i > 0) await nextTurn()
    for (const { p, tags, hash } of rows.slice(i, i + BUILD_SLICE)) {
      const createdAt = p.createdAt ?? now
      records.push({
        id: p.id,
        title: p.title,
        description: p.description,
        category_id: p.categoryId,
        subcategory_id: p.subcategoryId,
        tags,
        created_at: new Date(createdAt).toISOString(),
        updated_at: new Date(p.updatedAt ?? createdAt).toISOString(),
        source_hash: hash,
        preview: previewOf(p.content),
        content: p.content,
        head: headVector(p),
        words: allVector(p),
      })
    }
  }
  return JSON.stringify(records)
}

/**
 * One statement for many new prompts, their search rows and their tags, the rows sent as one
 * JSON parameter (bench-search.ts: postgres-js spent more on serialising text arrays than on all
 * the rest of an import; JSON.stringify is native).
 */
async function insertRecords(on: Db, records: string): Promise<void> {
  await on.execute(sql`
    WITH u AS (
      SELECT * FROM json_to_recordset(${records}::json) AS u(
        id text, title text, description text, category_id text, subcategory_id text, tags text, created_at timestamptz, updated_at timestamptz,
        source_hash text, preview text, content text, head tsvector, words text)),
    inserted AS (
      INSERT INTO ${prompts} (id, title, description, category_id, subcategory_id, tags, created_at, updated_at, source_hash, preview, content)
      SELECT id, title, description, category_id, subcategory_id, tags, created_at, updated_at, source_hash, preview, content FROM u
      RETURNING id, seq, tags),
    searched AS (
      INSERT INTO ${promptSearch} (prompt_seq, category_id, subcategory_id, head, words)
      SELECT inserted.seq, u.category_id, u.subcategory_id, u.head, ${wordsVector(sql`u.words`, sql`inserted.seq`)} FROM inserted JOIN u USING (id))
    INSERT INTO ${promptTags} (tag, prompt_seq)
    SELECT tag, seq FROM inserted, unnest(string_to_array(nullif(inserted.tags, ''), ' ')) AS tag`)
}
