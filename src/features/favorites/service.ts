// A user's favorite prompts. prompts.favorite_count follows the favorites table through
// triggers in the same statement, so it stays exact under concurrent adds and removes, on
// every instance. Titles and categories come from the catalogue (its index.ts), never a join.
import { notFound, unauthorized } from '../../http/problem'
import { type CatalogueService, canonicalUuid } from '../catalogue'
import type { Added, Favorite, FavoritePage } from './model'
import type { FavoriteRecord, FavoritesStore } from './store'

/** Titles are looked up with one bound parameter per id (PostgreSQL allows 65,535 in a statement). */
const TITLES_AT_ONCE = 1000

/** What the authentication answers for a deleted account (contract section 2). */
const accountGone = () => unauthorized('invalid_token', 'The account this token belongs to no longer exists.')

export function createFavoritesService(store: FavoritesStore, catalogue: Pick<CatalogueService, 'promptTitles'>) {
  /** The rows whose prompt still exists, with its title and category. */
  async function withTitles(rows: FavoriteRecord[]): Promise<Favorite[]> {
    const titles = await catalogue.promptTitles(rows.map((r) => r.promptId))
    return rows.flatMap((r) => {
      const prompt = titles.get(r.promptId)
      return prompt ? [{ prompt_id: r.promptId, title: prompt.title, category_id: prompt.category_id, created_at: r.createdAt.toISOString() }] : []
    })
  }

  return {
    async list(userId: string, page: { limit: number; offset: number }): Promise<FavoritePage> {
      const { rows, total } = await store.page(userId, page.limit, page.offset)
      const items = await withTitles(rows)
      // A prompt removed meanwhile took its favorite along: the total drops it too.
      return { items, total: Math.max(0, total - (rows.length - items.length)), ...page }
    },

    /**
     * Every favorite, newest first, as one snapshot of the list (the data export): paging by
     * offset while the user adds or removes one showed a favorite twice or skipped one.
     */
    async all(userId: string): Promise<Favorite[]> {
      const rows = await store.all(userId)
      const items: Favorite[] = []
      for (let i = 0; i < rows.length; i += TITLES_AT_ONCE) items.push(...(await withTitles(rows.slice(i, i + TITLES_AT_ONCE))))
      return items
    },

    /** Adds the favorite; `created` is false when it already was one (same body, 200). */
    async add(userId: string, promptId: string): Promise<{ created: boolean; favorite: Added }> {
      const id = canonicalUuid(promptId)
      const added = await store.add(userId, id, new Date())
      if (!added) {
        // A foreign key refused the row: the prompt's, or the user's when the account was deleted
        // while this request ran (it was authenticated just before). The prompt exists: it is the account.
        if ((await catalogue.promptTitles([id])).has(id)) throw accountGone()
        throw notFound('There is no prompt with this id.')
      }
      return { created: added.created, favorite: { prompt_id: id, created_at: added.createdAt.toISOString() } }
    },

    async remove(userId: string, promptId: string): Promise<void> {
      if (!(await store.remove(userId, canonicalUuid(promptId)))) throw notFound('This prompt is not one of your favorites.')
    },
  }
}

export type FavoritesService = ReturnType<typeof createFavoritesService>
