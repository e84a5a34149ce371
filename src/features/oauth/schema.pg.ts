// PostgreSQL tables of oauth: the same columns as schema.sqlite.ts, in PostgreSQL's types.
import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { timestampMs as time } from '../../db/postgres/columns'
import { users } from '../accounts/schema.pg'

/** Who signs in through which provider: one row per (provider, issuer, provider user id). */
export const oauthIdentities = pgTable(
  'oauth_identities',
  {
    /** 'provider-a' or 'provider-b' */
    provider: text('provider').notNull(),
    /**
     * The provider's user-info URL: an operator who points a slot at another provider must not
     * hand that provider's user 12345 the account of the old provider's user 12345.
     */
    issuer: text('issuer').notNull(),
    /** the provider's user id (OIDC `sub`, GitHub `id`) */
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** the e-mail as the provider last reported it (null when it reported none) */
    email: text('email'),
    createdAt: time('created_at').notNull(),
    lastSignInAt: time('last_sign_in_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.issuer, t.subject] }), index('oauth_identities_user').on(t.userId)],
)
