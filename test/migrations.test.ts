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

  test('0009 fills linked_providers for accounts linked before it', () => {
    const db = openDatabase(join(tempDir(), 'backfill.db'))
    const upTo = EMBEDDED_MIGRATIONS.findIndex((m) => m.tag === '0009_linked_providers')
    runMigrations(db, EMBEDDED_MIGRATIONS.slice(0, upTo))
    db.$client.run(
      `INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'a@b.co', 'A', 'free', 1, 1), ('u2', 'c@d.co', 'C', 'free', 1, 1)`,
    )
    for (const [provider, subject] of [
      ['provider-b', 's1'],
      ['provider-a', 's2'],
      ['provider-b', 's3'],
    ]) {
      db.$client.run(
        `INSERT INTO oauth_identities (provider, issuer, subject, user_id, created_at, last_sign_in_at) VALUES (?, 'https://idp', ?, 'u1', 1, 1)`,
        [provider!, subject!],
      )
    }
    runMigrations(db)
    expect(db.$client.query('SELECT id, linked_providers FROM users ORDER BY id').all()).toEqual([
      { id: 'u1', linked_providers: 'provider-a provider-b' },
      { id: 'u2', linked_providers: '' },
    ])
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
