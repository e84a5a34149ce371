// `promptlib export`: the catalogue in the import formats (docs/catalogue-format.md), so that
// importing an export into an empty database reproduces it, ids and timestamps included. Read in
// pages inside one snapshot (a server may keep writing), written as it is read (memory stays a
// few pages whatever the size). Deterministic: categories in display order, prompts and skills in
// the order they were added, fixed key order, no time of export; the same catalogue always
// exports to the same bytes.
import type { Storage, Tx } from '../../db/storage'
import type { SkillExport, SkillsService } from '../skills'
import { CATALOGUE_FORMAT, CATALOGUE_VERSION } from './import/json'
import type { CatalogueStore, CategoryExport, PromptExport } from './store'

export type ExportFormat = 'json' | 'csv'

export interface ExportOptions {
  format: ExportFormat
  /** only this category (its prompts and skills) */
  category?: string
}

export interface ExportCounts {
  categories: number
  prompts: number
  skills: number
}

export interface ExportDeps {
  storage: Pick<Storage, 'snapshot'>
  store: Pick<CatalogueStore, 'exportCategories' | 'exportPrompts'>
  skills: Pick<SkillsService, 'exportSkills'>
}

/**
 * Rows and characters of text read per page. A page's text is held several times over while it is
 * turned into JSON, and the memory it took is not all given back before the next one: exporting
 * 100,000 prompts (the binary) peaked at 337 MB and took 1.8 s with pages of 2,000 rows and 16 M
 * characters; with these, 200 MB and 1.2 s (pages of 200 rows saved little more).
 */
const PAGE = { rows: 500, chars: 4_000_000 }

/** The columns of a CSV export: prompts.csv's `act,prompt,type`, then the ones only promptlib reads. */
export const CSV_EXPORT_COLUMNS = ['id', 'act', 'prompt', 'type', 'description', 'category', 'subcategory', 'tags', 'created_at', 'updated_at']

export class UnknownCategoryError extends Error {}

/** Writes the export through `write` (awaited, so a slow reader slows the export rather than filling memory). */
export async function exportCatalogue(deps: ExportDeps, opts: ExportOptions, write: (text: string) => Promise<void> | void): Promise<ExportCounts> {
  return deps.storage.snapshot(async (tx) => {
    const categories = await deps.store.exportCategories({ categoryId: opts.category }, tx)
    // A skill's category is its own word (a skill needs no category row): one that only skills use is known too.
    const skillsOnly = async (category: string) => (await deps.skills.exportSkills(0, { category }, { ...PAGE, rows: 1 }, tx)).skills.length > 0
    if (opts.category !== undefined && categories.length === 0 && !(await skillsOnly(opts.category)))
      throw new UnknownCategoryError(`no category "${opts.category}"`)
    const counts: ExportCounts = { categories: categories.length, prompts: 0, skills: 0 }
    if (opts.format === 'csv') {
      await write(`${CSV_EXPORT_COLUMNS.join(',')}\r\n`)
      for await (const page of promptPages(deps, opts, tx)) {
        counts.prompts += page.length
        await write(page.map(csvRow).join(''))
      }
      return counts
    }
    await write(`{\n  "format": ${JSON.stringify(CATALOGUE_FORMAT)},\n  "version": ${CATALOGUE_VERSION},\n  "categories": [`)
    await write(categories.map((c, i) => `${i ? ',' : ''}\n    ${JSON.stringify(categoryJson(c))}`).join(''))
    await write(`${categories.length ? '\n  ' : ''}],\n  "prompts": [`)
    for await (const page of promptPages(deps, opts, tx)) {
      await write(page.map((p, i) => `${counts.prompts + i ? ',' : ''}\n    ${JSON.stringify(promptJson(p))}`).join(''))
      counts.prompts += page.length
    }
    await write(`${counts.prompts ? '\n  ' : ''}],\n  "skills": [`)
    for (let cursor = 0; ; ) {
      const page = await deps.skills.exportSkills(cursor, { category: opts.category }, PAGE, tx)
      if (page.skills.length === 0) break
      await write(page.skills.map((s, i) => `${counts.skills + i ? ',' : ''}\n    ${JSON.stringify(skillJson(s))}`).join(''))
      counts.skills += page.skills.length
      cursor = page.cursor
    }
    await write(`${counts.skills ? '\n  ' : ''}]\n}\n`)
    return counts
  })
}

async function* promptPages(deps: ExportDeps, opts: ExportOptions, tx: Tx): AsyncGenerator<PromptExport[]> {
  for (let cursor = 0; ; ) {
    const page = await deps.store.exportPrompts(cursor, { categoryId: opts.category }, PAGE, tx)
    if (page.prompts.length === 0) return
    yield page.prompts
    cursor = page.cursor
  }
}

const iso = (date: Date) => date.toISOString()

const categoryJson = (c: CategoryExport) => ({
  id: c.id,
  name: c.name,
  description: c.description,
  icon: c.icon,
  order: c.order,
  // `order` too: stored orders need not be 1, 2, 3 (a file may give them), and a subcategory added later sorts among them.
  subcategories: c.subcategories.map((s) => ({ id: s.id, name: s.name, description: s.description, order: s.order })),
  created_at: iso(c.createdAt),
  updated_at: iso(c.updatedAt),
})

const promptJson = (p: PromptExport) => ({
  id: p.id,
  title: p.title,
  description: p.description,
  category: p.categoryId,
  ...(p.subcategoryId === null ? {} : { subcategory: p.subcategoryId }),
  tags: p.tags,
  type: p.type,
  content: p.content,
  created_at: iso(p.createdAt),
  updated_at: iso(p.updatedAt),
})

const skillJson = (s: SkillExport) => ({
  id: s.id,
  name: s.name,
  description: s.description,
  category: s.category,
  tags: s.tags,
  ...(s.license === null ? {} : { license: s.license }),
  ...(s.compatibility === null ? {} : { compatibility: s.compatibility }),
  ...(s.metadata === null ? {} : { metadata: s.metadata }),
  allowed_tools: s.allowedTools,
  files: s.files,
  instructions: s.instructions,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
})

/** RFC 4180: every field quoted (a field may hold commas, quotes, line breaks), quotes doubled, CRLF between records. */
const quote = (value: string) => `"${value.replaceAll('"', '""')}"`

const csvRow = (p: PromptExport) =>
  `${[p.id, p.title, p.content, p.type, p.description, p.categoryId, p.subcategoryId ?? '', p.tags.join(','), iso(p.createdAt), iso(p.updatedAt)]
    .map(quote)
    .join(',')}\r\n`
