// A user's favorite prompts. prompts.favorite_count follows the favorites table through
// triggers in the same statement, so it stays exact under concurrent adds and removes, on
// every instance. Titles and categories come from the catalogue (its index.ts), never a join.
import { notFound } from '../../http/problem'
import { type CatalogueService, canonicalUuid } from '../catalogue'
import type { Added, FavoritePage } from './model'
import type { FavoritesStore } from './store'

export function createFavoritesService(store: FavoritesStore, catalogue: Pick<CatalogueService, 'promptTitles'>) {
  return {
    async list(userId: string, page: { limit: number; offset: number }): Promise<FavoritePage> {
      const [rows, total] = await Promise.all([store.page(userId, page.limit, page.offset), store.count(userId)])
      const titles = await catalogue.promptTitles(rows.map((r) => r.promptId))
      // A prompt removed meanwhile took its favorites along (ON DELETE CASCADE): skip it here too.
      const items = rows.flatMap((r) => {
        const prompt = titles.get(r.promptId)
        return prompt ? [{ prompt_id: r.promptId, title: prompt.title, category_id: prompt.category_id, created_at: r.createdAt.toISOString() }] : []
      })
      return { items, total, ...page }
    },

    /** Adds the favorite; `created` is false when it already was one (same body, 200). */
    async add(userId: string, promptId: string): Promise<{ created: boolean; favorite: Added }> {
      const id = canonicalUuid(promptId)
      const added = await store.add(userId, id, new Date())
      if (!added) throw notFound('There is no prompt with this id.')
      return { created: added.created, favorite: { prompt_id: id, created_at: added.createdAt.toISOString() } }
    },

    async remove(userId: string, promptId: string): Promise<void> {
      if (!(await store.remove(userId, canonicalUuid(promptId)))) throw notFound('This prompt is not one of your favorites.')
    },
  }
}

export type FavoritesService = ReturnType<typeof createFavoritesService>
