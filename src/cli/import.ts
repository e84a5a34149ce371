// `promptlib import PATH… [--category SLUG]`: JSON catalogues, prompts.csv files and Agent
// Skills folders. Problems go to stderr as `file:line: error: …`; a progress bar is drawn on
// stderr only when it is a terminal; a summary per file ends the run. Exit 1 when any file had
// errors (those files changed nothing).
import type { Database } from 'bun:sqlite'
import { switchToWal } from '../db/client'
import { formatIssue, type FileReport } from '../features/catalogue/import/report'
import { importPaths } from '../features/catalogue/import/run'
import { isSlug } from '../features/catalogue/text'
import { type CliContext, openMigratedDatabase, table, UsageError } from './context'
import { IMPORT_USAGE } from './usage'


function parseArgs(args: string[]): { paths: string[]; category?: string } {
  const paths: string[] = []
  let category: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--category' || arg.startsWith('--category=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i]
      if (!value || !isSlug(value)) throw new UsageError('--category needs a slug: lowercase letters, digits and single hyphens (e.g. --category marketing)')
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

/** Imports that write this many records merge the search indexes into one segment each afterwards. */
const OPTIMIZE_AFTER = 10_000

/**
 * When no other process has the database open, the import runs with a rollback journal: every
 * page is then written once, where in WAL mode it is written to the log and copied again by the
 * checkpoint (100,000 prompts: 10 s instead of 15 s). SQLite refuses the switch while another
 * connection is open (a running server: SQLITE_BUSY), and the import then simply stays in WAL mode. A crash
 * midway leaves a journal that rolls the transaction back on the next open, as in WAL mode.
 * A rollback journal with synchronous=NORMAL can be corrupted by a power cut at the wrong moment
 * (WAL cannot), so bulk mode syncs fully: a few more fsyncs per file, nothing per row.
 */
export function enterBulkMode(client: Database, lockTimeoutMs: number): { leave: () => void } {
  let mode: string | undefined
  try {
    mode = client.query<{ journal_mode: string }, []>('PRAGMA journal_mode = DELETE').get()?.journal_mode
  } catch {
    mode = undefined // SQLITE_BUSY: another process has it open
  }
  if (mode !== 'delete') return { leave: () => {} }
  const synchronous = client.query<{ synchronous: number }, []>('PRAGMA synchronous').get()!.synchronous
  client.run('PRAGMA synchronous = FULL')
  return {
    leave: () => {
      // Back to WAL: like the switch at open, this waits (bounded) for a process that opened the database meanwhile.
      switchToWal(client, Date.now() + lockTimeoutMs)
      client.run(`PRAGMA synchronous = ${synchronous}`)
    },
  }
}

/**
 * FTS5 builds its index in segments as rows arrive; after a large import, every query would
 * have to look a word up in each of them. 'optimize' merges them (about 1.5 s per 100,000 prompts).
 */
function optimizeSearchIndexes(client: Database): void {
  for (const table of ['prompts_fts', 'prompts_head_fts', 'skills_fts']) {
    client.run(`INSERT INTO ${table} (${table}) VALUES ('optimize')`)
  }
}

export async function importCommand(args: string[], ctx: CliContext): Promise<number> {
  const { paths, category } = parseArgs(args)
  const db = openMigratedDatabase(ctx.config)
  // A bigger page cache for this process only: a large import rewrites many index pages.
  db.$client.run('PRAGMA cache_size = -262144')
  const bulk = enterBulkMode(db.$client, ctx.config.sqlite.lockTimeoutMs)
  const bar = progressBar()
  const started = performance.now()
  let reports: FileReport[]
  try {
    reports = importPaths(db, paths, { category, onProgress: bar.update })
    const written = reports.reduce((n, r) => n + r.created + r.updated, 0)
    if (written >= OPTIMIZE_AFTER) optimizeSearchIndexes(db.$client)
  } finally {
    bar.clear()
    bulk.leave()
    db.$client.close()
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
