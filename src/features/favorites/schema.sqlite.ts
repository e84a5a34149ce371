import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/schema.sqlite'
import { prompts } from '../catalogue/schema.sqlite'

/**
 * A user's favorite prompts. prompts.favorite_count is kept in step by triggers on this table
 * (custom migration), so it stays exact whatever deletes the row: the user, an account deletion
 * cascading here, or a removed prompt.
 */
export const favorites = sqliteTable(
  'favorites',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    promptId: text('prompt_id')
      .notNull()
      .references(() => prompts.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.promptId] }), index('favorites_newest').on(t.userId, t.createdAt)],
)
