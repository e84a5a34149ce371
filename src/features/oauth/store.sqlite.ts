// SQLite adapter of the oauth port.
import { and, eq } from 'drizzle-orm'
import type { SqliteStorage } from '../../db/storage'
import { oauthIdentities as identities } from './schema.sqlite'
import type { IdentityKey, OAuthStore } from './store'

const byKey = (key: IdentityKey) => and(eq(identities.provider, key.provider), eq(identities.issuer, key.issuer), eq(identities.subject, key.subject))

export function sqliteOAuthStore(storage: SqliteStorage): OAuthStore {
  return {
    find: (key, tx) => storage.read((db) => db.select().from(identities).where(byKey(key)).get() ?? null, tx),

    insert: (identity, tx) =>
      storage.write(
        (db) => db.insert(identities).values(identity).onConflictDoNothing().returning({ userId: identities.userId }).all().length > 0,
        tx,
      ),

    async touch(key, email, now, tx) {
      await storage.write((db) => db.update(identities).set({ email, lastSignInAt: now }).where(byKey(key)).run(), tx)
    },
  }
}
