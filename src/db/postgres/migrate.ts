// Applies the PostgreSQL migrations embedded in the build (./migrations.gen.ts), with the same
// bookkeeping table and hashes as drizzle's own migrator (drizzle.__drizzle_migrations), inside
// one transaction holding an advisory lock: instances that start together apply each
// migration once, the others wait and then find nothing left to do.
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { PgStorage } from '../storage'
import { EMBEDDED_PG_MIGRATIONS, type EmbeddedMigration } from './migrations.gen'
import { NewerDatabaseError } from '../errors'
import { LOCKS } from './locks'

export const migrationHash = (text: string) => createHash('sha256').update(text).digest('hex')

/** Returns the tags of the migrations it applied. */
export async function runPgMigrations(storage: PgStorage, migrations: EmbeddedMigration[] = EMBEDDED_PG_MIGRATIONS): Promise<string[]> {
  return storage.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOCKS.migrations})`)
    await tx.execute(sql`CREATE SCHEMA IF NOT EXISTS drizzle`)
    await tx.execute(sql`CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`)
    const [last] = (await tx.execute(sql`SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`)) as unknown as {
      created_at: string
    }[]
    const newest = migrations.at(-1)?.when ?? 0
    if (last && Number(last.created_at) > newest) throw new NewerDatabaseError(Number(last.created_at), newest)
    const applied: string[] = []
    for (const migration of migrations) {
      if (last && Number(last.created_at) >= migration.when) continue
      for (const statement of migration.sql.split('--> statement-breakpoint')) {
        if (statement.trim()) await tx.execute(sql.raw(statement))
      }
      await tx.execute(sql`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (${migrationHash(migration.sql)}, ${migration.when})`)
      applied.push(migration.tag)
    }
    return applied
  })
}
