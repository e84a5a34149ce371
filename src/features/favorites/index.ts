// Favorites: a user's favorite prompts (favorite_count on the prompts is kept by triggers).
import type { Storage } from '../../db/storage'
import type { CatalogueService } from '../catalogue'
import { createFavoritesService, type FavoritesService } from './service'
import { sqliteFavoritesStore } from './store.sqlite'

export { favoritesRoutes } from './routes'
export { Added as AddedSchema, Favorite as FavoriteSchema } from './model'
export type { FavoritesService } from './service'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

export function createFavorites({ storage, catalogue }: { storage: Storage; catalogue: Pick<CatalogueService, 'promptTitles'> }): FavoritesService {
  return createFavoritesService(storage.engine === 'sqlite' ? sqliteFavoritesStore(storage) : pgStore().pgFavoritesStore(storage), catalogue)
}
