// `promptlib import PATH… [--category SLUG] [--dry-run]`: JSON catalogues, prompts.csv files and
// Agent Skills folders, streamed record by record. Problems go to stderr as `file:line: error: …`;
// on a terminal a progress bar (records, MB/s, time left) is drawn on stderr; each path ends with
// one summary line on stdout. Exit 1 when any record or file had errors.
import type { Tx } from '../db/storage'
import { enterBulkMode } from '../db/sqlite/bulk'
import { createCatalogue, type FileReport, formatIssue, type ImportProgress } from '../features/catalogue'
import { createSkills } from '../features/skills'
import { createUsage } from '../features/usage'
import { isSlug } from '../lib/text'
import { type CliContext, openCommandStorage, UsageError } from './context'
import { IMPORT_USAGE } from './usage'

function parseArgs(args: string[]): { paths: string[]; category?: string; dryRun: boolean } {
  const paths: string[] = []
  let category: string | undefined
  let dryRun = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--category' || arg.startsWith('--category=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i]
      if (!value || !isSlug(value))
        throw new UsageError('--category needs a slug: lowercase letters, digits and single hyphens (e.g. --category marketing)')
      category = value
    } else if (arg === '--dry-run') dryRun = true
    else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}\nusage: ${IMPORT_USAGE}`)
    else paths.push(arg)
  }
  if (paths.length === 0) throw new UsageError(`usage: ${IMPORT_USAGE}`)
  return { paths, category, dryRun }
}

const MB = 1e6
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`
const number = (n: number) => n.toLocaleString('en-US')

/** A progress bar on stderr, redrawn at most ten times a second; nothing when stderr is not a terminal. */
function progressBar(): { update: (file: string, progress: ImportProgress) => void; clear: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, clear: () => {} }
  let last = 0
  let current = ''
  let started = 0
  return {
    update(file, { records, bytes, totalBytes }) {
      const now = performance.now()
      if (file !== current) {
        current = file
        started = now
      }
      if (now - last < 100) return
      last = now
      const width = 24
      const share = totalBytes > 0 ? Math.min(1, bytes / totalBytes) : 0
      const filled = Math.round(share * width)
      const seconds = (now - started) / 1000
      const rate = seconds > 0 ? bytes / seconds : 0
      const eta = rate > 0 ? clock((totalBytes - bytes) / rate) : '?'
      const name = file.length > 40 ? `…${file.slice(-39)}` : file
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}%  ${number(records)} records  ${(rate / MB).toFixed(1)} MB/s  ETA ${eta}  ${name}\u001b[K`,
      )
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

/** One line for the files that came from one path (a folder of skills holds many). */
function summary(source: string, reports: FileReport[], seconds: number, dryRun: boolean): string {
  const sum = (key: 'created' | 'updated' | 'unchanged' | 'failed' | 'bytes') => reports.reduce((n, r) => n + r[key], 0)
  const warnings = reports.reduce((n, r) => n + r.warnings.length + r.moreWarnings, 0)
  const refused = reports.filter((r) => r.refused)
  if (refused.length === reports.length)
    return `${source}: refused, nothing changed (${refused.length > 1 ? 'every file had errors' : 'see the error above'})`
  const counts = `${number(sum('created'))} added, ${number(sum('updated'))} updated, ${number(sum('unchanged'))} unchanged, ${number(sum('failed'))} failed`
  const extra = [
    ...(refused.length > 0 ? [`${refused.length} of ${reports.length} files refused`] : []),
    ...(warnings > 0 ? [`${number(warnings)} warning${warnings === 1 ? '' : 's'}`] : []),
  ]
  const rate = seconds > 0 && sum('bytes') > 0 ? `, ${(sum('bytes') / MB / seconds).toFixed(1)} MB/s` : ''
  return `${source}: ${dryRun ? 'dry run, nothing written: ' : ''}${counts}${extra.length ? `; ${extra.join(', ')}` : ''} (${seconds.toFixed(1)} s${rate})`
}

export async function importCommand(args: string[], ctx: CliContext): Promise<number> {
  const { paths, category, dryRun } = parseArgs(args)
  const { storage } = await openCommandStorage(ctx.config, { singleConnection: true })
  // SQLite alone on the database: a rollback journal (db/sqlite/bulk.ts). A dry run, which rolls back, stays in WAL mode.
  const bulk = storage.engine === 'sqlite' && !dryRun ? enterBulkMode(storage.writer.$client, ctx.config.sqlite.lockTimeoutMs) : { leave: () => {} }
  const catalogue = createCatalogue({ storage, usage: createUsage(storage), skills: createSkills(storage) })
  const bar = progressBar()
  const results: { source: string; reports: FileReport[]; seconds: number }[] = []
  let current: string | null = null
  const importAll = async (tx?: Tx) => {
    for (const path of paths) {
      current = path
      const started = performance.now()
      const reports = await catalogue.importPaths([path], { category, dryRun: dryRun && !tx, tx, onProgress: bar.update })
      results.push({ source: path, reports, seconds: (performance.now() - started) / 1000 })
    }
    current = null
  }
  try {
    // A dry run of several paths: every file in one transaction (each in a savepoint), rolled back
    // at the end, so a file sees what the paths before it would have written, as in the real run.
    if (dryRun && paths.length > 1)
      await storage.transaction((tx) => importAll(tx).then(() => Promise.reject(new DryRunOver()))).catch(ignoreDryRunOver)
    else await importAll()
    const written = results.flatMap((r) => r.reports).reduce((n, r) => n + r.created + r.updated, 0)
    if (!dryRun && written >= OPTIMIZE_AFTER) await catalogue.optimizeSearchIndex()
  } catch (error) {
    // The storage failed (a full disk, a lock held too long): what the files before it committed
    // is said, and which file it stopped; the error itself is explained by the command line.
    bar.clear()
    for (const { source, reports, seconds } of results) ctx.out(summary(source, reports, seconds, dryRun))
    if (current !== null) ctx.err(`${current}: not imported (rolled back); the error follows`)
    throw error
  } finally {
    bar.clear()
    bulk.leave()
    await storage.close()
  }
  let failed = false
  for (const { reports } of results) {
    for (const r of reports) {
      for (const issue of r.errors) ctx.err(formatIssue('error', issue))
      if (r.moreErrors > 0) ctx.err(`${r.file}: … and ${number(r.moreErrors)} more errors`)
      for (const issue of r.warnings) ctx.err(formatIssue('warning', issue))
      if (r.moreWarnings > 0) ctx.err(`${r.file}: … and ${number(r.moreWarnings)} more warnings`)
      failed ||= r.errors.length > 0 || r.moreErrors > 0
    }
  }
  for (const { source, reports, seconds } of results) ctx.out(summary(source, reports, seconds, dryRun))
  return failed ? 1 : 0
}

/** Ends a dry run's transaction: thrown to roll it back. */
class DryRunOver extends Error {}
const ignoreDryRunOver = (error: unknown) => {
  if (!(error instanceof DryRunOver)) throw error
}
