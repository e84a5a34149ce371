// SQLite adapter of the oauth port. providersOf runs on every GET /api/user/me: a prepared
// statement on the read connection (bench.ts measures /api/user/me).
import { and, eq, sql } from 'drizzle-orm'
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { oauthIdentities as identities } from './schema.sqlite'
import type { IdentityKey, OAuthStore } from './store'

const statements = perConnection((db: SqliteDb) => ({
  providersOf: db
    .selectDistinct({ provider: identities.provider })
    .from(identities)
    .where(eq(identities.userId, sql.placeholder('userId')))
    .orderBy(identities.provider)
    .prepare(),
}))

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

    providersOf: (userId) =>
      storage.read((db) =>
        statements(db)
          .providersOf.all({ userId })
          .map((row) => row.provider),
      ),
  }
}
