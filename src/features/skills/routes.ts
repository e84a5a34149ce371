// /api/skills, /api/skills/search, /api/skills/{skill_id} (pro and lifetime; contract section 5).
// The static /search route is registered before /:skill_id, and Elysia's router prefers static
// segments anyway: "search" is never taken for a skill id (a test holds this).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { validationFailed } from '../../http/problem'
import { PaginationQuery, paginated, problems } from '../../http/schemas'
import { type Skills, SKILL_SEARCH_WINDOW } from './service'

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
}
const SkillSummary = t.Object(skillFields)
const Skill = t.Object({ ...skillFields, instructions: t.String({ description: 'Markdown: the body of SKILL.md' }) })
const SkillHit = t.Object({ ...skillFields, snippet: t.String({ description: 'HTML-escaped, matches inside <mark>…</mark>' }) })

const filters = {
  category: t.Optional(t.String({ maxLength: 64, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' })),
  tag: t.Optional(t.String({ maxLength: 100 })),
}
const security = [{ bearer: [] }]

export function skillsRoutes({ skills, guard }: { skills: Skills; guard: AuthGuard }) {
  return new Elysia({ name: 'skills' })
    .use(guard)
    .get('/api/skills', ({ query }) => skills.list({ ...query, limit: query.limit ?? 20, offset: query.offset ?? 0 }), {
      minTier: 'pro',
      query: t.Object({ ...filters, ...PaginationQuery }),
      response: { 200: paginated(SkillSummary), ...problems(401, 403, 422) },
      detail: { tags: ['skills'], summary: 'Skills, by name (pro and lifetime tiers)', security },
    })
    .get(
      '/api/skills/search',
      ({ query }) => {
        if (query.q.trim() === '') throw validationFailed([{ path: '/q', message: 'must contain something to search for' }])
        return skills.search(query.q, { ...query, limit: query.limit ?? 20, offset: query.offset ?? 0 })
      },
      {
        minTier: 'pro',
        query: t.Object({ q: t.String({ minLength: 1, maxLength: 10_000 }), ...filters, ...PaginationQuery }),
        response: { 200: paginated(SkillHit), ...problems(401, 403, 422) },
        detail: {
          tags: ['skills'],
          summary: 'Full-text search over skills (pro and lifetime tiers)',
          description: `Same rules as /api/search; at most ${SKILL_SEARCH_WINDOW} results.`,
          security,
        },
      },
    )
    .get('/api/skills/:skill_id', ({ params }) => skills.get(params.skill_id), {
      minTier: 'pro',
      params: t.Object({ skill_id: t.String({ maxLength: 200 }) }),
      response: { 200: Skill, ...problems(401, 403, 404, 422) },
      detail: { tags: ['skills'], summary: 'One skill with its instructions (pro and lifetime tiers)', security },
    })
}
