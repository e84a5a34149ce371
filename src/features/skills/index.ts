// TEMPORARY shim (two-engines conversion).
import type { Storage } from '../../db/storage'
import { createSkills as legacySkills } from './service'

export { skillsRoutes } from './routes'

export function createSkills(storage: Storage) {
  if (storage.engine !== 'sqlite') throw new Error('skills do not run on PostgreSQL yet')
  return legacySkills(storage.writer)
}
