// TEMPORARY shim (two-engines conversion).
import type { Storage } from '../../db/storage'
import { createFavorites as legacyFavorites } from './service'

export { favoritesRoutes } from './routes'

export function createFavorites({ storage }: { storage: Storage; catalogue: unknown }) {
  if (storage.engine !== 'sqlite') throw new Error('favorites do not run on PostgreSQL yet')
  return legacyFavorites(storage.writer)
}
