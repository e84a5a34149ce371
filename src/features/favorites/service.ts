// A user's favorite prompts. prompts.favorite_count follows through triggers on the favorites
// table in the same statement, so it stays exact under concurrent adds and removes.
import type { Db } from '../../db/sqlite/client'
import { writeTransaction } from '../../db/sqlite/client'
import { notFound } from '../../http/problem'

export interface FavoriteView {
  prompt_id: string
  title: string
  category_id: string
  created_at: string
}

export function createFavorites(db: Db) {
  const c = db.$client
  const q = {
    page: c.prepare<{ prompt_id: string; title: string; category_id: string; created_at: number }, [string, number, number]>(
      `SELECT f.prompt_id, p.title, p.category_id, f.created_at FROM favorites f JOIN prompts p ON p.id = f.prompt_id
       WHERE f.user_id = ? ORDER BY f.created_at DESC, f.rowid DESC LIMIT ? OFFSET ?`,
    ),
    count: c.prepare<{ n: number }, [string]>('SELECT count(*) AS n FROM favorites WHERE user_id = ?'),
    promptExists: c.prepare<{ one: number }, [string]>('SELECT 1 AS one FROM prompts WHERE id = ?'),
    insert: c.prepare<{ created_at: number }, [string, string, number]>(
      'INSERT INTO favorites (user_id, prompt_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING created_at',
    ),
    existing: c.prepare<{ created_at: number }, [string, string]>('SELECT created_at FROM favorites WHERE user_id = ? AND prompt_id = ?'),
    remove: c.prepare<{ one: number }, [string, string]>('DELETE FROM favorites WHERE user_id = ? AND prompt_id = ? RETURNING 1 AS one'),
  }
  return {
    list(userId: string, page: { limit: number; offset: number }) {
      const items = q.page.all(userId, page.limit, page.offset).map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }))
      return { items, total: q.count.get(userId)!.n, limit: page.limit, offset: page.offset }
    },

    /** Adds the favorite; `created` is false when it already was one (same body, 200). */
    add(userId: string, promptId: string): { created: boolean; favorite: { prompt_id: string; created_at: string } } {
      const id = promptId.toLowerCase()
      return writeTransaction(db, () => {
        if (!q.promptExists.get(id)) throw notFound('There is no prompt with this id.')
        const inserted = q.insert.get(userId, id, Date.now())
        const createdAt = inserted?.created_at ?? q.existing.get(userId, id)!.created_at
        return { created: inserted !== null, favorite: { prompt_id: id, created_at: new Date(createdAt).toISOString() } }
      })
    },

    remove(userId: string, promptId: string): void {
      if (!writeTransaction(db, () => q.remove.get(userId, promptId.toLowerCase()))) throw notFound('This prompt is not one of your favorites.')
    },
  }
}

export type Favorites = ReturnType<typeof createFavorites>
