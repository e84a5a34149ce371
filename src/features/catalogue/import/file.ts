// One imported file, whatever its format: one transaction, records written in batches as they are
// read, a refused record counted and reported alone. A file refused as a whole (not JSON, a wrong
// header, not a catalogue) rolls back; so does a dry run, after doing all the work, so its report
// is exactly what the import would do.
import type { Tx } from '../../../db/storage'
import type { CategoryInput, Outcome, PromptInput, SubcategoryInput } from '../store'
import { Batch } from './batches'
import { type FileReport, type OnProgress, refuse } from './report'
import type { ImportTarget, SkillInput } from './target'

/** Prompts written from one file after which index work waits for its end (ImportTarget.deferIndexWork). */
export const DEFER_INDEX_WORK_AFTER = 10_000

export interface FileImportOptions {
  now?: number
  /** validate and count everything, then roll back: nothing is written */
  dryRun?: boolean
  onProgress?: OnProgress
  /** join this transaction (the demo loader's) instead of running one of its own */
  tx?: Tx
}

/** The whole file is refused (its transaction rolls back). */
export class FileRefused extends Error {
  constructor(
    readonly line: number | null,
    message: string,
  ) {
    super(message)
  }
}

class DryRunDone extends Error {}

/** What a file's import writes with, inside its transaction; every outcome is counted in its report. */
export interface FileWrites {
  readonly tx: Tx
  prompt(input: PromptInput): Promise<void>
  skill(input: SkillInput): Promise<void>
  category(input: CategoryInput, subcategories: SubcategoryInput[]): Promise<void>
  /** Creates a category named after its slug when it does not exist. */
  ensureCategory(id: string): Promise<void>
  /** Writes the records waiting in batches. */
  flush(): Promise<void>
}

export async function importFile(
  target: ImportTarget,
  report: FileReport,
  opts: FileImportOptions,
  body: (writes: FileWrites) => Promise<void>,
): Promise<FileReport> {
  const now = opts.now ?? Date.now()
  let changed = false
  const count = (outcome: Outcome) => {
    report[outcome]++
    if (outcome !== 'unchanged') changed = true
  }
  try {
    await target.transaction(async (tx) => {
      // An instance that starts meanwhile checks for an empty catalogue under this lock: it waits
      // for this file's commit and finds it, where it saw nothing and loaded the demo on top.
      await target.catalogue.lockDemoLoad(tx)
      let undoIndexWork: (() => Promise<void>) | null = null
      let promptsWritten = 0
      const prompts = new Batch<PromptInput, Outcome>(
        (p) => p.id,
        (p) => p.content.length + p.title.length + p.description.length,
        async (batch) => {
          promptsWritten += batch.length
          if (undoIndexWork === null && promptsWritten >= DEFER_INDEX_WORK_AFTER) undoIndexWork = await target.deferIndexWork(tx, promptsWritten)
          return target.catalogue.upsertPrompts(batch, now, tx)
        },
        count,
      )
      const skills = new Batch<SkillInput, Outcome>(
        (s) => s.id,
        (s) => s.instructions.length + s.description.length,
        (batch) => target.skills.upsertSkills(batch, now, tx),
        count,
      )
      const flush = async () => {
        await prompts.flush()
        await skills.flush()
      }
      await body({
        tx,
        prompt: (input) => prompts.add(input),
        skill: (input) => skills.add(input),
        async category(input, subcategories) {
          count(await target.catalogue.upsertCategory(input, now, tx))
          // A subcategory is part of its category's record: not counted, but a change moves the revision.
          for (const sub of subcategories) if ((await target.catalogue.upsertSubcategory(input.id, sub, tx)) !== 'unchanged') changed = true
        },
        async ensureCategory(id) {
          if (await target.catalogue.ensureCategory(id, now, tx)) changed = true
        },
        flush,
      })
      await flush()
      if (undoIndexWork) await (undoIndexWork as () => Promise<void>)()
      if (opts.dryRun) throw new DryRunDone()
      if (changed) await target.catalogue.bumpRevision(tx)
    }, opts.tx)
  } catch (error) {
    if (error instanceof DryRunDone) return report
    if (error instanceof FileRefused) return refuse(report, error.line, error.message)
    // A constraint the checks did not foresee (another process changed the catalogue meanwhile):
    // the transaction rolled back; reported instead of crashing the import.
    if (error instanceof Error && /constraint/i.test(error.message)) return refuse(report, null, `the import was rolled back: ${error.message}`)
    throw error
  }
  if (changed && !opts.tx) await target.committed()
  return report
}
