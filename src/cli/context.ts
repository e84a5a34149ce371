// What every command needs: the configuration, a logger, and (opened on demand) the database.
import { join } from 'node:path'
import type { Config } from '../config'
import { DATABASE_FILE, type Db, openDatabase } from '../db/client'
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

/** Opens the database and brings its schema up to date, as the server does at start. */
export function openMigratedDatabase(config: Config): Db {
  const db = openDatabase(join(config.dataDir, DATABASE_FILE))
  runMigrations(db)
  return db
}

/** Prints rows as aligned columns. */
export function table(rows: Record<string, string>[], columns: string[]): string[] {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)))
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c] ?? '')))]
}
