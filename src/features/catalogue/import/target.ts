// What the importers write through: the catalogue's and the skills' ports, and the storage's
// transactions (one per imported file). Built by catalogue/importer.ts; the same on both engines.
import type { Tx } from '../../../db/storage'
import type { SkillInput, SkillsService } from '../../skills'
import type { CatalogueStore } from '../store'

export interface ImportTarget {
  /** Runs `fn` in one transaction (joining `tx` when given). */
  transaction<T>(fn: (tx: Tx) => Promise<T>, tx?: Tx): Promise<T>
  catalogue: Pick<
    CatalogueStore,
    'categoryOutline' | 'upsertCategory' | 'ensureCategory' | 'upsertSubcategory' | 'upsertPrompts' | 'bumpRevision' | 'lockDemoLoad'
  >
  skills: Pick<SkillsService, 'upsertSkills'>
  /**
   * Many prompts follow in `tx` (a large file; `written` so far): the search index may leave
   * merging its pieces to the optimize that follows a large import, and indexes the import does
   * not read may be built once at the end (CatalogueStore.deferIndexes). Returns the undo, run
   * before `tx` ends.
   */
  deferIndexWork(tx: Tx, written: number): Promise<() => Promise<void>>
  /** After a transaction that moved the catalogue revision committed: this process's answers show it at once. */
  committed(): Promise<void>
}

export type { SkillInput }
