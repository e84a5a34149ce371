// PostgreSQL adapter of the accounts port.
import { eq, lte, sql } from 'drizzle-orm'
import { isUniqueViolation } from '../../db/errors'
import { batchedLookup } from '../../db/postgres/batched-lookup'
import { cannotBeStored } from '../../db/postgres/text'
import type { PgStorage } from '../../db/storage'
import { users } from './schema.pg'
import type { AccountsStore, UserChanges } from './store'

export function pgAccountsStore(storage: PgStorage): AccountsStore {
  // Every authenticated request: named, so PostgreSQL plans it once per connection, and the
  // lookups of a turn go as one query (scripts/bench-engines.ts).
  const authLookup = storage.db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      tier: users.tier,
      tierUntil: users.tierUntil,
      tierAfter: users.tierAfter,
      createdAt: users.createdAt,
      tokensNotBefore: users.tokensNotBefore,
      hasPassword: sql<boolean>`${users.passwordHash} IS NOT NULL`,
      linkedProviders: users.linkedProviders,
    })
    .from(users)
    .where(sql`${users.id} = ANY(${sql.placeholder('ids')})`)
    .prepare('accounts_auth_by_ids')
  const authLookups = batchedLookup(
    (ids) => authLookup.execute({ ids }),
    (row) => row.id,
  )
  const first = <T>(rows: T[]): T | null => rows[0] ?? null
  return {
    async insert(user, tx) {
      try {
        await storage.use(tx).insert(users).values(user)
        return true
      } catch (error) {
        if (isUniqueViolation(error)) return false
        throw error
      }
    },

    byId: async (id, tx) => first(await storage.use(tx).select().from(users).where(eq(users.id, id))),
    byEmail: async (email, tx) => (cannotBeStored(email) ? null : first(await storage.use(tx).select().from(users).where(eq(users.email, email)))),

    authById: async (id) => first(await authLookups(id)),

    update: async (id, changes, now, tx) =>
      first(await storage.use(tx).update(users).set(changeSet(changes, now)).where(eq(users.id, id)).returning()),

    setTier: async (id, tier, tierUntil, tierAfter, now, tx) =>
      (await storage.use(tx).update(users).set({ tier, tierUntil, tierAfter, updatedAt: now }).where(eq(users.id, id)).returning({ id: users.id }))
        .length > 0,

    delete: async (id, tx) => (await storage.use(tx).delete(users).where(eq(users.id, id)).returning({ id: users.id })).length > 0,

    list: () => storage.db.select().from(users).orderBy(users.createdAt),

    dueTierChanges: async (now, limit) =>
      (await storage.db.select({ id: users.id }).from(users).where(lte(users.tierUntil, now)).orderBy(users.tierUntil).limit(limit)).map((r) => r.id),
  }
}

/** A user's changes as the columns they set. */
function changeSet({ revokeTokensFrom, ...changes }: UserChanges, now: Date) {
  if (revokeTokensFrom === undefined) return { ...changes, updatedAt: now }
  return { ...changes, updatedAt: now, tokensNotBefore: sql<number>`GREATEST(${users.tokensNotBefore} + 1, ${revokeTokensFrom})` }
}
