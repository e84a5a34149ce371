// The shapes skills answers with, declared once (routes, OpenAPI and the service's types).
import { t } from 'elysia'
import { paginated } from '../../http/schemas'

/** Search ranks the newest this many matches, and counts up to it. */
export const SKILL_SEARCH_WINDOW = 1000

const skillFields = {
  id: t.String({ description: 'the skill’s name (kebab-case)' }),
  name: t.String(),
  description: t.String({ description: 'what the skill does and when to use it' }),
  category: t.String(),
  tags: t.Array(t.String()),
  license: t.Nullable(t.String()),
  compatibility: t.Nullable(t.String()),
  allowed_tools: t.Array(t.String(), { description: 'the SKILL.md `allowed-tools`' }),
  metadata: t.Nullable(t.Record(t.String(), t.String())),
  files: t.Array(t.String(), { description: 'the skill folder’s other files (scripts/, references/, assets/), relative paths' }),
  updated_at: t.String({ format: 'date-time' }),
  instructions: t.String({ description: 'Markdown: the body of SKILL.md' }),
}
/** A skill is the same whole in lists, search results and on its own (contract section 5). */
export const Skill = t.Object(skillFields)
export type Skill = typeof Skill.static
export const SkillHit = t.Object({ ...skillFields, snippet: t.String({ description: 'HTML-escaped, matches inside <mark>…</mark>' }) })

export const SkillPage = paginated(Skill)
export type SkillPage = typeof SkillPage.static
export const SkillSearchPage = paginated(SkillHit)
export type SkillSearchPage = typeof SkillSearchPage.static
