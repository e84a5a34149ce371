// `promptlib backup` and `promptlib restore` on SQLite (docs/operations.md).
//
// Backup is `VACUUM INTO`: one read transaction on the live database, so the copy is the
// committed state of one moment while a server keeps reading and writing (WAL: readers and the
// writer never wait for it). The database is opened as it is, without migrating it: a backup
// taken before an upgrade must be the old version. The copy is written beside the target and
// renamed into place once checked, created 0600 (it holds password and token hashes).
//
// Restore puts a backup in place of the database. SQLite leaves WAL mode only when no other
// connection has the database open, so asking for it tells whether a server (or an import) has it
// open: then nothing is touched. Otherwise an exclusive lock keeps anyone from opening it during
// the swap, and the replaced database is kept beside it. A database in rollback-journal mode (an
// import alone on it, which holds no lock between files) is refused; a damaged one (what a restore
// is for) is set aside with its log and journal as they were.
import { Database, SQLiteError } from 'bun:sqlite'
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { EMBEDDED_MIGRATIONS } from './migrations.gen'

export class BackupError extends Error {}

export interface BackupResult {
  bytes: number
  seconds: number
}

/** A file that does not exist yet, 0600, empty (what VACUUM INTO accepts). */
function createEmptyPrivate(file: string): void {
  closeSync(openSync(file, 'wx', 0o600))
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

const canRead = (directory: string) => {
  try {
    accessSync(directory, constants.R_OK | constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** What a promptlib database says about itself: its migrations, and whether it is whole. */
function inspect(file: string): { migrations: number; ok: boolean; problem?: string } {
  let db: Database
  try {
    db = new Database(file, { readonly: true })
  } catch (error) {
    return { migrations: 0, ok: false, problem: (error as Error).message }
  }
  try {
    const check = db.query<{ quick_check: string }, []>('PRAGMA quick_check').all()
    const whole = check.length === 1 && check[0]!.quick_check === 'ok'
    if (!whole) return { migrations: 0, ok: false, problem: check.map((r) => r.quick_check).join('; ') }
    const table = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = '__drizzle_migrations'").get()!
    if (table.n === 0) return { migrations: 0, ok: false, problem: 'not a promptlib database (no migration history)' }
    return { migrations: db.query<{ n: number }, []>('SELECT count(*) AS n FROM __drizzle_migrations').get()!.n, ok: true }
  } catch (error) {
    return { migrations: 0, ok: false, problem: (error as Error).message }
  } finally {
    db.close()
  }
}

export function backupDatabase(file: string, target: string, { lockTimeoutMs }: { lockTimeoutMs: number }): BackupResult {
  const started = performance.now()
  if (!existsSync(file)) {
    // existsSync says false for a file this user may not look at, too.
    if (existsSync(dirname(file)) && !canRead(dirname(file)))
      throw new BackupError(`cannot read ${dirname(file)} (permission denied); run the backup as the user the server runs as`)
    throw new BackupError(`no database at ${file} (is DATA_DIR right?)`)
  }
  if (existsSync(target)) throw new BackupError(`${target} already exists; choose a new name (a backup never overwrites a file)`)
  const partial = join(dirname(target), `.${basename(target)}.partial`)
  rmSync(partial, { force: true })
  try {
    createEmptyPrivate(partial)
  } catch (error) {
    throw new BackupError(
      `cannot write the backup in ${dirname(target)} (${(error as Error).message}); check that the directory exists and this user can write there`,
    )
  }
  const db = new Database(file, { readwrite: true, create: false })
  try {
    db.run(`PRAGMA busy_timeout = ${lockTimeoutMs}`)
    db.query('VACUUM INTO ?').run(partial)
  } catch (error) {
    // The copy's own journal goes with it (VACUUM INTO writes one beside its target).
    for (const leftover of [partial, `${partial}-journal`]) rmSync(leftover, { force: true })
    // A full disk here is the target's (the database's disk has only been read).
    if (error instanceof SQLiteError && error.code?.startsWith('SQLITE_FULL'))
      throw new BackupError(`the disk holding ${dirname(target)} is full; nothing written (the database is untouched)`)
    throw error
  } finally {
    db.close()
  }
  const copy = inspect(partial)
  if (!copy.ok) {
    rmSync(partial, { force: true })
    throw new BackupError(`the copy did not check out (${copy.problem}); nothing written`)
  }
  fsyncFile(partial)
  renameSync(partial, target)
  return { bytes: statSync(target).size, seconds: (performance.now() - started) / 1000 }
}

export interface RestoreResult {
  /** where the database that was replaced now is (null: there was none) */
  replaced: string | null
}

const stamp = () =>
  new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/**
 * The journal mode written in a database file's header (bytes 18-19: 1 = rollback journal,
 * 2 = WAL), read without opening it; null for a file that is not a SQLite database.
 */
function headerJournalMode(file: string): 'wal' | 'rollback' | null {
  const header = Buffer.alloc(20)
  const fd = openSync(file, 'r')
  try {
    if (readSync(fd, header, 0, 20, 0) < 20) return null
  } finally {
    closeSync(fd)
  }
  if (header.subarray(0, 16).toString('latin1') !== 'SQLite format 3\u0000') return null
  return header[18] === 2 ? 'wal' : 'rollback'
}

/**
 * The backup as inspect() read it. A database copied with its log beside it (a copy of a data
 * directory taken while a server ran, or after one was killed) keeps its latest writes in that
 * `-wal`: SQLite reads them, a copy of the main file alone would lose them. Such a file is
 * written out through SQLite (VACUUM INTO); any other is copied byte for byte.
 */
function copyWhole(backup: string, target: string): void {
  const log = `${backup}-wal`
  if (!existsSync(log) || statSync(log).size === 0) return copyFileSync(backup, target)
  const db = new Database(backup, { readonly: true })
  try {
    db.run('VACUUM INTO ?', [target])
  } finally {
    db.close()
  }
}

/** SQLite says the file is not a (whole) database: no server can be serving it. */
const isDamaged = (error: unknown) =>
  error instanceof SQLiteError && (error.code?.startsWith('SQLITE_NOTADB') || error.code?.startsWith('SQLITE_CORRUPT')) === true

export function restoreDatabase(backup: string, file: string): RestoreResult {
  if (!existsSync(backup)) throw new BackupError(`no such file: ${backup}`)
  const found = inspect(backup)
  if (!found.ok) throw new BackupError(`${backup} cannot be restored: ${found.problem}`)
  if (found.migrations > EMBEDDED_MIGRATIONS.length)
    throw new BackupError(
      `${backup} comes from a newer promptlib (${found.migrations} migrations, this one knows ${EMBEDDED_MIGRATIONS.length}); restore it with that version`,
    )
  // Every promptlib process puts the database in WAL mode when it opens it; only an import alone
  // on it switches to a rollback journal (db/sqlite/bulk.ts), and an import between two files
  // holds no lock that the check below could see. Its later files would go into the replaced one.
  if (existsSync(file) && headerJournalMode(file) === 'rollback') {
    throw new BackupError(
      `${file} is in rollback-journal mode: an import is writing it (or one was interrupted: \`promptlib migrate\` recovers it); wait for the import to finish, then restore`,
    )
  }

  // A new machine: the data directory may not exist yet (created as the server creates it).
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const incoming = join(dirname(file), `.${basename(file)}.restoring`)
  rmSync(incoming, { force: true })
  copyWhole(backup, incoming)
  // It holds password and token hashes, whatever mode the backup file was given.
  chmodSync(incoming, 0o600)
  fsyncFile(incoming)

  if (!existsSync(file)) {
    renameSync(incoming, file)
    return { replaced: null }
  }
  const replaced = `${file}.before-restore-${stamp()}`
  const live = new Database(file, { readwrite: true, create: false })
  try {
    let alone: boolean
    try {
      // Leaving WAL mode needs the database to itself (and checkpoints the log into the file).
      alone = live.query<{ journal_mode: string }, []>('PRAGMA journal_mode = DELETE').get()?.journal_mode === 'delete'
    } catch (error) {
      if (!(error instanceof SQLiteError)) throw error
      if (isDamaged(error)) {
        // What a restore is for: the damaged file is kept, with its log, as it was.
        live.close()
        renameSync(file, replaced)
        for (const suffix of ['-wal', '-shm', '-journal']) if (existsSync(`${file}${suffix}`)) renameSync(`${file}${suffix}`, `${replaced}${suffix}`)
        renameSync(incoming, file)
        return { replaced }
      }
      alone = false
    }
    if (!alone) {
      rmSync(incoming, { force: true })
      throw new BackupError(`${file} is open in another process (a running server or an import); stop it, then restore`)
    }
    try {
      // Nobody may open it until the swap is done.
      live.run('PRAGMA locking_mode = EXCLUSIVE')
      live.run('BEGIN EXCLUSIVE')
    } catch (error) {
      rmSync(incoming, { force: true })
      if (!(error instanceof SQLiteError)) throw error
      throw new BackupError(`${file} is in use by another process (${error.message}); stop it, then restore`)
    }
    renameSync(file, replaced)
    renameSync(incoming, file)
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true })
    live.run('ROLLBACK')
    return { replaced }
  } finally {
    live.close()
  }
}
