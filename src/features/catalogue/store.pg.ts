// PostgreSQL adapter of the catalogue port. Its write path also writes each prompt's search row
// (prompt_search, shaped by search.pg.ts) in the same statement batch. Imports write in pipelined
// multi-row statements (bench-search.ts).
import { type AnyColumn, and, asc, count, eq, getTableName, gt, inArray, type SQL, sql } from 'drizzle-orm'
import { descending } from '../../db/postgres/columns'
import { LOCKS } from '../../db/postgres/locks'
import { aloneOnDatabase } from '../../db/postgres/sessions'
import { rowsThatFit } from '../../db/export-page'
import type { PgDb, PgStorage, PgTx } from '../../db/storage'
import { joinTags, splitTags } from '../../lib/text'
import { catalogueState, categories, prompts, promptSearch, promptTags, promptWords, subcategories } from './schema.pg'
import { allWords, headVector, searchRow, wordsVector } from './search.pg'
import type { CatalogueStore, CategoryExport, Outcome, PromptExport, PromptInput, PromptRecord, Sort } from './store'
import { asyncRevisionCache } from './revision-cache'
import { nameFromSlug, previewOf, promptSourceHash, sameImportedText, sameTimestamps } from './text'

type Db = PgDb | PgTx

export const summaryColumns = {
  seq: prompts.seq,
  id: prompts.id,
  title: prompts.title,
  description: prompts.description,
  categoryId: prompts.categoryId,
  subcategoryId: prompts.subcategoryId,
  tags: prompts.tags,
  type: prompts.type,
  preview: prompts.preview,
  favoriteCount: prompts.favoriteCount,
  createdAt: prompts.createdAt,
  updatedAt: prompts.updatedAt,
}
export interface SummaryRow {
  seq: number
  id: string
  title: string
  description: string
  categoryId: string
  subcategoryId: string | null
  tags: string
  type: string
  preview: string
  favoriteCount: number
  createdAt: Date
  updatedAt: Date
}

export const record = ({ seq: _, tags, ...r }: SummaryRow): PromptRecord => ({ ...r, tags: splitTags(tags) })

/** Byte order, as SQLite compares: the same listing order whatever the database's collation. */
export const bytewise = (column: SQL | AnyColumn) => sql`${column} COLLATE "C"`

/** A listing's order, each read off its index (prompts_popular, prompts_newest, prompts_title). */
export const LISTING_ORDER: Record<Sort, SQL[]> = {
  popular: [descending(prompts.favoriteCount), descending(prompts.createdAt), descending(prompts.seq)],
  newest: [descending(prompts.createdAt), descending(prompts.seq)],
  title: [asc(bytewise(sql`lower(${prompts.title})`)), asc(prompts.seq)],
}

/** Rows read or written per statement by the upsert. */
const ROWS_PER_STATEMENT = 1000

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
const rowsOf = <T>(result: unknown) => result as T[]

