// The catalogue's write side, as `promptlib import` and the demo loader use it: the importers
// (import/) over the catalogue's and the skills' ports, one transaction per file. The importers
// (CSV, YAML, the demo's JSON) are loaded on first use: a serving process seldom needs them.
import type { Storage } from '../../db/storage'
import type { Logger } from '../../log'
import type { SkillsService } from '../skills'
import type { JsonImportOptions } from './import/json'
import type { FileReport } from './import/report'
import type { ImportOptions } from './import/run'
import type { ImportTarget } from './import/target'
import type { CatalogueStore } from './store'
import type { PromptSearch } from './search'

export interface ImporterDeps {
  storage: Pick<Storage, 'transaction' | 'savepoint'>
  store: CatalogueStore
  search: PromptSearch
  skills: SkillsService
  /** called after a committed write that moved the catalogue revision */
  noteWrite: () => Promise<void>
}

export function createImporter({ storage, store, search, skills, noteWrite }: ImporterDeps) {
  const target: ImportTarget = {
    // A file joined to a larger transaction (the demo's, a dry run of several files) is undone alone when refused.
    transaction: (fn, tx) => (tx ? storage.savepoint(fn, tx) : storage.transaction(fn)),
    catalogue: store,
    skills,
    async deferIndexWork(tx, written) {
      const undoMerges = await search.deferMerges(tx)
      const undoIndexes = await store.deferIndexes(tx, written)
      return async () => {
        await undoIndexes()
        await undoMerges()
      }
    },
    committed: noteWrite,
  }

  return {
    /** `promptlib import PATH…`: .json catalogues, .csv prompt lists, SKILL.md folders; a report per file. */
    async importPaths(paths: string[], opts: ImportOptions = {}): Promise<FileReport[]> {
      const { importPaths } = await import('./import/run')
      return importPaths(target, paths, opts)
    },

    /** A catalogue already parsed (the catalogue format), as one file (tests; problems carry no line). */
    async importCatalogueData(data: unknown, opts: Omit<JsonImportOptions, 'tx'>): Promise<FileReport> {
      const { importCatalogueData } = await import('./import/json')
      return importCatalogueData(target, data, opts)
    },

    /**
     * The built-in demo catalogue, loaded when the catalogue is empty (no category, prompt or
     * skill), through the same importer as `promptlib import`, in one transaction. Instances that
     * start together on one database load it once: the emptiness check and the import hold the
     * demo lock (PostgreSQL) or the write lock (SQLite). The demo and the importer are loaded only
     * when needed: a server with a catalogue never holds them.
     */
    async loadDemoIfEmpty(log: Logger): Promise<boolean> {
      const loaded = await storage
        .transaction(async (tx) => {
          await store.lockDemoLoad(tx)
          if ((await store.hasContent(tx)) || (await skills.hasAny(tx))) return false
          const [{ default: demo }, { importCatalogueData }] = await Promise.all([import('./demo/demo-catalogue.json'), import('./import/json')])
          const report = await importCatalogueData(target, demo, { file: 'demo-catalogue.json', tx })
          if (report.errors.length > 0) throw new DemoFailed(report)
          log.info('demo catalogue loaded', { records: report.created })
          return true
        })
        .catch((error: unknown) => {
          if (!(error instanceof DemoFailed)) throw error
          log.error('the demo catalogue did not load', { errors: error.report.errors.map((e) => e.message).slice(0, 5) })
          return false
        })
      if (loaded) await noteWrite()
      return loaded
    },

    /** After a large import: see PromptSearch.optimize (prompts and skills). */
    async optimizeSearchIndex(): Promise<void> {
      await search.optimize()
      await skills.optimizeSearchIndex()
    },

    /** The search indexes of every prompt and skill, written again from the rows (after `promptlib db copy`). */
    async rebuildSearchIndex(): Promise<void> {
      await search.rebuild()
      await skills.rebuildSearchIndex()
    },
  }
}

/** Rolls the demo's transaction back (a broken build, never a user's doing). */
class DemoFailed extends Error {
  constructor(readonly report: FileReport) {
    super('the demo catalogue did not load')
  }
}

export type Importer = ReturnType<typeof createImporter>
