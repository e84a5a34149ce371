// PostgreSQL adapter of the catalogue port. Search runs on two GIN-indexed tsvector columns
// written here from the same folded words as the query (lib/search/tsquery.ts): search_head
// (title A, tags B, description C, with positions: ranked with ts_rank_cd) and search_all (the
// distinct words of the head and the content: what matches). Filters are WHERE clauses.
// Imports write in multi-row statements (100,000 prompts: bench-search.ts).
import { type AnyColumn, and, asc, count, desc, eq, gt, inArray, type SQL, sql } from 'drizzle-orm'
import type { PgInsertValue } from 'drizzle-orm/pg-core'
import { LOCKS } from '../../db/postgres/locks'
import type { PgDb, PgStorage, PgTx } from '../../db/storage'
import { tsquery, weightedVector, wordSetVector } from '../../lib/search/tsquery'
import { joinTags, splitTags } from '../../lib/text'
import { catalogueState, categories, prompts, promptTags, subcategories } from './schema.pg'
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
/** Rows per multi-row statement (PostgreSQL takes at most 65,535 parameters; a prompt row has 15). */
const ROWS_PER_STATEMENT = 1000
const SEARCH_INDEXES = ['prompts_search_head', 'prompts_search_all'] as const

const headVector = (p: { title: string; description: string; tags: readonly string[] }) =>
  weightedVector([
    { text: p.title, weight: 'A' },
    { text: joinTags(p.tags), weight: 'B' },
    { text: p.description, weight: 'C' },
  ])
const allVector = (p: { title: string; description: string; tags: readonly string[]; content: string }) =>
  wordSetVector([p.title, joinTags(p.tags), p.description, p.content])
