// SQLite adapter of the favorites port.
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { isForeignKeyViolation } from '../../db/errors'
import type { SqliteDb, SqliteStorage } from '../../db/storage'
import { favorites } from './schema.sqlite'
import type { FavoritesStore } from './store'

const key = (userId: string, promptId: string) => and(eq(favorites.userId, userId), eq(favorites.promptId, promptId))

const newest = (db: SqliteDb, userId: string) =>
  db
    .select({ promptId: favorites.promptId, createdAt: favorites.createdAt })
    .from(favorites)
    .where(eq(favorites.userId, userId))
    .orderBy(desc(favorites.createdAt), desc(sql`${favorites}.rowid`))

export function sqliteFavoritesStore(storage: SqliteStorage): FavoritesStore {
  return {
    // One read callback: both statements in the same read transaction, so the total fits the page.
    page: (userId, limit, offset) =>
      storage.read((db) => ({
        rows: newest(db, userId).limit(limit).offset(offset).all(),
        total: db.select({ n: count() }).from(favorites).where(eq(favorites.userId, userId)).get()?.n ?? 0,
      })),

    all: (userId) => storage.read((db) => newest(db, userId).all()),

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
