// The favorites port: a user's favorite prompts, its own rows only (titles come from the
// catalogue). prompts.favorite_count follows these rows through database triggers.
import type { Tx } from '../../db/storage'

export interface FavoriteRecord {
  promptId: string
  createdAt: Date
}

export interface FavoritesStore {
  /**
   * One page, newest first, and the total it belongs to, read in one snapshot: a page that holds
   * every favorite has exactly `total` rows even while other requests add and remove some.
   */
  page(userId: string, limit: number, offset: number): Promise<{ rows: FavoriteRecord[]; total: number }>
  /** Every favorite, newest first, in one snapshot (the data export). */
  all(userId: string): Promise<FavoriteRecord[]>
  /**
   * Adds the favorite unless it exists; `created` false gives the existing one. null: a foreign key
   * refused it (no such prompt, or the account was deleted meanwhile: the service tells which).
   */
  add(userId: string, promptId: string, now: Date, tx?: Tx): Promise<{ created: boolean; createdAt: Date } | null>
  /** false when it was not a favorite */
  remove(userId: string, promptId: string, tx?: Tx): Promise<boolean>
}
