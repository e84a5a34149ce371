// The suite's PostgreSQL pass: with PROMPTLIB_TEST_POSTGRES set to an admin URL of a throwaway
// cluster (scripts/postgres.sh), every test app and every server process gets a database of its
// own, cloned from a template migrated once per run. Unset, everything runs on SQLite files.
import postgres from 'postgres'
import { openPostgres } from '../../src/db/postgres/client'
import { runPgMigrations } from '../../src/db/postgres/migrate'

const ADMIN_URL = process.env.PROMPTLIB_TEST_POSTGRES?.trim() || null

/** Which engine this run of the suite tests. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = ADMIN_URL ? 'postgres' : 'sqlite'

const TEMPLATE = `plib_template_${process.pid}`
const created: string[] = []
let template: Promise<void> | null = null
let counter = 0

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL!)
  url.pathname = `/${database}`
  return url.toString()
}

async function admin<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(ADMIN_URL!, { max: 1, onnotice: () => {} })
  try {
    return await fn(sql)
  } finally {
    await sql.end({ timeout: 5 })
  }
}

async function makeTemplate(): Promise<void> {
  await admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${TEMPLATE}" WITH (FORCE)`).then(() => sql.unsafe(`CREATE DATABASE "${TEMPLATE}"`)))
  const storage = openPostgres(urlFor(TEMPLATE), { max: 1 })
  await runPgMigrations(storage)
  await storage.close()
}

/** A fresh, migrated PostgreSQL database URL, or null when the suite runs on SQLite. */
export async function freshDatabaseUrl(): Promise<string | null> {
  if (!ADMIN_URL) return null
  template ??= makeTemplate()
  await template
  const name = `plib_${process.pid}_${counter++}`
  await admin((sql) => sql.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE}"`))
  created.push(name)
  return urlFor(name)
}

/** A new PostgreSQL database with nothing in it (not even migrations), or null on SQLite. */
export async function emptyDatabaseUrl(): Promise<string | null> {
  if (!ADMIN_URL) return null
  const name = `plib_${process.pid}_${counter++}_empty`
  await admin((sql) => sql.unsafe(`CREATE DATABASE "${name}"`))
  created.push(name)
  return urlFor(name)
}

/** Drops every database this run created (called once at the end, see cleanup.ts). */
export async function dropTestDatabases(): Promise<void> {
  if (!ADMIN_URL || !template) return
  template = null
  await admin(async (sql) => {
    for (const name of [...created.splice(0), TEMPLATE]) await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  })
}
