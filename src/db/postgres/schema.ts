// Tables of the storage itself on PostgreSQL (not of any feature).
import { pgTable, text } from 'drizzle-orm/pg-core'

/**
 * Values every instance must share: the JWT secret generated when JWT_SECRET is unset (SQLite
 * keeps it in a file in DATA_DIR instead; a cluster has no shared directory).
 */
export const settings = pgTable('settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
})
