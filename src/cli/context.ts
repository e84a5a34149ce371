// What every command needs: the configuration, a logger, and (opened on demand) the storage.
import type { Config } from '../config'
import { databaseFile, type OpenStorageOptions, openStorage, type Storage } from '../db'
import { explainDatabaseError, explainOpenError, explainPostgresError } from '../db/explain'
import { NewerDatabaseError } from '../db/errors'
import { redactUrl } from '../db/postgres/url'
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
 * Opens the storage and brings its schema up to date, as the server does at start. On SQLite it
 * waits up to SQLITE_LOCK_TIMEOUT_MS for another process's lock (at open, and later for each
 * statement).
 */
export async function openCommandStorage(config: Config, options: OpenStorageOptions = {}): Promise<{ storage: Storage; applied: string[] }> {
  const started = Date.now()
  try {
    return await openStorage(config, options)
  } catch (error) {
    if (error instanceof NewerDatabaseError) throw new DatabaseUnavailableError(`${databaseName(config)}: ${error.message}`)
    const explained =
      explainStorageError(error, config, Date.now() - started) ?? (config.databaseUrl ? null : explainOpenError(error, databaseFile(config)))
    throw explained ? new DatabaseUnavailableError(explained) : error
  }
}

/** What the database is, for messages: the SQLite file, or the PostgreSQL URL without its password. */
export const databaseName = (config: Config) => (config.databaseUrl ? redactUrl(config.databaseUrl) : databaseFile(config))

/** One line saying what is wrong with the storage and what to do, or null for an error that is not about it. */
export function explainStorageError(error: unknown, config: Config, waitedMs?: number): string | null {
  return config.databaseUrl ? explainPostgresError(error, redactUrl(config.databaseUrl)) : explainDatabaseError(error, databaseFile(config), waitedMs)
}

/** Prints rows as aligned columns. */
export function table(rows: Record<string, string>[], columns: string[]): string[] {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c] ?? '')))]
}
