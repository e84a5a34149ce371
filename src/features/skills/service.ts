// Skills (pro and lifetime): list with filters, detail, full-text search (same query rules as
// the prompt search: quoted words, the last one a prefix, weighted bm25 over a bounded window).
import type { SQLQueryBindings } from 'bun:sqlite'
import type { Db } from '../../db/sqlite/client'
import { notFound } from '../../http/problem'
import { categoryFacet, ftsExpression, searchTerms, snippet, tagFacet } from '../catalogue/search-query'
import { slugify, splitTags } from '../catalogue/text'
import type { SkillRow } from './schema'

export const SKILL_SEARCH_WINDOW = 1000
const SKILL_COLUMNS = 's.seq, s.id, s.name, s.description, s.category, s.tags, s.license, s.compatibility, s.allowed_tools, s.metadata, s.files, s.updated_at'

type Row = Omit<SkillRow, 'allowedTools' | 'updatedAt' | 'createdAt' | 'sourceHash' | 'facets' | 'instructions'> & {
  allowed_tools: string
  updated_at: number
  instructions?: string
}

const view = (r: Row) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  category: r.category,
  tags: splitTags(r.tags),
  license: r.license,
  compatibility: r.compatibility,
  allowed_tools: JSON.parse(r.allowed_tools) as string[],
  metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, string>),
  files: JSON.parse(r.files) as string[],
  updated_at: new Date(r.updated_at).toISOString(),
})

export interface Page { limit: number; offset: number }

export function createSkills(db: Db) {
  const c = db.$client
  const one = c.prepare<Row & { instructions: string }, [string]>(`SELECT ${SKILL_COLUMNS}, s.instructions FROM skills s WHERE s.id = ?`)
  return {
    list(filters: { category?: string; tag?: string } & Page) {
      const where: string[] = []
      const args: SQLQueryBindings[] = []
      if (filters.category !== undefined) {
        where.push('s.category = ?')
        args.push(filters.category)
      }
      if (filters.tag !== undefined) {
        where.push("(' ' || s.tags || ' ') LIKE ?")
        args.push(`% ${slugify(filters.tag)} %`)
      }
      const clause = where.length ? `WHERE ${where.join(' AND ')}` : ''
      const total = c.query<{ n: number }, SQLQueryBindings[]>(`SELECT count(*) AS n FROM skills s ${clause}`).get(...args)!.n
      const rows = c.query<Row, SQLQueryBindings[]>(`SELECT ${SKILL_COLUMNS} FROM skills s ${clause} ORDER BY s.name LIMIT ? OFFSET ?`).all(...args, filters.limit, filters.offset)
      return { items: rows.map(view), total, limit: filters.limit, offset: filters.offset }
    },

    get(id: string) {
      const row = one.get(id)
      if (!row) throw notFound(`There is no skill "${id.slice(0, 100)}".`)
      return { ...view(row), instructions: row.instructions }
    },

    search(q: string, filters: { category?: string; tag?: string } & Page) {
      const terms = searchTerms(q)
      if (!terms) return { items: [], total: 0, limit: filters.limit, offset: filters.offset }
      const facets: string[] = []
      if (filters.category !== undefined) facets.push(categoryFacet(filters.category))
      if (filters.tag !== undefined) facets.push(tagFacet(slugify(filters.tag)))
      const match = ftsExpression(terms, facets)
      const rows = c
        .query<Row & { total: number; instructions: string }, SQLQueryBindings[]>(
          `WITH ranked AS MATERIALIZED (
             SELECT rowid AS seq, bm25(skills_fts, 10.0, 4.0, 1.0, 6.0, 0.0) AS score FROM skills_fts WHERE skills_fts MATCH ?
             ORDER BY rowid DESC LIMIT ${SKILL_SEARCH_WINDOW}
           ),
           page AS (SELECT seq, score FROM ranked ORDER BY score, seq DESC LIMIT ? OFFSET ?)
           SELECT ${SKILL_COLUMNS}, substr(s.instructions, 1, 50000) AS instructions, (SELECT count(*) FROM ranked) AS total
           FROM page r JOIN skills s ON s.seq = r.seq ORDER BY r.score, s.seq DESC`,
        )
        .all(match, filters.limit, filters.offset)
      const total = rows[0]?.total ?? c.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM (SELECT 1 FROM skills_fts WHERE skills_fts MATCH ? LIMIT ${SKILL_SEARCH_WINDOW})`).get(match)!.n
      return {
        items: rows.map((r) => ({ ...view(r), snippet: snippet([r.instructions, r.description, r.name], terms) })),
        total,
        limit: filters.limit,
        offset: filters.offset,
      }
    },
  }
}

export type Skills = ReturnType<typeof createSkills>
