import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/schema.sqlite'

export const personalAccessTokens = sqliteTable(
  'personal_access_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the whole token, hex; the secret itself is never stored */
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    /** refreshed at most once a minute, so using a token is not a write per request */
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('personal_access_tokens_user').on(t.userId)],
)

export type PatRow = typeof personalAccessTokens.$inferSelect
