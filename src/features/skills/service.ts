// Skills (pro and lifetime): list with filters, detail, full-text search (the same query rules as
// the prompt search: lib/search), and the writes the catalogue's importers make through index.ts.
import type { Tx } from '../../db/storage'
import { notFound } from '../../http/problem'
import { snippet } from '../../lib/search/snippet'
import { searchTerms } from '../../lib/search/terms'
import { slugify } from '../../lib/text'
import { type Skill, SKILL_SEARCH_WINDOW, type SkillPage, type SkillSearchPage } from './model'
import type { Page, SkillInput, SkillRecord, SkillsStore } from './store'

/** The first this many characters of the instructions are searched for the snippet. */
const SNIPPET_SOURCE_CHARS = 50_000

const view = (r: SkillRecord): Skill => ({
  id: r.id,
  name: r.name,
  description: r.description,
  category: r.category,
  tags: r.tags,
  license: r.license,
  compatibility: r.compatibility,
  allowed_tools: r.allowedTools,
  metadata: r.metadata,
  files: r.files,
  updated_at: r.updatedAt.toISOString(),
  instructions: r.instructions,
})

export function createSkillsService(store: SkillsStore) {
  return {
    async list(filters: { category?: string; tag?: string } & Page): Promise<SkillPage> {
      const page = { limit: filters.limit, offset: filters.offset }
      const tag = filters.tag === undefined ? undefined : slugify(filters.tag)
      // A tag with nothing of a slug in it ("!!!") is no skill's tag (as in the prompt search).
      if (tag === '') return { items: [], total: 0, ...page }
      const { items, total } = await store.list({ category: filters.category, tag }, page)
      return { items: items.map(view), total, ...page }
    },

    async get(id: string): Promise<Skill> {
      const row = await store.get(id)
      if (!row) throw notFound(`There is no skill "${id.slice(0, 100)}".`)
      return view(row)
    },

    async search(q: string, filters: { category?: string; tag?: string } & Page): Promise<SkillSearchPage> {
      const page = { limit: filters.limit, offset: filters.offset }
      const terms = searchTerms(q)
      const tag = filters.tag === undefined ? undefined : slugify(filters.tag)
      if (!terms || tag === '') return { items: [], total: 0, ...page }
      const query = { terms, category: filters.category, tag }
      const { total, hits } = await store.search(query, page, SKILL_SEARCH_WINDOW)
      return {
        items: hits.map((r) => ({ ...view(r), snippet: snippet([r.instructions.slice(0, SNIPPET_SOURCE_CHARS), r.description, r.name], terms) })),
        total,
        ...page,
      }
    },

    /** The importers' write path: joins the importing transaction. */
    upsertSkills: (inputs: SkillInput[], now: number, tx: Tx) => store.upsertSkills(inputs, now, tx),
    hasAny: (tx?: Tx) => store.hasAny(tx),
    optimizeSearchIndex: () => store.optimizeSearchIndex(),
    rebuildSearchIndex: () => store.rebuildSearchIndex(),
    /** A page of skills for an export (catalogue/export), in the order they were added. */
    exportSkills: (cursor: number, filter: { category?: string }, limits: { rows: number; chars: number }, tx?: Tx) =>
      store.exportSkills(cursor, filter, limits, tx),
  }
}

export type SkillsService = ReturnType<typeof createSkillsService>
