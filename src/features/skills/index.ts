// Skills: Agent Skills (SKILL.md) for pro and lifetime users. Other features reach them only
// through this module (the catalogue's importers write them with upsertSkills).
import type { Storage } from '../../db/storage'
import { createSkillsService, type SkillsService } from './service'
import { sqliteSkillsStore } from './store.sqlite'
import { pgSkillsStore } from './store.pg'

export { skillsRoutes } from './routes'
export { Skill as SkillSchema, SkillHit as SkillHitSchema } from './model'
export type { SkillsService } from './service'
export type { Outcome as SkillOutcome, SkillInput } from './store'

export function createSkills(storage: Storage): SkillsService {
  return createSkillsService(storage.engine === 'sqlite' ? sqliteSkillsStore(storage) : pgSkillsStore(storage))
}
