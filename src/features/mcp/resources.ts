// Skills as MCP resources, for pro and lifetime (contract section 12): each skill's SKILL.md as
// skill://{id}/SKILL.md. Below pro the lists are empty and a read is refused (upgrade_required):
// the capability stays declared whatever the tier, because a stateless server cannot tell a
// client that the tier changed since it initialized.
import type { ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js'
import { stringify } from 'yaml'
import { type AuthUser, upgradeRequired } from '../../http/auth'
import { notFound, validationFailed } from '../../http/problem'
import { tierAtLeast } from '../../tiers'
import type { SkillsService } from '../skills'
import { jsonRpcError, RESOURCE_NOT_FOUND } from './refusals'

export const SKILLS_PAGE = 100
const MARKDOWN = 'text/markdown'
const SKILL_URI = /^skill:\/\/([^/]{1,200})\/SKILL\.md$/

type Skill = Awaited<ReturnType<SkillsService['get']>>

export const skillUri = (id: string) => `skill://${id}/SKILL.md`

/**
 * The skill's SKILL.md again: its front matter (the keys the importer reads, category and tags
 * in `metadata` as the importer takes them) and its instructions. Imported again, it gives the
 * same skill.
 */
export function skillMarkdown(skill: Skill): string {
  const front: Record<string, unknown> = { name: skill.name, description: skill.description }
  if (skill.license !== null) front.license = skill.license
  if (skill.compatibility !== null) front.compatibility = skill.compatibility
  if (skill.allowed_tools.length > 0) front['allowed-tools'] = skill.allowed_tools.join(' ')
  const metadata: Record<string, string> = { ...skill.metadata, category: skill.category }
  if (skill.tags.length > 0) metadata.tags = skill.tags.join(', ')
  else delete metadata.tags
  front.metadata = metadata
  return `---\n${stringify(front, { lineWidth: 0 })}---\n${skill.instructions}`
}

const encodeOffset = (offset: number) => Buffer.from(String(offset)).toString('base64url')
function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  const text = cursor.length <= 32 ? Buffer.from(cursor, 'base64url').toString() : ''
  if (!/^\d{1,9}$/.test(text)) throw jsonRpcError(validationFailed([{ path: '/cursor', message: 'is not a cursor this server handed out' }]))
  return Number(text)
}

export function createResources(skills: Pick<SkillsService, 'list' | 'get'>) {
  const allowed = (user: AuthUser) => tierAtLeast(user.tier, 'pro')

  return {
    async list(user: AuthUser, cursor: string | undefined): Promise<ListResourcesResult> {
      const offset = decodeOffset(cursor)
      if (!allowed(user)) return { resources: [] }
      const page = await skills.list({ limit: SKILLS_PAGE, offset })
      const resources = page.items.map((s) => ({ uri: skillUri(s.id), name: s.id, title: s.name, description: s.description, mimeType: MARKDOWN }))
      const end = offset + page.items.length
      return end < page.total && page.items.length > 0 ? { resources, nextCursor: encodeOffset(end) } : { resources }
    },

    templates(user: AuthUser): ListResourceTemplatesResult {
      if (!allowed(user)) return { resourceTemplates: [] }
      return {
        resourceTemplates: [
          {
            uriTemplate: 'skill://{id}/SKILL.md',
            name: 'skill',
            title: 'Agent Skill',
            description: 'A skill’s SKILL.md (front matter and instructions); {id} is the skill’s kebab-case name, as search_skills returns it',
            mimeType: MARKDOWN,
          },
        ],
      }
    },

    async read(user: AuthUser, uri: string): Promise<ReadResourceResult> {
      const match = SKILL_URI.exec(uri)
      if (!match) throw jsonRpcError(notFound(`There is no resource ${uri.slice(0, 200)}; skills are skill://{id}/SKILL.md.`), RESOURCE_NOT_FOUND)
      if (!allowed(user)) throw jsonRpcError(upgradeRequired('pro'))
      const skill = await skills.get(match[1]!)
      return { contents: [{ uri, mimeType: MARKDOWN, text: skillMarkdown(skill) }] }
    },
  }
}

export type McpResources = ReturnType<typeof createResources>
