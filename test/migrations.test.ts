// The migrations embedded in the binary are exactly drizzle-kit's files, and apply cleanly.
import { describe, expect, test } from 'bun:test'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { migrationHash, runMigrations } from '../src/db/sqlite/migrate'
import { EMBEDDED_PG_MIGRATIONS } from '../src/db/postgres/migrations.gen'
import { EMBEDDED_MIGRATIONS } from '../src/db/sqlite/migrations.gen'
import { tempDir } from './support/app'

describe('embedded migrations', () => {
  test('in step with drizzle/sqlite/meta/_journal.json, hash for hash (run `bun run db:generate` if this fails)', () => {
    const fromFolder = readMigrationFiles({ migrationsFolder: join(import.meta.dir, '..', 'drizzle', 'sqlite') })
    expect(EMBEDDED_MIGRATIONS.map((m) => [m.when, migrationHash(m.sql)])).toEqual(fromFolder.map((m) => [m.folderMillis, m.hash]))
    const sqlFiles = readdirSync(join(import.meta.dir, '..', 'drizzle', 'sqlite')).filter((f) => f.endsWith('.sql'))
    expect(sqlFiles.sort()).toEqual(EMBEDDED_MIGRATIONS.map((m) => `${m.tag}.sql`).sort())
  })

  test('PostgreSQL: in step with drizzle/postgres/meta/_journal.json, hash for hash', () => {
    const folder = join(import.meta.dir, '..', 'drizzle', 'postgres')
    const fromFolder = readMigrationFiles({ migrationsFolder: folder })
    expect(EMBEDDED_PG_MIGRATIONS.map((m) => [m.when, migrationHash(m.sql)])).toEqual(fromFolder.map((m) => [m.folderMillis, m.hash]))
    const sqlFiles = readdirSync(folder).filter((f) => f.endsWith('.sql'))
    expect(sqlFiles.sort()).toEqual(EMBEDDED_PG_MIGRATIONS.map((m) => `${m.tag}.sql`).sort())
  })

  test('apply to an empty database once; a second run applies nothing', () => {
    const db = openDatabase(join(tempDir(), 'm.db'))
    expect(runMigrations(db)).toEqual(EMBEDDED_MIGRATIONS.map((m) => m.tag))
    expect(runMigrations(db)).toEqual([])
    const tables = db.$client.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    expect(tables.map((t) => t.name)).toContain('users')
    db.$client.close()
  })

  test('the database runs in WAL mode with foreign keys on', () => {
    const db = openDatabase(join(tempDir(), 'p.db'))
    expect(db.$client.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(db.$client.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(db.$client.query('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 })
    db.$client.close()
  })
})
