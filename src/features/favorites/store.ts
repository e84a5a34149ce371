// The favorites port: a user's favorite prompts, its own rows only (titles come from the
// catalogue). prompts.favorite_count follows these rows through database triggers.
import type { Tx } from '../../db/storage'

export interface FavoriteRecord {
  promptId: string
  createdAt: Date
}

export interface FavoritesStore {
  /** Newest first. */
  page(userId: string, limit: number, offset: number): Promise<FavoriteRecord[]>
  count(userId: string): Promise<number>
  /**
   * Adds the favorite unless it exists; `created` false gives the existing one. null: there is no
   * such prompt (the foreign key refused it).
   */
  add(userId: string, promptId: string, now: Date, tx?: Tx): Promise<{ created: boolean; createdAt: Date } | null>
  /** false when it was not a favorite */
  remove(userId: string, promptId: string, tx?: Tx): Promise<boolean>
}
