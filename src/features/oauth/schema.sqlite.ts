import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/schema.sqlite'

/** Who signs in through which provider: one row per (provider, issuer, provider user id). */
export const oauthIdentities = sqliteTable(
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
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastSignInAt: integer('last_sign_in_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.issuer, t.subject] }), index('oauth_identities_user').on(t.userId)],
)
