// Applies the migrations embedded in the build (src/db/sqlite/migrations.gen.ts). Same bookkeeping
// table and hashes as drizzle's own migrator, but under BEGIN IMMEDIATE so two processes
// starting on one database cannot both apply a migration.
import { createHash } from 'node:crypto'
import { NewerDatabaseError } from '../errors'
import type { Db } from './client'
import { EMBEDDED_MIGRATIONS, type EmbeddedMigration } from './migrations.gen'

const TABLE = '__drizzle_migrations'

export function migrationHash(sql: string): string {
  return createHash('sha256').update(sql).digest('hex')
}

/**
 * Returns the tags of the migrations it applied. Foreign keys are off while migrations run, as
 * SQLite's procedure for rebuilding a table asks (dropping the old table must not cascade to the
 * rows that refer to it), and checked before the transaction commits.
 */
export function runMigrations(db: Db, migrations: EmbeddedMigration[] = EMBEDDED_MIGRATIONS): string[] {
  const sqlite = db.$client
  sqlite.run(`CREATE TABLE IF NOT EXISTS "${TABLE}" (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)`)
  const applied: string[] = []
  const apply = sqlite.transaction(() => {
    const last = sqlite.query(`SELECT created_at FROM "${TABLE}" ORDER BY created_at DESC LIMIT 1`).get() as { created_at: number } | null
    const newest = migrations.at(-1)?.when ?? 0
    if (last && Number(last.created_at) > newest) throw new NewerDatabaseError(Number(last.created_at), newest)
    for (const migration of migrations) {
      if (last && Number(last.created_at) >= migration.when) continue
      for (const statement of migration.sql.split('--> statement-breakpoint')) {
        if (statement.trim()) sqlite.run(statement)
      }
      sqlite.query(`INSERT INTO "${TABLE}" (hash, created_at) VALUES (?, ?)`).run(migrationHash(migration.sql), migration.when)
      applied.push(migration.tag)
    }
    if (applied.length === 0) return
    const broken = sqlite.query('PRAGMA foreign_key_check').all()
    if (broken.length > 0) throw new Error(`the migrations left rows whose foreign keys point nowhere: ${JSON.stringify(broken.slice(0, 5))}`)
  })
  const foreignKeys = (sqlite.query('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys
  sqlite.run('PRAGMA foreign_keys = OFF')
  try {
    apply.immediate()
  } finally {
    sqlite.run(`PRAGMA foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`)
  }
  return applied
}
