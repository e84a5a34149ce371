import { bigint, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { timestampMs } from '../../db/postgres/columns'
import { users } from '../accounts/schema.pg'
import { prompts } from '../catalogue/schema.pg'

/**
 * A user's favorite prompts. prompts.favorite_count is kept in step by triggers on this table
 * (custom migration), so it stays exact whatever deletes the row. `seq` orders favorites added
 * in the same millisecond (SQLite's rowid does it there).
 */
export const favorites = pgTable(
  'favorites',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    promptId: text('prompt_id')
      .notNull()
      .references(() => prompts.id, { onDelete: 'cascade' }),
    createdAt: timestampMs('created_at').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedByDefaultAsIdentity(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.promptId] }), index('favorites_newest').on(t.userId, t.createdAt)],
)
