// `promptlib import PATH… [--category SLUG]`: JSON catalogues, prompts.csv files and Agent
// Skills folders. Problems go to stderr as `file:line: error: …`; a progress bar is drawn on
// stderr only when it is a terminal; a summary per file ends the run. Exit 1 when any file had
// errors (those files changed nothing).
import { enterBulkMode } from '../db/sqlite/bulk'
import { createCatalogue, type FileReport, formatIssue } from '../features/catalogue'
import { createSkills } from '../features/skills'
import { createUsage } from '../features/usage'
import { isSlug } from '../lib/text'
import { type CliContext, openCommandStorage, table, UsageError } from './context'
import { IMPORT_USAGE } from './usage'

function parseArgs(args: string[]): { paths: string[]; category?: string } {
  const paths: string[] = []
  let category: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--category' || arg.startsWith('--category=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i]
      if (!value || !isSlug(value))
        throw new UsageError('--category needs a slug: lowercase letters, digits and single hyphens (e.g. --category marketing)')
      category = value
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}\nusage: ${IMPORT_USAGE}`)
    else paths.push(arg)
  }
  if (paths.length === 0) throw new UsageError(`usage: ${IMPORT_USAGE}`)
  return { paths, category }
}

function progressBar(): { update: (file: string, done: number, total: number) => void; clear: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, clear: () => {} }
  let last = 0
  return {
    update(file, done, total) {
      const now = Date.now()
      if (now - last < 100 && done < total) return
      last = now
      const width = 30
      const filled = total > 0 ? Math.round((done / total) * width) : width
      const name = file.length > 40 ? `…${file.slice(-39)}` : file
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${name}\u001b[K`)
    },
    clear: () => process.stderr.write('\r\u001b[K'),
  }
}

/**
 * Imports that write this many records merge the search indexes afterwards (SQLite: FTS5 builds
 * its index in segments as rows arrive, and every query would look a word up in each of them;
 * PostgreSQL: fresh planner statistics and the GIN indexes' pending entries merged).
 */
const OPTIMIZE_AFTER = 10_000

export async function importCommand(args: string[], ctx: CliContext): Promise<number> {
  const { paths, category } = parseArgs(args)
  const { storage } = await openCommandStorage(ctx.config, { singleConnection: true })
  // SQLite alone on the database: a rollback journal (db/sqlite/bulk.ts).
  const bulk = storage.engine === 'sqlite' ? enterBulkMode(storage.writer.$client, ctx.config.sqlite.lockTimeoutMs) : { leave: () => {} }
  const catalogue = createCatalogue({ storage, usage: createUsage(storage), skills: createSkills(storage) })
  const bar = progressBar()
  const started = performance.now()
  let reports: FileReport[]
  try {
    reports = await catalogue.importPaths(paths, { category, onProgress: bar.update })
    const written = reports.reduce((n, r) => n + r.created + r.updated, 0)
    if (written >= OPTIMIZE_AFTER) await catalogue.optimizeSearchIndex()
  } finally {
    bar.clear()
    bulk.leave()
    await storage.close()
  }
  for (const r of reports) {
    for (const issue of r.errors) ctx.err(formatIssue('error', issue))
    for (const issue of r.warnings) ctx.err(formatIssue('warning', issue))
  }
  const rows = reports.map((r) => ({
    file: r.file,
    result: r.errors.length > 0 ? 'FAILED (nothing changed)' : 'ok',
    created: String(r.created),
    updated: String(r.updated),
    unchanged: String(r.unchanged),
    warnings: String(r.warnings.length),
    errors: String(r.errors.length),
  }))
  for (const line of table(rows, ['file', 'result', 'created', 'updated', 'unchanged', 'warnings', 'errors'])) ctx.out(line)
  const failed = reports.filter((r) => r.errors.length > 0).length
  ctx.out(`${reports.length} file(s) in ${((performance.now() - started) / 1000).toFixed(1)} s; ${failed} with errors`)
  return failed > 0 ? 1 : 0
}
