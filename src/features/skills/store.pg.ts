// PostgreSQL adapter of the skills port. Search runs on the GIN-indexed `search` vector, written
// here from the same folded words as the query (lib/search/tsquery.ts): name A, tags B,
// description C, instructions D, ranked with ts_rank_cd.
import { and, count, eq, gt, type SQL, sql } from 'drizzle-orm'
import { rowsThatFit } from '../../db/export-page'
import { cannotBeStored } from '../../db/postgres/text'
import type { PgDb, PgStorage, PgTx } from '../../db/storage'
import { tsquery, weightedVector } from '../../lib/search/tsquery'
import { joinTags, sameTimestamps, splitTags } from '../../lib/text'
import { skills } from './schema.pg'
import type { Outcome, SkillExport, SkillFilter, SkillInput, SkillRecord, SkillsStore } from './store'
import { storedSkill } from './text'

type Db = PgDb | PgTx

const columns = {
  seq: skills.seq,
  id: skills.id,
  name: skills.name,
  description: skills.description,
  category: skills.category,
  tags: skills.tags,
  license: skills.license,
  compatibility: skills.compatibility,
  allowedTools: skills.allowedTools,
  metadata: skills.metadata,
  files: skills.files,
  updatedAt: skills.updatedAt,
  instructions: skills.instructions,
}

type Row = {
  seq: number
  id: string
  name: string
  description: string
  category: string
  tags: string
  license: string | null
  compatibility: string | null
  allowedTools: string
  metadata: string | null
  files: string
  updatedAt: Date
  instructions: string
}

const record = (r: Row): SkillRecord => ({
  id: r.id,
  name: r.name,
  description: r.description,
  category: r.category,
  tags: splitTags(r.tags),
  license: r.license,
  compatibility: r.compatibility,
  allowedTools: JSON.parse(r.allowedTools) as string[],
  metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, string>),
  files: JSON.parse(r.files) as string[],
  updatedAt: r.updatedAt,
  instructions: r.instructions,
})

/** ts_rank_cd weights {D, C, B, A}: name 10, tags 6, description 4, instructions 1 (as SQLite's bm25 weights). */
const WEIGHTS = '{0.1,0.4,0.6,1.0}'
const ROWS_PER_BATCH = 500

const searchVector = (s: { name: string; tags: readonly string[]; description: string; instructions: string }) =>
  weightedVector([
    { text: s.name, weight: 'A' },
    { text: joinTags(s.tags), weight: 'B' },
    { text: s.description, weight: 'C' },
    { text: s.instructions, weight: 'D' },
  ])

function where(filter: SkillFilter): SQL | undefined {
  return and(
    filter.category === undefined ? undefined : eq(skills.category, filter.category),
    filter.tag === undefined ? undefined : sql`(' ' || ${skills.tags} || ' ') LIKE ${`% ${filter.tag} %`}`,
  )
}

