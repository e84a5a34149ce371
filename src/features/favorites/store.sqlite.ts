// SQLite adapter of the favorites port.
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { isForeignKeyViolation } from '../../db/errors'
import type { SqliteStorage } from '../../db/storage'
import { favorites } from './schema.sqlite'
import type { FavoritesStore } from './store'

const key = (userId: string, promptId: string) => and(eq(favorites.userId, userId), eq(favorites.promptId, promptId))

export function sqliteFavoritesStore(storage: SqliteStorage): FavoritesStore {
  return {
    page: (userId, limit, offset) =>
      storage.read((db) =>
        db
          .select({ promptId: favorites.promptId, createdAt: favorites.createdAt })
          .from(favorites)
          .where(eq(favorites.userId, userId))
          .orderBy(desc(favorites.createdAt), desc(sql`${favorites}.rowid`))
          .limit(limit)
          .offset(offset)
          .all(),
      ),

    count: (userId) => storage.read((db) => db.select({ n: count() }).from(favorites).where(eq(favorites.userId, userId)).get()?.n ?? 0),

    async add(userId, promptId, now, tx) {
      try {
        return await storage.write((db) => {
          const inserted = db
            .insert(favorites)
            .values({ userId, promptId, createdAt: now })
            .onConflictDoNothing()
            .returning({ createdAt: favorites.createdAt })
            .get()
          if (inserted) return { created: true, createdAt: inserted.createdAt }
          const existing = db.select({ createdAt: favorites.createdAt }).from(favorites).where(key(userId, promptId)).get()!
          return { created: false, createdAt: existing.createdAt }
        }, tx)
      } catch (error) {
        if (isForeignKeyViolation(error)) return null
        throw error
      }
    },

    remove: (userId, promptId, tx) =>
      storage.write((db) => db.delete(favorites).where(key(userId, promptId)).returning({ promptId: favorites.promptId }).get() !== undefined, tx),
  }
}
