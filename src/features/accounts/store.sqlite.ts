// SQLite adapter of the accounts port. The per-request lookup is a prepared statement on the
// read connection with flat columns (every column mapped is work on every request).
import { eq, lte, sql } from 'drizzle-orm'
import { isUniqueViolation } from '../../db/errors'
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { users } from './schema.sqlite'
import type { AccountsStore, AuthRecord } from './store'

const statements = perConnection((db: SqliteDb) => ({
  byId: db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
  byEmail: db
    .select()
    .from(users)
    .where(eq(users.email, sql.placeholder('email')))
    .prepare(),
  auth: db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      tier: users.tier,
      tierUntil: users.tierUntil,
      tierAfter: users.tierAfter,
      createdAt: users.createdAt,
      tokensNotBefore: users.tokensNotBefore,
      hasPassword: sql<number>`${users.passwordHash} IS NOT NULL`,
    })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
  // Bound as epoch milliseconds directly (drizzle would map a null placeholder as a Date).
  setTier: db
    .update(users)
    .set({
      tier: sql`${sql.placeholder('tier')}`,
      tierUntil: sql`${sql.placeholder('tierUntil')}`,
      tierAfter: sql`${sql.placeholder('tierAfter')}`,
      updatedAt: sql`${sql.placeholder('updatedAt')}`,
    })
    .where(eq(users.id, sql.placeholder('id')))
    .returning({ id: users.id })
    .prepare(),
}))

export function sqliteAccountsStore(storage: SqliteStorage): AccountsStore {
  return {
    async insert(user, tx) {
      try {
        await storage.write((db) => db.insert(users).values(user).run(), tx)
        return true
      } catch (error) {
        if (isUniqueViolation(error)) return false
        throw error
      }
    },

    byId: (id, tx) => storage.read((db) => statements(db).byId.get({ id }) ?? null, tx),
    byEmail: (email, tx) => storage.read((db) => statements(db).byEmail.get({ email }) ?? null, tx),

    authById: (id) =>
      storage.read((db): AuthRecord | null => {
        const row = statements(db).auth.get({ id })
        return row ? { ...row, hasPassword: row.hasPassword === 1 } : null
      }),

    update: (id, changes, now, tx) =>
      storage.write(
        (db) =>
          db
            .update(users)
            .set({ ...changes, updatedAt: now })
            .where(eq(users.id, id))
            .returning()
            .get() ?? null,
        tx,
      ),

    // Prepared: a payment webhook sets a tier on every delivery (scripts/bench-payments.ts).
    setTier: (id, tier, tierUntil, tierAfter, now, tx) =>
      storage.write(
        (db) => statements(db).setTier.get({ id, tier, tierUntil: tierUntil?.getTime() ?? null, tierAfter, updatedAt: now.getTime() }) !== undefined,
        tx,
      ),

    delete: (id, tx) => storage.write((db) => db.delete(users).where(eq(users.id, id)).returning({ id: users.id }).get() !== undefined, tx),

    list: () => storage.read((db) => db.select().from(users).orderBy(users.createdAt).all()),

    dueTierChanges: (now, limit) =>
      storage.read((db) =>
        db
          .select({ id: users.id })
          .from(users)
          .where(lte(users.tierUntil, now))
          .orderBy(users.tierUntil)
          .limit(limit)
          .all()
          .map((r) => r.id),
      ),
  }
}