export function pgSkillsStore(storage: PgStorage): SkillsStore {
  const { db } = storage
  return {
    async list(filter, page) {
      const [[total], rows] = await Promise.all([
        db.select({ n: count() }).from(skills).where(where(filter)),
        db.select(columns).from(skills).where(where(filter)).orderBy(sql`${skills.name} COLLATE "C"`).limit(page.limit).offset(page.offset),
      ])
      return { items: rows.map(record), total: total?.n ?? 0 }
    },

    async get(id) {
      if (cannotBeStored(id)) return null
      const [row] = await db.select(columns).from(skills).where(eq(skills.id, id))
      return row ? record(row) : null
    },

    async search({ terms, ...filter }, { limit, offset }, window) {
      const query = sql`${tsquery(terms)}::tsquery`
      const filters = where(filter)
      // planned for its words each time (PgStorage.unprepared says why)
      const [ranked] = (await storage.unprepared.execute(sql`
        WITH ranked AS MATERIALIZED (
          SELECT ${skills.seq} AS seq, ts_rank_cd(${WEIGHTS}::float4[], ${skills.search}, ${query}, 1) AS score
          FROM ${skills} WHERE ${skills.search} @@ ${query}${filters ? sql` AND ${filters}` : sql``} ORDER BY ${skills.seq} DESC LIMIT ${window})
        SELECT (SELECT count(*) FROM ranked)::int AS n, ARRAY(SELECT seq FROM ranked ORDER BY score DESC, seq DESC LIMIT ${limit} OFFSET ${offset}) AS page`)) as unknown as {
        n: number
        page: string[]
      }[]
      const seqs = (ranked?.page ?? []).map(Number)
      if (seqs.length === 0) return { total: ranked?.n ?? 0, hits: [] }
      const rows = new Map(
        (
          await db
            .select(columns)
            .from(skills)
            .where(sql`${skills.seq} = ANY(${sql.param(seqs)}::bigint[])`)
        ).map((r) => [r.seq, r]),
      )
      const hits = seqs.flatMap((seq) => {
        const row = rows.get(seq)
        return row ? [record(row)] : []
      })
      return { total: ranked?.n ?? 0, hits }
    },

    async upsertSkills(inputs, now, tx) {
      const on = storage.use(tx)
      const outcomes: Outcome[] = []
      for (const s of inputs) outcomes.push(await upsertSkill(on, s, now))
      return outcomes
    },

    async hasAny(tx) {
      const rows = await storage.use(tx).select({ seq: skills.seq }).from(skills).limit(1)
      return rows.length > 0
    },

    async optimizeSearchIndex() {
      // Statistics, the GIN index's pending entries merged, pages marked all-visible.
      await db.execute(sql`VACUUM (ANALYZE) ${skills}`)
    },

    async rebuildSearchIndex() {
      for (let after = 0; ; ) {
        const rows = await db
          .select({ seq: skills.seq, name: skills.name, tags: skills.tags, description: skills.description, instructions: skills.instructions })
          .from(skills)
          .where(gt(skills.seq, after))
          .orderBy(skills.seq)
          .limit(ROWS_PER_BATCH)
        if (rows.length === 0) return
        after = rows[rows.length - 1]!.seq
        for (const r of rows) {
          await db
            .update(skills)
            .set({ search: sql`${searchVector({ ...r, tags: splitTags(r.tags) })}::tsvector` })
            .where(eq(skills.seq, r.seq))
        }
      }
    },

    async exportSkills(cursor, filter, limits, tx) {
      const on = storage.use(tx)
      const where = and(gt(skills.seq, cursor), filter.category === undefined ? undefined : eq(skills.category, filter.category))
      const sizes = await on
        .select({ seq: skills.seq, chars: sql<number>`octet_length(${skills.instructions})` })
        .from(skills)
        .where(where)
        .orderBy(skills.seq)
        .limit(limits.rows)
      const seqs = rowsThatFit(sizes, limits)
      if (seqs.length === 0) return { skills: [], cursor }
      const rows = await on
        .select({ ...columns, createdAt: skills.createdAt })
        .from(skills)
        .where(sql`${skills.seq} = ANY(${sql.param(seqs)}::bigint[])`)
        .orderBy(skills.seq)
      return {
        skills: rows.map(({ createdAt, ...r }): SkillExport => ({ ...record(r), createdAt })),
        cursor: seqs[seqs.length - 1]!,
      }
    },
  }
}

async function upsertSkill(on: Db, s: SkillInput, now: number): Promise<Outcome> {
  const { tags, allowedTools, metadata, files, hash } = storedSkill(s)
  const [old] = await on
    .select({ seq: skills.seq, hash: skills.sourceHash, createdAt: skills.createdAt, updatedAt: skills.updatedAt })
    .from(skills)
    .where(eq(skills.id, s.id))
  const times = {
    ...(s.createdAt === undefined ? {} : { createdAt: new Date(s.createdAt) }),
    ...(s.updatedAt === undefined ? {} : { updatedAt: new Date(s.updatedAt) }),
  }
  if (old?.hash === hash) {
    if (sameTimestamps(s, { createdAt: old.createdAt.getTime(), updatedAt: old.updatedAt.getTime() })) return 'unchanged'
    await on.update(skills).set(times).where(eq(skills.seq, old.seq))
    return 'updated'
  }
  const fields = {
    name: s.name,
    description: s.description,
    category: s.category,
    tags,
    license: s.license,
    compatibility: s.compatibility,
    allowedTools,
    metadata,
    files,
    sourceHash: hash,
    updatedAt: new Date(s.updatedAt ?? now),
    instructions: s.instructions,
    search: sql`${searchVector(s)}::tsvector`,
  }
  if (!old) {
    const createdAt = s.createdAt ?? now
    await on.insert(skills).values({ id: s.id, ...fields, createdAt: new Date(createdAt), updatedAt: new Date(s.updatedAt ?? createdAt) })
    return 'created'
  }
  await on
    .update(skills)
    .set({ ...fields, ...(s.createdAt === undefined ? {} : { createdAt: new Date(s.createdAt) }) })
    .where(eq(skills.seq, old.seq))
  return 'updated'
}
