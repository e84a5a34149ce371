// TEMPORARY shim (two-engines conversion).
import type { Storage } from '../../db/storage'
import { notYetOnPostgres } from '../not-yet'
import { createFavorites as legacyFavorites } from './service'

export { favoritesRoutes } from './routes'

export function createFavorites({ storage }: { storage: Storage; catalogue: unknown }) {
  if (storage.engine !== 'sqlite') return notYetOnPostgres<ReturnType<typeof legacyFavorites>>('favorites')
  return legacyFavorites(storage.writer)
}
