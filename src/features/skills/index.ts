// TEMPORARY shim (two-engines conversion).
import type { Storage } from '../../db/storage'
import { notYetOnPostgres } from '../not-yet'
import { createSkills as legacySkills } from './service'

export { skillsRoutes } from './routes'

export function createSkills(storage: Storage) {
  if (storage.engine !== 'sqlite') return notYetOnPostgres<ReturnType<typeof legacySkills>>('skills')
  return legacySkills(storage.writer)
}
