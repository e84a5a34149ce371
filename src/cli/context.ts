// What every command needs: the configuration, a logger, and (opened on demand) the database.
import { SQLiteError } from 'bun:sqlite'
import { dirname, join } from 'node:path'
import type { Config } from '../config'
import { DATABASE_FILE, type Db, isBusy, openDatabase } from '../db/client'
import { runMigrations } from '../db/migrate'
import type { Logger } from '../log'

export interface CliContext {
  config: Config
  log: Logger
  /** standard output for the command's results (tests capture it) */
  out: (line: string) => void
  err: (line: string) => void
}

export class UsageError extends Error {}

/** The database cannot be used; the message is the one line a command prints before exiting 1. */
export class DatabaseUnavailableError extends Error {}

/**
 * Opens the database and brings its schema up to date, as the server does at start. Waits up to
 * SQLITE_LOCK_TIMEOUT_MS for another process's lock (at open, and later for each statement).
 */
export function openCommandDatabase(config: Config): { db: Db; applied: string[] } {
  const file = databaseFile(config)
  const started = Date.now()
  let db: Db | undefined
  try {
    db = openDatabase(file, { lockTimeoutMs: config.sqlite.lockTimeoutMs, synchronous: config.sqlite.synchronous })
    return { db, applied: runMigrations(db) }
  } catch (error) {
    db?.$client.close()
    const explained = explainDatabaseError(error, file, Date.now() - started) ?? explainOpenError(error, file)
    throw explained ? new DatabaseUnavailableError(explained) : error
  }
}

export function openMigratedDatabase(config: Config): Db {
  return openCommandDatabase(config).db
}

export function databaseFile(config: Config): string {
  return join(config.dataDir, DATABASE_FILE)
}

/** One line saying what is wrong with the database and what to do, or null for an error that is not about it. */
export function explainDatabaseError(error: unknown, file: string, waitedMs?: number): string | null {
  if (isBusy(error)) {
    const waited = waitedMs === undefined ? '' : `; waited ${Math.round(waitedMs / 1000)} s`
    return `the database ${file} is locked by another process (an import? a long transaction?)${waited}. Try again when it has finished, or wait longer with SQLITE_LOCK_TIMEOUT_MS`
  }
  if (!(error instanceof SQLiteError)) return null
  const code = error.code ?? ''
  if (code.startsWith('SQLITE_NOTADB')) return `${file} is not a SQLite database; move it away or set DATA_DIR to another directory`
  if (code.startsWith('SQLITE_CORRUPT')) return `the database ${file} is damaged (${error.message}); restore it from a backup`
  if (code.startsWith('SQLITE_FULL')) return `the disk holding ${file} is full`
  if (['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_IOERR'].some((c) => code.startsWith(c))) {
    return `cannot open or write the database ${file} (${error.message}); check that this user can write to ${dirname(file)} and the file`
  }
  return null // a bug rather than a state of the database: its stack trace helps
}

/** While opening, anything SQLite or the file system refuses is about the database. */
function explainOpenError(error: unknown, file: string): string | null {
  if (error instanceof SQLiteError) return `cannot open the database ${file}: ${error.message}`
  // mkdir/open of the data directory or the file (EACCES, ENOTDIR, EROFS, ENOSPC...)
  const code = (error as { code?: unknown } | null)?.code
  if (error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return `cannot create or open the database ${file} (${error.message}); check DATA_DIR and that this user can write there`
  }
  return null
}

/** Prints rows as aligned columns. */
export function table(rows: Record<string, string>[], columns: string[]): string[] {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)))
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c] ?? '')))]
}
