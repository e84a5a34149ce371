// SQLite adapter of the accounts port. The per-request lookup is a raw prepared statement on the
// read connection with flat columns, mapped by hand: every column mapped, and drizzle's mapping
// layer, is work on every request (bun scripts/bench.ts: /api/user/me).
import { eq, lte, sql } from 'drizzle-orm'
import { isUniqueViolation } from '../../db/errors'
import { perConnection } from '../../db/sqlite/prepared'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { users } from './schema.sqlite'
import type { Tier } from '../../tiers'
import type { AccountsStore, AuthRecord, UserChanges } from './store'

interface AuthRow {
  id: string
  email: string
  name: string
  tier: Tier
  tier_until: number | null
  tier_after: Tier | null
  created_at: number
  tokens_not_before: number
  has_password: number
  linked_providers: string
}

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
  auth: db.$client.prepare<AuthRow, [string]>(
    `SELECT id, email, name, tier, tier_until, tier_after, created_at, tokens_not_before, password_hash IS NOT NULL AS has_password, linked_providers
     FROM users WHERE id = ?`,
  ),
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
        const row = statements(db).auth.get(id)
        return row
          ? {
              id: row.id,
              email: row.email,
              name: row.name,
              tier: row.tier,
              tierUntil: row.tier_until === null ? null : new Date(row.tier_until),
              tierAfter: row.tier_after,
              createdAt: new Date(row.created_at),
              tokensNotBefore: row.tokens_not_before,
              hasPassword: row.has_password === 1,
              linkedProviders: row.linked_providers,
            }
          : null
      }),

    update: (id, changes, now, tx) =>
      storage.write((db) => db.update(users).set(changeSet(changes, now)).where(eq(users.id, id)).returning().get() ?? null, tx),

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

/** A user's changes as the columns they set. */
function changeSet({ revokeTokensFrom, ...changes }: UserChanges, now: Date) {
  if (revokeTokensFrom === undefined) return { ...changes, updatedAt: now }
  return { ...changes, updatedAt: now, tokensNotBefore: sql<number>`max(${users.tokensNotBefore} + 1, ${revokeTokensFrom})` }
}