const vectorValue = (literal: string) => sql`${literal}::tsvector`

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
      const filters: SQL[] = []
      if (categoryId !== undefined) filters.push(sql` AND ${prompts.categoryId} = ${categoryId}`)
      if (subcategoryId !== undefined) filters.push(sql` AND ${prompts.subcategoryId} = ${subcategoryId}`)
      if (tag !== undefined) filters.push(sql` AND EXISTS (SELECT 1 FROM ${promptTags} WHERE ${promptTags.promptSeq} = ${prompts.seq} AND ${promptTags.tag} = ${tag})`)
      const filter = sql.join(filters)

      const [counted] = rowsOf<{ n: number }>(
        await db.execute(sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${prompts} WHERE ${prompts.searchAll} @@ ${query}${filter} LIMIT ${cap}) m`),
      )
      const total = Math.min(counted?.n ?? 0, cap)
      if (offset >= total) return { total, hits: [] }
      const end = Math.min(offset + limit, total)
      // One row always: the number of head matches (up to the cap) and the page of them, best first.
      const [heads] = rowsOf<{ n: number; page: string[] }>(
        await db.execute(sql`
          WITH m AS MATERIALIZED (
            SELECT ${prompts.seq} AS seq, ts_rank_cd(${HEAD_WEIGHTS}::float4[], ${prompts.searchHead}, ${query}, 1) AS score
            FROM ${prompts} WHERE ${prompts.searchHead} @@ ${query}${filter} ORDER BY ${prompts.seq} DESC LIMIT ${HEAD_RANK_CAP})
          SELECT (SELECT count(*) FROM m)::int AS n, ARRAY(SELECT seq FROM m ORDER BY score DESC, seq DESC LIMIT ${end - offset} OFFSET ${offset}) AS page`),
      )
      const headSeqs = (heads?.page ?? []).map(Number)
      const contentSeqs: number[] = []
      if (offset + headSeqs.length < end) {
        const tailOffset = Math.max(0, offset - (heads?.n ?? 0))
        const rows = rowsOf<{ seq: string }>(
          await db.execute(sql`
            SELECT ${prompts.seq} AS seq FROM ${prompts}
            WHERE ${prompts.searchAll} @@ ${query} AND NOT (${prompts.searchHead} @@ ${query})${filter}
            ORDER BY ${prompts.seq} DESC LIMIT ${end - offset - headSeqs.length} OFFSET ${tailOffset}`),
        )
        for (const r of rows) contentSeqs.push(Number(r.seq))
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

    async upsertPrompts(inputs, now, tx) {
      const outcomes: Outcome[] = []
      for (const chunk of chunks(inputs, ROWS_PER_STATEMENT)) outcomes.push(...(await upsertChunk(storage.use(tx), chunk, now)))
      return outcomes
    },

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
      await db.execute(sql`ANALYZE ${prompts}, ${promptTags}`)
      for (const index of SEARCH_INDEXES) await db.execute(sql`SELECT gin_clean_pending_list(${index}::regclass)`)
    },

    async rebuildSearchIndex() {
      for (let after = 0; ; ) {
        const rows = await db
          .select({ seq: prompts.seq, title: prompts.title, description: prompts.description, tags: prompts.tags, content: prompts.content })
          .from(prompts)
          .where(gt(prompts.seq, after))
          .orderBy(prompts.seq)
          .limit(ROWS_PER_STATEMENT)
        if (rows.length === 0) return
        after = rows[rows.length - 1]!.seq
        const values = rows.map((r) => {
          const p = { ...r, tags: splitTags(r.tags) }
          return sql`(${r.seq}::bigint, ${headVector(p)}::tsvector, ${allVector(p)}::tsvector)`
        })
        await db.execute(sql`
          UPDATE ${prompts} SET search_head = v.head, search_all = v.all_words
          FROM (VALUES ${sql.join(values, sql`, `)}) AS v(seq, head, all_words) WHERE ${prompts.seq} = v.seq`)
      }
    },
  }
}

/** Upserts up to ROWS_PER_STATEMENT prompts: one read of their hashes, one insert of the new ones, updates of the changed. */
async function upsertChunk(on: Db, inputs: PromptInput[], now: number): Promise<Outcome[]> {
  const existing = new Map(
    (
      await on
        .select({ id: prompts.id, seq: prompts.seq, hash: prompts.sourceHash })
        .from(prompts)
        .where(sql`${prompts.id} = ANY(${sql.param(inputs.map((p) => p.id))}::text[])`)
    ).map((r) => [r.id, r]),
  )
  const outcomes: Outcome[] = []
  const inserts: PgInsertValue<typeof prompts>[] = []
  const tagged: { seq?: number; id: string; tags: string[] }[] = []
  const updatedSeqs: number[] = []
  for (const p of inputs) {
    const tags = joinTags(p.tags)
    const hash = promptSourceHash(p, tags)
    const old = existing.get(p.id)
    if (old?.hash === hash) {
      outcomes.push('unchanged')
      continue
    }
    const fields = {
      title: p.title,
      description: p.description,
      categoryId: p.categoryId,
      subcategoryId: p.subcategoryId,
      tags,
      sourceHash: hash,
      preview: previewOf(p.content),
      content: p.content,
      searchHead: vectorValue(headVector(p)),
      searchAll: vectorValue(allVector(p)),
    }
    if (!old) {
      const createdAt = p.createdAt ?? now
      inserts.push({ id: p.id, ...fields, createdAt: new Date(createdAt), updatedAt: new Date(p.updatedAt ?? createdAt) })
      tagged.push({ id: p.id, tags: p.tags })
      outcomes.push('created')
    } else {
      await on
        .update(prompts)
        .set({ ...fields, updatedAt: new Date(p.updatedAt ?? now), ...(p.createdAt === undefined ? {} : { createdAt: new Date(p.createdAt) }) })
        .where(eq(prompts.seq, old.seq))
      updatedSeqs.push(old.seq)
      tagged.push({ seq: old.seq, id: p.id, tags: p.tags })
      outcomes.push('updated')
    }
  }
  const inserted = inserts.length === 0 ? [] : await on.insert(prompts).values(inserts).returning({ id: prompts.id, seq: prompts.seq })
  const seqOf = new Map(inserted.map((r) => [r.id, r.seq]))
  if (updatedSeqs.length > 0) await on.delete(promptTags).where(sql`${promptTags.promptSeq} = ANY(${sql.param(updatedSeqs)}::bigint[])`)
  const tagRows = tagged.flatMap(({ seq, id, tags }) => tags.map((tag) => ({ tag, promptSeq: seq ?? seqOf.get(id)! })))
  for (const chunk of chunks(tagRows, 10 * ROWS_PER_STATEMENT)) await on.insert(promptTags).values(chunk).onConflictDoNothing()
  return outcomes
}
