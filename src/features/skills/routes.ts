// /api/skills, /api/skills/search, /api/skills/{skill_id} (pro and lifetime; contract section 5).
// The static /search route is registered before /:skill_id, and Elysia's router prefers static
// segments anyway: "search" is never taken for a skill id (a test holds this).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { validationFailed } from '../../http/problem'
import { PaginationQuery, problems } from '../../http/schemas'
import { Skill, SKILL_SEARCH_WINDOW, SkillPage, SkillSearchPage } from './model'
import type { SkillsService } from './service'

const filters = {
  category: t.Optional(t.String({ maxLength: 64, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' })),
  tag: t.Optional(t.String({ maxLength: 100 })),
}
const security = [{ bearer: [] }]

export function skillsRoutes({ skills, guard }: { skills: SkillsService; guard: AuthGuard }) {
  return new Elysia({ name: 'skills' })
    .use(guard)
    .get('/api/skills', ({ query }) => skills.list({ ...query, limit: query.limit ?? 20, offset: query.offset ?? 0 }), {
      minTier: 'pro',
      query: t.Object({ ...filters, ...PaginationQuery }),
      response: { 200: SkillPage, ...problems(401, 403, 422) },
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
        response: { 200: SkillSearchPage, ...problems(401, 403, 422) },
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
