import { index, pgTable, text } from 'drizzle-orm/pg-core'
import { timestampMs } from '../../db/postgres/columns'
import { users } from '../accounts/schema.pg'

export const personalAccessTokens = pgTable(
  'personal_access_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the whole token, hex; the secret itself is never stored */
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestampMs('created_at').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
    /** refreshed at most once a minute, so using a token is not a write per request */
    lastUsedAt: timestampMs('last_used_at'),
    revokedAt: timestampMs('revoked_at'),
  },
  (t) => [index('personal_access_tokens_user').on(t.userId)],
)