export function pgCatalogueStore(storage: PgStorage): CatalogueStore {
  const { db } = storage

  async function revision(on: Db = db): Promise<number> {
    const [row] = await on.select({ revision: catalogueState.revision }).from(catalogueState).where(eq(catalogueState.id, 1))
    return row?.revision ?? 0
  }

  /**
   * A listing's total, counted once per catalogue revision (as on SQLite): counting visits every
   * matching row, 7 ms for a category of 10,000 prompts and 20 ms with a tag or type filter, where
   * its page takes 1–2. The count runs after the revision was read, so it is at least as new.
   */
  const totals = asyncRevisionCache<number>()

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
        filter.type === undefined ? undefined : eq(prompts.type, filter.type),
      )
      const [rev, rows] = await Promise.all([
        revision(),
        db
          .select(summaryColumns)
          .from(prompts)
          .where(where)
          .orderBy(...LISTING_ORDER[sort])
          .limit(page.limit)
          .offset(page.offset),
      ])
      const key = JSON.stringify([filter.categoryId, filter.subcategoryId ?? null, filter.tag ?? null, filter.type ?? null])
      const total = await totals(rev, key, async () => (await db.select({ n: count() }).from(prompts).where(where))[0]?.n ?? 0)
      return { items: rows.map(record), total }
    },

    async prompt(id) {
      const [row] = await db
        .select({ ...summaryColumns, content: prompts.content })
        .from(prompts)
        .where(eq(prompts.id, id))
      return row ? { ...record(row), content: row.content } : null
    },

    async newestPrompts(after, limit) {
      const rows = await db
        .select({ ...summaryColumns, content: prompts.content })
        .from(prompts)
        .where(
          after === null
            ? undefined
            : sql`(${prompts.createdAt}, ${prompts.seq}) < (${new Date(after.createdAt).toISOString()}::timestamptz, ${after.seq})`,
        )
        .orderBy(...LISTING_ORDER.newest)
        .limit(limit)
      const last = rows.length === limit ? rows.at(-1) : undefined
      return {
        items: rows.map((row) => ({ ...record(row), content: row.content })),
        next: last ? { createdAt: last.createdAt.getTime(), seq: last.seq } : null,
      }
    },

    async titles(ids) {
      if (ids.length === 0) return []
      return db.select({ id: prompts.id, title: prompts.title, categoryId: prompts.categoryId }).from(prompts).where(inArray(prompts.id, ids))
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
        const createdAt = input.createdAt ?? now
        await on
          .insert(categories)
          .values({ id: input.id, ...values, createdAt: new Date(createdAt), updatedAt: new Date(input.updatedAt ?? createdAt) })
        return 'created'
      }
      if (
        old.name === input.name &&
        old.description === input.description &&
        old.icon === input.icon &&
        old.sortOrder === input.order &&
        sameTimestamps(input, { createdAt: old.createdAt.getTime(), updatedAt: old.updatedAt.getTime() })
      )
        return 'unchanged'
      await on
        .update(categories)
        .set({
          ...values,
          ...(input.createdAt === undefined ? {} : { createdAt: new Date(input.createdAt) }),
          updatedAt: new Date(input.updatedAt ?? now),
        })
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

    upsertPrompts: (inputs, now, tx, onProgress) => upsertPrompts(storage.use(tx), inputs, now, onProgress, tx ? wordsAddedIn(tx) : new Set()),

    // An import into an (almost) empty catalogue, with no other process on the database, loads
    // as pg_restore does: the secondary indexes and foreign keys of prompts, prompt_search and
    // prompt_tags dropped, then built once from their own definitions before the same transaction
    // ends (a dry run or a refused file rolls the drop back). Kept row by row they were half of
    // PostgreSQL's work (perf; 100,000 prompts, alternated: 30.2–31.7 → 23.9–26.8 s). Dropping
    // locks each table until commit: with a server connected every search would wait for it.
    async deferIndexes(tx, written) {
      const on = storage.use(tx)
      const [{ rows } = { rows: 0 }] = rowsOf<{ rows: number }>(
        await on.execute(sql`SELECT count(*)::int AS rows FROM (SELECT 1 FROM ${prompts} LIMIT ${2 * written + 1}) AS p`),
      )
      if (rows > 2 * written || !(await aloneOnDatabase(on))) return async () => {}
      const tables = sql.join(
        [prompts, promptSearch, promptTags].map((table) => sql`${getTableName(table)}::regclass`),
        sql`, `,
      )
      // Only the owner may drop and build them: an import run by a role that may only write rows writes them row by row.
      const [{ owner } = { owner: false }] = rowsOf<{ owner: boolean }>(
        await on.execute(sql`
          SELECT bool_and(pg_has_role(relowner, 'USAGE')) AS owner FROM pg_class
          WHERE oid IN (${tables}) OR oid IN (SELECT confrelid FROM pg_constraint WHERE contype = 'f' AND conrelid IN (${tables}))`),
      )
      if (!owner) return async () => {}
      const steps = rowsOf<{ drop: string; build: string }>(
        await on.execute(sql`
          SELECT 1 AS step, format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname) AS drop,
            format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS build
          FROM pg_constraint WHERE contype = 'f' AND conrelid IN (${tables})
          UNION ALL
          SELECT 2, format('DROP INDEX %s', indexrelid::regclass), pg_get_indexdef(indexrelid)
          FROM pg_index WHERE indrelid IN (${tables}) AND NOT indisunique
          ORDER BY step, drop`),
      )
      for (const { drop } of steps) await on.execute(sql.raw(drop))
      // built in the reverse order, the indexes first: a key's check then reads built tables
      return async () => {
        // An operator's statement_timeout is for requests: the words index alone takes seconds to build.
        await on.execute(sql`SET LOCAL statement_timeout = 0`)
        for (const { build } of steps.toReversed()) await on.execute(sql.raw(build))
      }
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

    async exportCategories(filter, tx) {
      const on = storage.use(tx)
      const [cats, subs] = await Promise.all([
        on
          .select()
          .from(categories)
          .where(filter.categoryId === undefined ? undefined : eq(categories.id, filter.categoryId))
          .orderBy(categories.sortOrder, bytewise(categories.id)),
        on
          .select()
          .from(subcategories)
          .where(filter.categoryId === undefined ? undefined : eq(subcategories.categoryId, filter.categoryId))
          .orderBy(bytewise(subcategories.categoryId), subcategories.sortOrder, bytewise(subcategories.id)),
      ])
      const byCategory = new Map<string, CategoryExport>()
      const out = cats.map(({ sortOrder, ...c }): CategoryExport => {
        const category = { ...c, order: sortOrder, subcategories: [] }
        byCategory.set(c.id, category)
        return category
      })
      for (const { categoryId, sortOrder, ...sub } of subs) byCategory.get(categoryId)?.subcategories.push({ ...sub, order: sortOrder })
      return out
    },

    async exportPrompts(cursor, filter, limits, tx) {
      const on = storage.use(tx)
      const where = and(gt(prompts.seq, cursor), filter.categoryId === undefined ? undefined : eq(prompts.categoryId, filter.categoryId))
      // The sizes first (octet_length reads a stored value's header, not the value), then the rows that fit.
      const sizes = await on
        .select({ seq: prompts.seq, chars: sql<number>`octet_length(${prompts.content})` })
        .from(prompts)
        .where(where)
        .orderBy(prompts.seq)
        .limit(limits.rows)
      const seqs = rowsThatFit(sizes, limits)
      if (seqs.length === 0) return { prompts: [], cursor }
      const rows = await on
        .select({
          seq: prompts.seq,
          id: prompts.id,
          title: prompts.title,
          description: prompts.description,
          categoryId: prompts.categoryId,
          subcategoryId: prompts.subcategoryId,
          tags: prompts.tags,
          type: prompts.type,
          content: prompts.content,
          createdAt: prompts.createdAt,
          updatedAt: prompts.updatedAt,
        })
        .from(prompts)
        .where(sql`${prompts.seq} = ANY(${sql.param(seqs)}::bigint[])`)
        .orderBy(prompts.seq)
      return {
        prompts: rows.map(({ seq: _, tags, ...r }): PromptExport => ({ ...r, tags: splitTags(tags) })),
        cursor: seqs[seqs.length - 1]!,
      }
    },
  }
}

