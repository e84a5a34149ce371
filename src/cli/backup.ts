// `promptlib backup PATH` and `promptlib restore PATH` (db/sqlite/backup.ts; docs/operations.md).
// SQLite only: a PostgreSQL database is backed up with its own tools, which this says.
import { databaseFile, openStorage } from '../db'
import { BackupError, backupDatabase, restoreDatabase } from '../db/sqlite/backup'
import { type CliContext, UsageError } from './context'
import { refuseDataFile, sameFile } from './data-files'
import { BACKUP_USAGE, RESTORE_USAGE } from './usage'

const PG_BACKUP =
  'DATABASE_URL points at PostgreSQL: back it up with pg_dump (pg_dump --format=custom --file=promptlib.dump "$DATABASE_URL") and restore with pg_restore; see docs/operations.md'

function onePath(args: string[], usage: string): string {
  if (args.length !== 1 || args[0]!.startsWith('-')) throw new UsageError(`usage: ${usage}`)
  return args[0]!
}

export async function backupCommand(args: string[], ctx: CliContext): Promise<number> {
  const target = onePath(args, BACKUP_USAGE)
  if (ctx.config.databaseUrl) {
    ctx.err(`promptlib: ${PG_BACKUP}`)
    return 1
  }
  const file = databaseFile(ctx.config)
  refuseDataFile(target, ctx.config, 'backup')
  try {
    const { bytes, seconds } = backupDatabase(file, target, { lockTimeoutMs: ctx.config.sqlite.lockTimeoutMs })
    ctx.out(`backed up ${file} to ${target} (${(bytes / 1e6).toFixed(1)} MB, ${seconds.toFixed(1)} s)`)
    return 0
  } catch (error) {
    if (!(error instanceof BackupError)) throw error
    ctx.err(`promptlib: ${error.message}`)
    return 1
  }
}

export async function restoreCommand(args: string[], ctx: CliContext): Promise<number> {
  const backup = onePath(args, RESTORE_USAGE)
  if (ctx.config.databaseUrl) {
    ctx.err(`promptlib: ${PG_BACKUP}`)
    return 1
  }
  const file = databaseFile(ctx.config)
  if (sameFile(backup, file)) throw new UsageError('that is the database itself; give the backup file to restore')
  let replaced: string | null
  try {
    replaced = restoreDatabase(backup, file).replaced
  } catch (error) {
    if (!(error instanceof BackupError)) throw error
    ctx.err(`promptlib: ${error.message}; nothing changed`)
    return 1
  }
  // A backup from an older version is brought up to date now rather than at the server's start.
  const { storage, applied } = await openStorage(ctx.config)
  await storage.close()
  ctx.out(`restored ${backup} to ${file}${applied.length ? ` and applied ${applied.join(', ')}` : ''}`)
  if (replaced) ctx.out(`the database it replaced is kept as ${replaced}`)
  return 0
}
