// Pure rules of skills shared by both adapters.
import { fingerprint, joinTags } from '../../lib/text'
import type { SkillInput } from './store'

/** The JSON columns as stored (text, kept byte for byte), and the hash of the imported fields. */
export function storedSkill(s: SkillInput) {
  const tags = joinTags(s.tags)
  const allowedTools = JSON.stringify(s.allowedTools)
  const metadata = s.metadata ? JSON.stringify(s.metadata) : null
  const files = JSON.stringify(s.files)
  const hash = fingerprint([s.name, s.description, s.category, tags, s.license, s.compatibility, allowedTools, metadata, files, s.instructions])
  return { tags, allowedTools, metadata, files, hash }
}
