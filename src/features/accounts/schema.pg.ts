// PostgreSQL tables of accounts: the same columns as schema.sqlite.ts, in PostgreSQL's types.
import { bigint, boolean, pgTable, text } from 'drizzle-orm/pg-core'
import { timestampMs as time } from '../../db/postgres/columns'
import { TIERS } from '../../tiers'

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  /** trimmed and lower-cased before it is stored */
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  /** argon2id (PHC string); null for accounts that only sign in through OAuth */
  passwordHash: text('password_hash'),
  /** true once a provider vouched for the address (OAuth); registration alone proves nothing */
  emailVerified: boolean('email_verified').notNull().default(false),
  /** never trusted from a token: every request reads it from here */
  tier: text('tier', { enum: TIERS }).notNull().default('free'),
  /** when set, `tier` holds until this time and `tier_after` follows (a cancelled wallet subscription; billing) */
  tierUntil: time('tier_until'),
  tierAfter: text('tier_after', { enum: TIERS }),
  /** the sign-in providers linked (oauth tells accounts), space-separated and sorted: /api/user/me reads them with the user */
  linkedProviders: text('linked_providers').notNull().default(''),
  /** JWTs issued (iat) before this Unix second are refused: password change, account linking */
  tokensNotBefore: bigint('tokens_not_before', { mode: 'number' }).notNull().default(0),
  createdAt: time('created_at').notNull(),
  updatedAt: time('updated_at').notNull(),
})