type Row = { p: PromptInput; tags: string; hash: string }

/**
 * New prompts per insert statement, and statements sent ahead of their answers. PostgreSQL reads
 * a statement whole before it runs it: of 250 rows (a megabyte), it waited on the socket a fifth
 * of an import; of 50, a tenth (bench-search.ts: 31–33 s → 29–30 s for 100,000 prompts).
 */
const INSERT_ROWS = 50
const IN_FLIGHT = 12
/** The transaction setting by which a writer tells prompt_words's trigger it adds the words itself (0007). */
const WORDS_ADDED_BY_WRITER = 'promptlib.words_added_by_writer'
/**
 * The words a transaction has added to prompt_words (nothing removes one), so that each batch of
 * an import sends only words new to it; forgotten past a bound, where a real vocabulary is large.
 */
const wordsAdded = new WeakMap<object, Set<string>>()
const WORDS_REMEMBERED = 100_000
function wordsAddedIn(tx: object): Set<string> {
  let added = wordsAdded.get(tx)
  if (!added) wordsAdded.set(tx, (added = new Set()))
  if (added.size > WORDS_REMEMBERED) added.clear()
  return added
}

/**
 * Upserts prompts: one read of their hashes, the new ones in multi-row inserts (with their tags),
 * then the changed ones row by row. The inserts are pipelined: each is sent as soon as it is
 * built and the next one is built while PostgreSQL stores it, a few at a time (bench-search.ts:
 * an import of 100,000 prompts is bound by PostgreSQL's work, which this keeps busy).
 */
