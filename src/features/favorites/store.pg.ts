// PostgreSQL adapter of the favorites port. Adding is one conditional insert; a favorite that
// already exists is read back (and a concurrent removal in between simply retried).
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { isForeignKeyViolation } from '../../db/errors'
import type { PgDb, PgStorage } from '../../db/storage'
import { favorites } from './schema.pg'
import type { FavoritesStore } from './store'

const key = (userId: string, promptId: string) => and(eq(favorites.userId, userId), eq(favorites.promptId, promptId))

const newest = (db: PgDb, userId: string) =>
  db
    .select({ promptId: favorites.promptId, createdAt: favorites.createdAt, seq: favorites.seq })
    .from(favorites)
    .where(eq(favorites.userId, userId))
    .orderBy(desc(favorites.createdAt), desc(favorites.seq))
    .$dynamic()

export function pgFavoritesStore(storage: PgStorage): FavoritesStore {
  return {
    // One statement, so one snapshot: the count beside the page (a LEFT JOIN keeps it when the
    // page is empty). Two queries on two connections saw different moments: a listing of every
    // favorite said 7 items, total 6 while another request added one.
    async page(userId, limit, offset) {
      const total = storage.db
        .select({ n: count().as('n') })
        .from(favorites)
        .where(eq(favorites.userId, userId))
        .as('total')
      const page = newest(storage.db, userId).limit(limit).offset(offset).as('page')
      const rows = await storage.db
        .select({ total: total.n, promptId: page.promptId, createdAt: page.createdAt })
        .from(total)
        .leftJoin(page, sql`true`)
        .orderBy(desc(page.createdAt), desc(page.seq))
      return {
        total: rows[0]?.total ?? 0,
        rows: rows.flatMap((r) => (r.promptId === null || r.createdAt === null ? [] : [{ promptId: r.promptId, createdAt: r.createdAt }])),
      }
    },

    all: (userId) => newest(storage.db, userId).then((rows) => rows.map(({ promptId, createdAt }) => ({ promptId, createdAt }))),

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
