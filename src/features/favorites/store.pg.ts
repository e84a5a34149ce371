// PostgreSQL adapter of the favorites port. Adding is one conditional insert; a favorite that
// already exists is read back (and a concurrent removal in between simply retried).
import { and, count, desc, eq } from 'drizzle-orm'
import { isForeignKeyViolation } from '../../db/errors'
import type { PgStorage } from '../../db/storage'
import { favorites } from './schema.pg'
import type { FavoritesStore } from './store'

const key = (userId: string, promptId: string) => and(eq(favorites.userId, userId), eq(favorites.promptId, promptId))

export function pgFavoritesStore(storage: PgStorage): FavoritesStore {
  return {
    page: (userId, limit, offset) =>
      storage.db
        .select({ promptId: favorites.promptId, createdAt: favorites.createdAt })
        .from(favorites)
        .where(eq(favorites.userId, userId))
        .orderBy(desc(favorites.createdAt), desc(favorites.seq))
        .limit(limit)
        .offset(offset),

    async count(userId) {
      const [row] = await storage.db.select({ n: count() }).from(favorites).where(eq(favorites.userId, userId))
      return row?.n ?? 0
    },

    async add(userId, promptId, now, tx) {
      const db = storage.use(tx)
      for (;;) {
        try {
          const [inserted] = await db
            .insert(favorites)
            .values({ userId, promptId, createdAt: now })
            .onConflictDoNothing()
            .returning({ createdAt: favorites.createdAt })
          if (inserted) return { created: true, createdAt: inserted.createdAt }
        } catch (error) {
          if (isForeignKeyViolation(error)) return null
          throw error
        }
        const [existing] = await db.select({ createdAt: favorites.createdAt }).from(favorites).where(key(userId, promptId))
        if (existing) return { created: false, createdAt: existing.createdAt }
      }
    },

    async remove(userId, promptId, tx) {
      const removed = await storage.use(tx).delete(favorites).where(key(userId, promptId)).returning({ promptId: favorites.promptId })
      return removed.length > 0
    },
  }
}
