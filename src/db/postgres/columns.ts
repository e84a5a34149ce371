// Column types the PostgreSQL schemas share: timestamps as `timestamptz(3)` read as Date (the
// SQLite schemas keep epoch milliseconds, read as Date too), and the full-text `tsvector`.
import { customType, timestamp } from 'drizzle-orm/pg-core'

export const timestampMs = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 })

/** Written by the stores with to_tsvector(...) expressions; never read back as a value. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })
