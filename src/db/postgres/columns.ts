// Column types the PostgreSQL schemas share: timestamps as `timestamptz(3)` read as Date (the
// SQLite schemas keep epoch milliseconds, read as Date too), the full-text `tsvector`, and the
// descending order their indexes are read in.
import { type AnyColumn, sql } from 'drizzle-orm'
import { customType, timestamp } from 'drizzle-orm/pg-core'

export const timestampMs = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 })

/** Written by the stores with to_tsvector(...) expressions; never read back as a value. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * Descending, in the order of an index column declared `.desc()`: drizzle-kit writes those as
 * DESC NULLS LAST, and PostgreSQL reads an index in order only for the same NULLS placement.
 * drizzle's desc() sorts NULLS FIRST (PostgreSQL's default for DESC), so a listing ordered with
 * it sorted every prompt of its category instead (25 ms for 10,000 prompts; 1 ms off the index).
 */
export const descending = (column: AnyColumn) => sql`${column} DESC NULLS LAST`
