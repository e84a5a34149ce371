// The catalogue: categories, prompts, search, prompt detail (metered), and its write side (the
// importers and the demo loader). Other features reach it only through this module: favorites
// read titles with promptTitles().
import type { Job } from '../../db/jobs'
import type { Storage } from '../../db/storage'
import type { Logger } from '../../log'
import type { SkillsService } from '../skills'
import type { UsageService } from '../usage'
import type { ExportCounts, ExportOptions } from './export'
import { createImporter } from './importer'
import { createCatalogueService } from './service'
import { sqlitePromptSearch } from './search.sqlite'
import { sqliteCatalogueStore } from './store.sqlite'

export { catalogueRoutes } from './routes'
export { type ExportCounts, type ExportFormat, type ExportOptions, UnknownCategoryError } from './export'
export { formatIssue, type FileReport, type ImportIssue, type Progress as ImportProgress } from './import/report'
export { CategoryView as CategoryViewSchema, SearchHit as SearchHitSchema, Variable as VariableSchema } from './model'
export type { CategoryView, Prompt, PromptSummary } from './model'
export { fillVariables, type FillProblem } from './text'
export { type Caller, canonicalUuid } from './service'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgSearch = (): typeof import('./search.pg') => require('./search.pg')
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

export function createCatalogue({
  storage,
  usage,
  skills,
}: {
  storage: Storage
  usage: Pick<UsageService, 'consume' | 'peek'>
  skills: SkillsService
}) {
  const [store, search] =
    storage.engine === 'sqlite'
      ? [sqliteCatalogueStore(storage), sqlitePromptSearch(storage)]
      : [pgStore().pgCatalogueStore(storage), pgSearch().pgPromptSearch(storage)]
  const service = createCatalogueService({ store, search, usage })
  const importer = createImporter({ storage, store, search, skills, noteWrite: service.noteWrite })
  return {
    ...service,
    ...importer,
    /** `promptlib export`: the catalogue in an import format, written through `write` (export.ts). */
    async exportCatalogue(opts: ExportOptions, write: (text: string) => Promise<void> | void): Promise<ExportCounts> {
      const { exportCatalogue } = await import('./export')
      return exportCatalogue({ storage, store, skills }, opts, write)
    },
    jobs: [] as Job[],
  }
}

export type CatalogueService = ReturnType<typeof createCatalogue>

/** `promptlib serve`: the built-in demo catalogue on a fresh install (DEMO_CATALOGUE). */
export const loadDemoCatalogueIfEmpty = (catalogue: Pick<CatalogueService, 'loadDemoIfEmpty'>, log: Logger) => catalogue.loadDemoIfEmpty(log)
