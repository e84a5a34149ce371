// `promptlib db copy --to postgres://…`: every table of a SQLite install, row for row, into an
// empty PostgreSQL database. Generic over the two schema sets: tables are matched by name,
// columns by their TypeScript name (both schema sets use the same), and copied parents first.
// Values go through drizzle's column mappings on both sides (epoch ms → Date → timestamptz).
import { getTableColumns, getTableName, is, sql } from 'drizzle-orm'
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as pgSchema from './schema.pg'
import * as sqliteSchema from './schema.sqlite'
import type { PgStorage, SqliteStorage } from './storage'

/** Tables that describe a running process, not data: never copied. */
const NOT_COPIED = new Set(['server_instances'])
/** Tables the migrations seed with a row of their own; copied over that row. */
const SEEDED = new Set(['catalogue_state'])
/** PostgreSQL's limit is 65,535 parameters per statement. */
const MAX_PARAMETERS = 60_000

export interface TableCopy {
  table: string
  source: number
  target: number
}

export class CopyError extends Error {}

const sqliteTables = (Object.values(sqliteSchema) as unknown[]).filter((v: unknown): v is SQLiteTable => is(v, SQLiteTable))
const pgTables = new Map<string, PgTable>(
  (Object.values(pgSchema) as unknown[]).filter((v: unknown): v is PgTable => is(v, PgTable)).map((t) => [getTableName(t), t]),
)

/** Parents before children, by the SQLite schema's foreign keys. */
export function copyOrder(tables: SQLiteTable[] = sqliteTables): SQLiteTable[] {
  const byName = new Map(tables.map((t) => [getTableName(t), t]))
  const ordered: SQLiteTable[] = []
  const visiting = new Set<string>()
  const visit = (table: SQLiteTable) => {
    const name = getTableName(table)
    if (ordered.includes(table) || visiting.has(name)) return
    visiting.add(name)
    for (const fk of sqliteTableConfig(table).foreignKeys) {
      const parent = byName.get(getTableName(fk.reference().foreignTable))
      if (parent && parent !== table) visit(parent)
    }
    ordered.push(table)
  }
  for (const table of tables) visit(table)
  return ordered.filter((t) => !NOT_COPIED.has(getTableName(t)))
}

async function countPg(target: PgStorage, name: string): Promise<number> {
  const [row] = (await target.db.execute(sql.raw(`SELECT count(*)::bigint AS n FROM "${name}"`))) as unknown as { n: string }[]
  return Number(row?.n ?? 0)
}

