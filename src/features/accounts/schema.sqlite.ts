import { sqliteTable, text, integer } from 'drizzle-orm/sqlite-core'
import { TIERS } from '../../tiers'

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  /** trimmed and lower-cased before it is stored */
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  /** argon2id (PHC string); null for accounts that only sign in through OAuth */
  passwordHash: text('password_hash'),
  /** true once a provider vouched for the address (OAuth); registration alone proves nothing */
  emailVerified: integer('email_verified', { mode: 'boolean' }).notNull().default(false),
  /** never trusted from a token: every request reads it from here */
  tier: text('tier', { enum: TIERS }).notNull().default('free'),
  /** when set, `tier` holds until this time and `tier_after` follows (a cancelled wallet subscription; billing) */
  tierUntil: integer('tier_until', { mode: 'timestamp_ms' }),
  tierAfter: text('tier_after', { enum: TIERS }),
  /** the sign-in providers linked (oauth tells accounts), space-separated and sorted: /api/user/me reads them with the user */
  linkedProviders: text('linked_providers').notNull().default(''),
  /** JWTs issued (iat) before this Unix second are refused: password change, account linking */
  tokensNotBefore: integer('tokens_not_before').notNull().default(0),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

export type UserRow = typeof users.$inferSelect
