// SQLite adapter of the skills port. Search runs on skills_fts (external-content FTS5: name,
// description, instructions, tags, facets), written explicitly in the same transaction as the
// row, like the prompts' index: an update first removes the old text from it.
import type { SQLQueryBindings } from 'bun:sqlite'
import { perConnection, statementsBySql } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { facetToken, ftsExpression, skillFacets } from '../../lib/search/fts5'
import { sameTimestamps, splitTags } from '../../lib/text'
import type { Outcome, SkillExport, SkillRecord, SkillsStore } from './store'
import { storedSkill } from './text'

const SKILL_COLUMNS =
  's.seq, s.id, s.name, s.description, s.category, s.tags, s.license, s.compatibility, s.allowed_tools, s.metadata, s.files, s.updated_at, s.instructions'

interface Row {
  seq: number
  id: string
  name: string
  description: string
  category: string
  tags: string
  license: string | null
  compatibility: string | null
  allowed_tools: string
  metadata: string | null
  files: string
  updated_at: number
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
  allowedTools: JSON.parse(r.allowed_tools) as string[],
  metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, string>),
  files: JSON.parse(r.files) as string[],
  updatedAt: new Date(r.updated_at),
  instructions: r.instructions,
})

type OldSkill = { seq: number; name: string; description: string; instructions: string; tags: string; facets: string }

const statements = perConnection((db: SqliteDb) => {
  const c = db.$client
  const prepared = statementsBySql(c)
  return {
    prepared,
    one: c.prepare<Row, [string]>(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.id = ?`),
    hash: c.prepare<{ seq: number; source_hash: string; created_at: number; updated_at: number }, [string]>(
      'SELECT seq, source_hash, created_at, updated_at FROM skills WHERE id = ?',
    ),
    updateTimes: c.prepare('UPDATE skills SET created_at = coalesce(?, created_at), updated_at = coalesce(?, updated_at) WHERE seq = ?'),
    old: c.prepare<OldSkill, [number]>('SELECT seq, name, description, instructions, tags, facets FROM skills WHERE seq = ?'),
    insert: c.prepare<{ seq: number }, SQLQueryBindings[]>(
      `INSERT INTO skills (id, name, description, category, tags, license, compatibility, allowed_tools, metadata, files, facets, source_hash, created_at, updated_at, instructions)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    ),
    update: c.prepare(
      `UPDATE skills SET name = ?, description = ?, category = ?, tags = ?, license = ?, compatibility = ?, allowed_tools = ?, metadata = ?,
       files = ?, facets = ?, source_hash = ?, created_at = coalesce(?, created_at), updated_at = ?, instructions = ? WHERE seq = ?`,
    ),
    ftsInsert: c.prepare('INSERT INTO skills_fts (rowid, name, description, instructions, tags, facets) VALUES (?, ?, ?, ?, ?, ?)'),
    ftsDelete: c.prepare(
      "INSERT INTO skills_fts (skills_fts, rowid, name, description, instructions, tags, facets) VALUES ('delete', ?, ?, ?, ?, ?, ?)",
    ),
    any: c.prepare<{ one: number }, []>('SELECT 1 AS one FROM skills LIMIT 1'),
  }
})

