// PostgreSQL adapter of the oauth port.
import { and, eq } from 'drizzle-orm'
import type { PgStorage } from '../../db/storage'
import { oauthIdentities as identities } from './schema.pg'
import type { IdentityKey, OAuthStore } from './store'

const byKey = (key: IdentityKey) => and(eq(identities.provider, key.provider), eq(identities.issuer, key.issuer), eq(identities.subject, key.subject))

export function pgOAuthStore(storage: PgStorage): OAuthStore {
  return {
    find: async (key, tx) => (await storage.use(tx).select().from(identities).where(byKey(key)))[0] ?? null,

    // ON CONFLICT DO NOTHING rather than catching the error: a failed statement would abort the transaction.
    insert: async (identity, tx) =>
      (await storage.use(tx).insert(identities).values(identity).onConflictDoNothing().returning({ userId: identities.userId })).length > 0,

    async touch(key, email, now, tx) {
      await storage.use(tx).update(identities).set({ email, lastSignInAt: now }).where(byKey(key))
    },
  }
}