async function upsertPrompts(
  on: Db,
  inputs: PromptInput[],
  now: number,
  onProgress: ((done: number) => void) | undefined,
  wordsAdded: Set<string>,
): Promise<Outcome[]> {
  // One writer of prompts at a time (LOCKS.promptWrites says why).
  await on.execute(sql`SELECT pg_advisory_xact_lock(${LOCKS.promptWrites})`)
  const existing = new Map<string, { seq: number; hash: string; createdAt: Date; updatedAt: Date }>()
  for (const part of chunks(inputs, 10 * ROWS_PER_STATEMENT)) {
    const rows = await on
      .select({ id: prompts.id, seq: prompts.seq, hash: prompts.sourceHash, createdAt: prompts.createdAt, updatedAt: prompts.updatedAt })
      .from(prompts)
      .where(sql`${prompts.id} = ANY(${sql.param(part.map((p) => p.id))}::text[])`)
    for (const r of rows) existing.set(r.id, r)
  }
  // Hashes from an earlier rule: the stored text decides (and the hash is refreshed).
  const stale = inputs.filter((p) => {
    const old = existing.get(p.id)
    return old !== undefined && old.hash !== promptSourceHash(p, joinTags(p.tags))
  })
  const storedText = new Map<string, Parameters<typeof sameImportedText>[2]>()
  for (const part of chunks(stale, ROWS_PER_STATEMENT)) {
    const rows = await on
      .select({
        id: prompts.id,
        title: prompts.title,
        description: prompts.description,
        categoryId: prompts.categoryId,
        subcategoryId: prompts.subcategoryId,
        type: prompts.type,
        content: prompts.content,
        tags: prompts.tags,
      })
      .from(prompts)
      .where(sql`${prompts.id} = ANY(${sql.param(part.map((p) => p.id))}::text[])`)
    for (const r of rows) storedText.set(r.id, r)
  }
  const outcomes: Outcome[] = []
  const created: Row[] = []
  const changed: (Row & { seq: number })[] = []
  const retimed: { p: PromptInput; seq: number; hash: string }[] = []
  for (const p of inputs) {
    const tags = joinTags(p.tags)
    const hash = promptSourceHash(p, tags)
    const old = existing.get(p.id)
    if (!old) {
      created.push({ p, tags, hash })
      outcomes.push('created')
      continue
    }
    const stored = storedText.get(p.id)
    const sameText = old.hash === hash || (stored !== undefined && sameImportedText(p, tags, stored))
    if (!sameText) {
      changed.push({ p, tags, hash, seq: old.seq })
      outcomes.push('updated')
    } else if (old.hash !== hash || !sameTimestamps(p, { createdAt: old.createdAt.getTime(), updatedAt: old.updatedAt.getTime() })) {
      retimed.push({ p, seq: old.seq, hash })
      outcomes.push(sameTimestamps(p, { createdAt: old.createdAt.getTime(), updatedAt: old.updatedAt.getTime() }) ? 'unchanged' : 'updated')
    } else outcomes.push('unchanged')
  }

  let done = inputs.length - created.length - changed.length
  // Every statement sent is answered before this returns or throws; the first error (in the
  // order they were sent: the later ones then only say the transaction is aborted) is thrown.
  let error: unknown = null
  const inFlight: Promise<unknown>[] = []
  // The new prompts' words go to prompt_words once, below, instead of through its trigger (0007).
  const vocabulary = new Set<string>()
  if (created.length > 0) await on.execute(sql`SELECT set_config(${WORDS_ADDED_BY_WRITER}, 'on', true)`)
  for (const part of chunks(created, INSERT_ROWS)) {
    if (inFlight.length >= IN_FLIGHT) await inFlight.shift()!.catch((e: unknown) => (error ??= e))
    if (error) break
    const records = await recordsOf(part, now, wordsAdded, vocabulary)
    inFlight.push(
      insertRecords(on, records).then(() => {
        done += part.length
        onProgress?.(done)
      }),
    )
  }
  for (const result of await Promise.allSettled(inFlight)) if (result.status === 'rejected') error ??= result.reason
  if (error) throw error
  if (created.length > 0) {
    if (vocabulary.size > 0)
      await on.execute(sql`
        INSERT INTO ${promptWords} (word) SELECT word FROM unnest(${sql.param([...vocabulary])}::text[]) AS word
        WHERE position(':' in word) = 0 ON CONFLICT DO NOTHING`)
    await on.execute(sql`SELECT set_config(${WORDS_ADDED_BY_WRITER}, 'off', true)`)
    for (const word of vocabulary) wordsAdded.add(word)
  }

  // The same text: only the hash (an earlier rule's) or the timestamps the file gives are written.
  for (const { p, seq, hash } of retimed) {
    await on
      .update(prompts)
      .set({
        sourceHash: hash,
        ...(p.createdAt === undefined ? {} : { createdAt: new Date(p.createdAt) }),
        ...(p.updatedAt === undefined ? {} : { updatedAt: new Date(p.updatedAt) }),
      })
      .where(eq(prompts.seq, seq))
  }
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
        type: p.type,
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
 * The JSON of new prompts for insertRecords, built a slice at a time: a statement leaves the
 * socket only as the event loop turns, and PostgreSQL, waiting for the rest of it, idled while a
 * whole next part was built (bench-search.ts). Their words not `known` yet go to `vocabulary`.
 */
async function recordsOf(rows: Row[], now: number, known: Set<string>, vocabulary: Set<string>): Promise<string> {
  const records: unknown[] = []
  for (let i = 0; i < rows.length; i += BUILD_SLICE) {
    if (i > 0) await nextTurn()
    for (const { p, tags, hash } of rows.slice(i, i + BUILD_SLICE)) {
      const createdAt = p.createdAt ?? now
      const distinct = allWords(p)
      for (const word of distinct) if (!known.has(word)) vocabulary.add(word)
      const words = [...distinct].join(' ')
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
        type: p.type,
        content: p.content,
        head: headVector(p),
        words,
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
        source_hash text, preview text, type text, content text, head tsvector, words text)),
    inserted AS (
      INSERT INTO ${prompts} (id, title, description, category_id, subcategory_id, tags, created_at, updated_at, source_hash, preview, type, content)
      SELECT id, title, description, category_id, subcategory_id, tags, created_at, updated_at, source_hash, preview, type, content FROM u
      RETURNING id, seq, tags),
    searched AS (
      INSERT INTO ${promptSearch} (prompt_seq, category_id, subcategory_id, type, head, words)
      SELECT inserted.seq, u.category_id, u.subcategory_id, u.type, u.head, ${wordsVector(sql`u.words`, sql`inserted.seq`)} FROM inserted JOIN u USING (id))
    INSERT INTO ${promptTags} (tag, prompt_seq)
    SELECT tag, seq FROM inserted, unnest(string_to_array(nullif(inserted.tags, ''), ' ')) AS tag`)
}