export function sqliteSkillsStore(storage: SqliteStorage): SkillsStore {
  return {
    list: (filter, page) =>
      storage.read((db) => {
        const { prepared } = statements(db)
        const where: string[] = []
        const args: SQLQueryBindings[] = []
        if (filter.category !== undefined) {
          where.push('s.category = ?')
          args.push(filter.category)
        }
        if (filter.tag !== undefined) {
          where.push("(' ' || s.tags || ' ') LIKE ?")
          args.push(`% ${filter.tag} %`)
        }
        const clause = where.length ? `WHERE ${where.join(' AND ')}` : ''
        const total = prepared<{ n: number }>(`SELECT count(*) AS n FROM skills s ${clause}`).get(...args)!.n
        const rows = prepared<Row>(`SELECT ${SKILL_COLUMNS} FROM skills s ${clause} ORDER BY s.name LIMIT ? OFFSET ?`).all(
          ...args,
          page.limit,
          page.offset,
        )
        return { items: rows.map(record), total }
      }),

    get: (id) =>
      storage.read((db) => {
        const row = statements(db).one.get(id)
        return row ? record(row) : null
      }),

    search: ({ terms, category, tag }, { limit, offset }, window) =>
      storage.read((db) => {
        const { prepared } = statements(db)
        const facets: string[] = []
        if (category !== undefined) facets.push(facetToken('c', category))
        if (tag !== undefined) facets.push(facetToken('t', tag))
        const match = ftsExpression(terms, facets)
        const rows = prepared<Row & { total: number }>(
          `WITH ranked AS MATERIALIZED (
             SELECT rowid AS seq, bm25(skills_fts, 10.0, 4.0, 1.0, 6.0, 0.0) AS score FROM skills_fts WHERE skills_fts MATCH ?
             ORDER BY rowid DESC LIMIT ${window}
           ),
           page AS (SELECT seq, score FROM ranked ORDER BY score, seq DESC LIMIT ? OFFSET ?)
           SELECT ${SKILL_COLUMNS}, (SELECT count(*) FROM ranked) AS total
           FROM page r JOIN skills s ON s.seq = r.seq ORDER BY r.score, s.seq DESC`,
        ).all(match, limit, offset)
        const total =
          rows[0]?.total ??
          prepared<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM skills_fts WHERE skills_fts MATCH ? LIMIT ${window})`).get(match)!.n
        return { total, hits: rows.map(record) }
      }),

    upsertSkills: (inputs, now, tx) =>
      storage.write(
        (db) =>
          inputs.map((s): Outcome => {
            const q = statements(db)
            const { tags, allowedTools, metadata, files, hash } = storedSkill(s)
            const facets = skillFacets(s.category, s.tags)
            const existing = q.hash.get(s.id)
            if (existing?.source_hash === hash) {
              if (sameTimestamps(s, { createdAt: existing.created_at, updatedAt: existing.updated_at })) return 'unchanged'
              q.updateTimes.run(s.createdAt ?? null, s.updatedAt ?? null, existing.seq)
              return 'updated'
            }
            let seq: number
            if (!existing) {
              seq = q.insert.get(
                s.id,
                s.name,
                s.description,
                s.category,
                tags,
                s.license,
                s.compatibility,
                allowedTools,
                metadata,
                files,
                facets,
                hash,
                s.createdAt ?? now,
                s.updatedAt ?? s.createdAt ?? now,
                s.instructions,
              )!.seq
            } else {
              seq = existing.seq
              const old = q.old.get(seq)!
              q.ftsDelete.run(seq, old.name, old.description, old.instructions, old.tags, old.facets)
              q.update.run(
                s.name,
                s.description,
                s.category,
                tags,
                s.license,
                s.compatibility,
                allowedTools,
                metadata,
                files,
                facets,
                hash,
                s.createdAt ?? null,
                s.updatedAt ?? now,
                s.instructions,
                seq,
              )
            }
            q.ftsInsert.run(seq, s.name, s.description, s.instructions, tags, facets)
            return existing ? 'updated' : 'created'
          }),
        tx,
      ),

    hasAny: (tx) => storage.read((db) => statements(db).any.get() !== null, tx),

    optimizeSearchIndex: async () => {
      await storage.write((db) => db.$client.run("INSERT INTO skills_fts (skills_fts) VALUES ('optimize')"))
    },

    rebuildSearchIndex: async () => {
      await storage.write((db) => db.$client.run("INSERT INTO skills_fts (skills_fts) VALUES ('rebuild')"))
    },

    exportSkills: (cursor, filter, limits, tx) =>
      storage.read((db) => {
        const only = filter.category === undefined ? [] : [filter.category]
        const rows = statements(db)
          .prepared<Row & { instructions: string; created_at: number }>(
            `SELECT ${SKILL_COLUMNS}, s.created_at FROM skills s WHERE s.seq > ?${only.length ? ' AND +s.category = ?' : ''} ORDER BY s.seq`,
          )
          .iterate(cursor, ...only)
        const skills: SkillExport[] = []
        let chars = 0
        let last = cursor
        for (const r of rows) {
          if (skills.length > 0 && (skills.length >= limits.rows || chars + r.instructions.length > limits.chars)) break
          chars += r.instructions.length
          last = r.seq
          const { updatedAt, ...rest } = record(r)
          skills.push({ ...rest, instructions: r.instructions, createdAt: new Date(r.created_at), updatedAt })
        }
        return { skills, cursor: last }
      }, tx),
  }
}
