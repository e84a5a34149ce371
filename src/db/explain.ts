// One line saying what is wrong with the database and what to do, for the command line: every
// command that cannot use its storage ends with such a line, never a stack trace.
import { SQLiteError } from 'bun:sqlite'
import { dirname } from 'node:path'
import { isBusy } from './sqlite/client'

/** postgres-js reports network failures with Node's codes and server refusals with SQLSTATE codes. */
export function explainPostgresError(error: unknown, url: string): string | null {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (typeof code !== 'string') return null
  if (
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED)$/.test(
      code,
    )
  ) {
    return `cannot reach PostgreSQL at ${url} (${message}); check DATABASE_URL and that the server is running`
  }
  if (code === '28P01' || code === '28000') return `PostgreSQL at ${url} refused the login (${message}); check the user and password in DATABASE_URL`
  if (code === '3D000') return `the database in ${url} does not exist (${message}); create it (createdb) or fix DATABASE_URL`
  if (code === '42501') return `the PostgreSQL user in ${url} lacks a privilege promptlib needs (${message}); it must own the database`
  // Query parameters of the URL that postgres-js does not know go to the server as settings at connect.
  if ((code === '42704' || code === '22023') && /parameter "/.test(message))
    return `PostgreSQL at ${url} refused a setting (${message}); check the parameters after "?" in DATABASE_URL`
  if (code === '53300') return `PostgreSQL at ${url} has no free connections (${message}); raise max_connections or lower the instances' pools`
  return null
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
export function explainOpenError(error: unknown, file: string): string | null {
  if (error instanceof SQLiteError) return `cannot open the database ${file}: ${error.message}`
  // mkdir/open of the data directory or the file (EACCES, ENOTDIR, EROFS, ENOSPC...)
  const code = (error as { code?: unknown } | null)?.code
  if (error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return `cannot create or open the database ${file} (${error.message}); check DATA_DIR and that this user can write there`
  }
  return null
}