function countSqlite(source: SqliteStorage, name: string): number {
  return (source.reader.$client.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n
}

/**
 * Copies every table; refuses a target that holds any data. Returns the row counts of both
 * sides, which must be equal (a CopyError says which table differs).
 */
export async function copySqliteToPostgres(
  source: SqliteStorage,
  target: PgStorage,
  onTable?: (name: string, rows: number) => void,
): Promise<TableCopy[]> {
  const tables = copyOrder()
  for (const table of tables) {
    const name = getTableName(table)
    if (!pgTables.has(name))
      throw new CopyError(`the PostgreSQL schema has no table "${name}"; is the target database from another promptlib version?`)
    if (!SEEDED.has(name) && (await countPg(target, name)) > 0) {
      throw new CopyError(`the target database is not empty (table "${name}" has rows); copy into a new, empty database`)
    }
  }

  // One read transaction over the whole copy: a consistent snapshot even if a server writes meanwhile.
  const reader = source.reader.$client
  reader.run('BEGIN')
  try {
    await copyTables(source, target, tables, onTable)
  } finally {
    reader.run('COMMIT')
  }

  const result: TableCopy[] = []
  for (const table of tables) {
    const name = getTableName(table)
    const entry = { table: name, source: countSqlite(source, name), target: await countPg(target, name) }
    if (entry.source !== entry.target) throw new CopyError(`table "${name}": ${entry.source} rows in SQLite but ${entry.target} in PostgreSQL`)
    result.push(entry)
  }
  return result
}

const NOTHING_COPIED = 'nothing was copied (the target is as it was); correct the row in the SQLite database and copy again'

function rowName(row: Record<string, unknown> & { rowid: number }): string {
  return typeof row.id === 'string' || typeof row.id === 'number' ? `id ${JSON.stringify(row.id)}` : `rowid ${row.rowid}`
}

/**
 * What SQLite keeps and PostgreSQL refuses, named before the copy is refused as a whole: a NUL
 * (U+0000) in text or JSON, a date outside the years 1-9999 (or none at all: epoch milliseconds
 * beyond JavaScript's range), which postgres-js cannot send as a timestamp. A column PostgreSQL
 * keeps as bytes (`bytea`: an optimizer prompt) takes a NUL like any other character.
 */
function unstorable(row: Record<string, unknown>, table: SQLiteTable, target: PgTable): string | null {
  const columns = getTableColumns(table)
  const targetColumns = getTableColumns(target)
  for (const [key, value] of Object.entries(row)) {
    const column = columns[key]?.name ?? key
    if (targetColumns[key]?.getSQLType() === 'bytea') continue
    if (value instanceof Date) {
      const year = value.getUTCFullYear()
      if (Number.isNaN(year) || year < 1 || year > 9999) return `column ${column} holds a date out of the range 0001-9999`
    } else if (typeof value === 'string') {
      if (value.includes('\u0000')) return `column ${column} holds a NUL character`
    } else if (value !== null && typeof value === 'object' && JSON.stringify(value).includes('\\u0000')) {
      return `column ${column} holds a NUL character`
    }
  }
  return null
}

/** PostgreSQL's refusal of the data itself (SQLSTATE classes 22 and 23), from the error or its cause. */
function dataRefusal(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)) return (e as Error).message
  }
  return null
}

async function copyTables(source: SqliteStorage, target: PgStorage, tables: SQLiteTable[], onTable?: (name: string, rows: number) => void) {
  await target.db.transaction(async (tx) => {
    for (const table of tables) {
      const name = getTableName(table)
      const pgTable = pgTables.get(name)!
      // Rows arrive with their derived values (favorite counts kept by triggers, say) already
      // right: the copy must not run the target's triggers a second time.
      await tx.execute(sql.raw(`ALTER TABLE "${name}" DISABLE TRIGGER USER`))
      if (SEEDED.has(name)) await tx.execute(sql.raw(`DELETE FROM "${name}"`))
      const columns = Object.keys(getTableColumns(table))
      const batch = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length))
      let after = 0
      let copied = 0
      for (;;) {
        const rows = source.reader
          .select({ ...getTableColumns(table), rowid: sql<number>`rowid` })
          .from(table)
          .where(sql`rowid > ${after}`)
          .orderBy(sql`rowid`)
          .limit(batch)
          .all() as (Record<string, unknown> & { rowid: number })[]
        if (rows.length === 0) break
        after = rows[rows.length - 1]!.rowid
        for (const row of rows) {
          const problem = unstorable(row, table, pgTable)
          if (problem) throw new CopyError(`table "${name}", row ${rowName(row)}: ${problem}, which PostgreSQL cannot store; ${NOTHING_COPIED}`)
        }
        try {
          await tx.insert(pgTable).values(rows.map(({ rowid: _, ...row }) => row))
        } catch (error) {
          const refusal = dataRefusal(error)
          if (refusal) throw new CopyError(`table "${name}": PostgreSQL refused a row (${refusal}); ${NOTHING_COPIED}`)
          throw error
        }
        copied += rows.length
      }
      await tx.execute(sql.raw(`ALTER TABLE "${name}" ENABLE TRIGGER USER`))
      // Identity columns continue after the copied ids.
      for (const column of pgTableConfig(pgTable).columns) {
        if (column.generatedIdentity) {
          await tx.execute(
            sql.raw(
              `SELECT setval(pg_get_serial_sequence('"${name}"', '${column.name}'), coalesce((SELECT max("${column.name}") FROM "${name}"), 0) + 1, false)`,
            ),
          )
        }
      }
      onTable?.(name, copied)
    }
  })
}
