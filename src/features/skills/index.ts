// Skills: Agent Skills (SKILL.md) for pro and lifetime users. Other features reach them only
// through this module (the catalogue's importers write them with upsertSkills).
import type { Storage } from '../../db/storage'
import { createSkillsService, type SkillsService } from './service'
import { sqliteSkillsStore } from './store.sqlite'

export { skillsRoutes } from './routes'
export { Skill as SkillSchema, SkillHit as SkillHitSchema } from './model'
export type { SkillsService } from './service'
export type { Outcome as SkillOutcome, SkillExport, SkillInput } from './store'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

export function createSkills(storage: Storage): SkillsService {
  return createSkillsService(storage.engine === 'sqlite' ? sqliteSkillsStore(storage) : pgStore().pgSkillsStore(storage))
}
