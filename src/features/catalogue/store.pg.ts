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
const SEARCH_INDEXES = ['prompt_search_head', 'prompt_search_words'] as const

const headVector = (p: { title: string; description: string; tags: readonly string[] }) =>
  weightedVector([
    { text: p.title, weight: 'A' },
    { text: joinTags(p.tags), weight: 'B' },
    { text: p.description, weight: 'C' },
  ])
const allVector = (p: { title: string; description: string; tags: readonly string[]; content: string }) =>
  wordSetVector([p.title, joinTags(p.tags), p.description, p.content])
/**
 * A matching vector from its words (wordSetVector: separated by single spaces): split and
 * gathered natively, where parsing the same text as a tsvector literal took PostgreSQL half as
 * long again (bench-search.ts: an import is bound by PostgreSQL's work).
 */
const wordsVector = (words: SQL | string) => sql`array_to_tsvector(string_to_array(${words}, ' '))`

const chunks = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
const rowsOf = <T>(result: unknown) => result as T[]

export function pgCatalogueStore(storage: PgStorage): CatalogueStore {
  const { db } = storage

  async function revision(on: Db = db): Promise<number> {
    const [row] = await on.select({ revision: catalogueState.revision }).from(catalogueState).where(eq(catalogueState.id, 1))
    return row?.revision ?? 0
  }

  async function summaries(seqs: number[]): Promise<Map<number, SummaryRow>> {
    if (seqs.length === 0) return new Map()
    const rows = await db.select(summaryColumns).from(prompts).where(sql`${prompts.seq} = ANY(${sql.param(seqs)}::bigint[])`)
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
        filter.tag === undefined ? undefined : inArray(prompts.seq, db.select({ seq: promptTags.promptSeq }).from(promptTags).where(eq(promptTags.tag, filter.tag))),
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
      if (tag !== undefined) filters.push(sql` AND EXISTS (SELECT 1 FROM ${promptTags} WHERE ${promptTags.promptSeq} = ${s.promptSeq} AND ${promptTags.tag} = ${tag})`)
      const filter = sql.join(filters)

      const rank = sql`ts_rank_cd(${HEAD_WEIGHTS}::float4[], ${s.head}, ${query}, 1)`
      // Every candidate costs PostgreSQL a visit to its row (a GIN index cannot answer alone; about
      // 4 µs each here), so the statements are shaped to visit as few as they can. The first takes
      // up to `cap` matches in any order, each with its rank when its head matches: with fewer
      // than `cap` that is every match, and both tiers are ordered here. The second ranks the
      // newest HEAD_RANK_CAP head matches, for when there are more; it runs beside the first on
      // another connection, so a common word costs the longer of the two (bench-search.ts).
      const matchesQuery = db.execute(sql`
        SELECT ${s.promptSeq} AS seq, CASE WHEN ${s.head} @@ ${query} THEN ${rank} END AS score
        FROM ${s} WHERE ${s.words} @@ ${query}${filter} LIMIT ${cap}`)
      const headsQuery = db.execute(sql`
        WITH m AS MATERIALIZED (
          SELECT ${s.promptSeq} AS seq, ${rank} AS score
          FROM ${s} WHERE ${s.head} @@ ${query}${filter} ORDER BY ${s.promptSeq} DESC LIMIT ${HEAD_RANK_CAP})
        SELECT (SELECT count(*) FROM m)::int AS n, ARRAY(SELECT seq FROM m ORDER BY score DESC, seq DESC LIMIT ${limit} OFFSET ${offset}) AS page`)
      const [matchRows, headRows] = await Promise.all([matchesQuery, headsQuery])
      const matches = rowsOf<{ seq: string; score: number | null }>(matchRows)
      const total = matches.length
      if (offset >= total) return { total, hits: [] }
      const end = Math.min(offset + limit, total)
      let headSeqs: number[]
      const contentSeqs: number[] = []
      if (total < cap) {
        const all = matches.map((m) => ({ seq: Number(m.seq), score: m.score })).sort((a, b) => b.seq - a.seq)
        const heads = all.filter((m) => m.score !== null).sort((a, b) => b.score! - a.score! || b.seq - a.seq)
        const ordered = [...heads, ...all.filter((m) => m.score === null)].slice(offset, end)
        headSeqs = ordered.filter((m) => m.score !== null).map((m) => m.seq)
        for (const m of ordered) if (m.score === null) contentSeqs.push(m.seq)
      } else {
        // At least `cap` matches: the head matches ranked (one row always: their number and the
        // page of them, best first), then content-only matches newest first.
        const [heads] = rowsOf<{ n: number; page: string[] }>(headRows)
        headSeqs = (heads?.page ?? []).map(Number).slice(0, end - offset)
        if (offset + headSeqs.length < end) {
          const tailOffset = Math.max(0, offset - (heads?.n ?? 0))
          const rows = rowsOf<{ seq: string }>(
            await db.execute(sql`
              SELECT ${s.promptSeq} AS seq FROM ${s}
              WHERE ${s.words} @@ ${query} AND NOT (${s.head} @@ ${query})${filter}
              ORDER BY ${s.promptSeq} DESC LIMIT ${end - offset - headSeqs.length} OFFSET ${tailOffset}`),
          )
          for (const r of rows) contentSeqs.push(Number(r.seq))
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
      if (old.name === input.name && old.description === input.description && old.icon === input.icon && old.sortOrder === input.order) return 'unchanged'
      await on.update(categories).set({ ...values, updatedAt: new Date(now) }).where(eq(categories.id, input.id))
      return 'updated'
    },

    async ensureCategory(id, now, tx) {
      const on = storage.use(tx)
      const [max] = await on.select({ n: sql<number>`coalesce(max(${categories.sortOrder}), 0)::int` }).from(categories)
      const created = await on
        .insert(categories)
        .values({ id, name: nameFromSlug(id), description: '', icon: '📁', sortOrder: (max?.n ?? 0) + 1, createdAt: new Date(now), updatedAt: new Date(now) })
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
      // Fresh statistics for the planner, and the GIN indexes' pending entries (fastupdate)
      // merged, so searches after a large import need not scan them.
      await db.execute(sql`ANALYZE ${prompts}, ${promptSearch}, ${promptTags}`)
      for (const index of SEARCH_INDEXES) await db.execute(sql`SELECT gin_clean_pending_list(${index}::regclass)`)
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
            set: { categoryId: sql`excluded.category_id`, subcategoryId: sql`excluded.subcategory_id`, head: sql`excluded.head`, words: sql`excluded.words` },
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
  words: wordsVector(allVector(p)),
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
    const firedAt = performance.now()
    if (process.env.TRACE) console.log('F', firedAt.toFixed(1))
    inFlight.push(
      insertPrompts(on, part, now).then(() => {
        if (process.env.TRACE) console.log('D', performance.now().toFixed(1))
        done += part.length
        onProgress?.(done)
      }),
    )
    // Let the statement go out before the next one is built: drizzle and postgres-js hand it to
    // the socket two turns of the event loop after it is issued.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
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
    if (p.tags.length > 0) await on.insert(promptTags).values(p.tags.map((tag) => ({ tag, promptSeq: seq }))).onConflictDoNothing()
    onProgress?.(++done)
  }
  return outcomes
}

/**
 * One statement for many new prompts and their tags, the rows sent as one JSON parameter
 * (bench-search.ts: postgres-js spent more on serialising text arrays than on all the rest of an
 * import; JSON.stringify is native).
 */
async function insertPrompts(on: Db, rows: Row[], now: number): Promise<void> {
  const records = rows.map(({ p, tags, hash }) => {
    const createdAt = p.createdAt ?? now
    return {
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
    }
  })
  await on.execute(sql`
    WITH u AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(records)}::json) AS u(
        id text, title text, description text, category_id text, subcategory_id text, tags text, created_at timestamptz, updated_at timestamptz,
        source_hash text, preview text, content text, head tsvector, words text)),
    inserted AS (
      INSERT INTO ${prompts} (id, title, description, category_id, subcategory_id, tags, created_at, updated_at, source_hash, preview, content)
      SELECT id, title, description, category_id, subcategory_id, tags, created_at, updated_at, source_hash, preview, content FROM u
      RETURNING id, seq, tags),
    searched AS (
      INSERT INTO ${promptSearch} (prompt_seq, category_id, subcategory_id, head, words)
      SELECT inserted.seq, u.category_id, u.subcategory_id, u.head, ${wordsVector(sql`u.words`)} FROM inserted JOIN u USING (id))
    INSERT INTO ${promptTags} (tag, prompt_seq)
    SELECT tag, seq FROM inserted, unnest(string_to_array(nullif(inserted.tags, ''), ' ')) AS tag
    ON CONFLICT DO NOTHING`)
}
