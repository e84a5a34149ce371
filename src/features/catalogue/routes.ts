// /api/categories, /api/categories/{id}, /api/categories/{id}/prompts, /api/search,
// /api/prompts/{id} (contract section 5).
import { Elysia, t } from 'elysia'
import type { Db } from '../../db/sqlite/client'
import type { AuthGuard } from '../../http/auth'
import { JSON_TEXT_HEADERS } from '../../http/json-text'
import { notFound, validationFailed } from '../../http/problem'
import { clientAddress } from '../../http/request-context'
import { Int, PaginationQuery, paginated, problems } from '../../http/schemas'
import { TIER_LIMITS } from '../../tiers'
import { addressSubject, consumeDaily, dailyLimitReached, rateLimitHeaders, userSubject } from '../usage/daily'
import { type Catalogue, SEARCH_COUNT_CAP } from './service'

const Slug = (description: string) => t.String({ maxLength: 64, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description })
const DateTime = t.String({ format: 'date-time' })

const SubcategoryView = t.Object({ id: t.String(), name: t.String(), prompt_count: Int() })
const CategoryView = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  icon: t.String({ description: 'an emoji' }),
  prompt_count: Int(),
  subcategories: t.Array(SubcategoryView),
})

const CategoryList = t.Object({ items: t.Array(CategoryView) })

const summaryFields = {
  id: t.String({ format: 'uuid' }),
  title: t.String(),
  description: t.String(),
  category_id: t.String(),
  subcategory_id: t.Nullable(t.String()),
  tags: t.Array(t.String()),
  preview: t.String({ description: 'the first ~200 characters of the content, cut at a word boundary ("…" when cut)' }),
  favorite_count: Int(),
  created_at: DateTime,
  updated_at: DateTime,
}
export const PromptSummary = t.Object(summaryFields)
const SearchHit = t.Object({
  ...summaryFields,
  snippet: t.String({
    description: 'about 24 words around the matches, HTML-escaped, matching words inside <mark>…</mark>; "…" where text was cut',
  }),
})
const Variable = t.Object({ name: t.String(), default: t.Nullable(t.String()), options: t.Nullable(t.Array(t.String())) })
const Prompt = t.Object({
  ...summaryFields,
  content: t.String(),
  variables: t.Array(Variable, { description: '{{name}}, {{name:default}}, {{name:a|b}} in order of first appearance' }),
})

const filterQuery = {
  subcategory: t.Optional(Slug('a subcategory of the category')),
  tag: t.Optional(t.String({ maxLength: 100, description: 'a tag (compared in its slug form)' })),
}

export interface CatalogueRoutesDeps {
  db: Db
  catalogue: Catalogue
  guard: AuthGuard
}

export function catalogueRoutes({ db, catalogue, guard }: CatalogueRoutesDeps) {
  return new Elysia({ name: 'catalogue' })
    .use(guard)
    // The tree's JSON is serialised once per catalogue revision and sent as it is (the busiest
    // read skips serialisation and validation), so its schema is documented by hand.
    .get('/api/categories', () => new Response(catalogue.categoriesJson(), { headers: JSON_TEXT_HEADERS }), {
      detail: {
        tags: ['catalogue'],
        summary: 'All categories with their subcategories and prompt counts, in display order',
        responses: { 200: { description: 'The category tree', content: { 'application/json': { schema: CategoryList as never } } } },
      },
    })
    .get('/api/categories/:category_id', ({ params }) => catalogue.category(params.category_id), {
      params: t.Object({ category_id: t.String({ maxLength: 200 }) }),
      response: { 200: CategoryView, ...problems(404, 422) },
      detail: { tags: ['catalogue'], summary: 'One category with its subcategories' },
    })
    .get(
      '/api/categories/:category_id/prompts',
      ({ params, query }) =>
        catalogue.listPrompts(params.category_id, { ...query, sort: query.sort ?? 'popular', limit: query.limit ?? 20, offset: query.offset ?? 0 }),
      {
        params: t.Object({ category_id: t.String({ maxLength: 200 }) }),
        query: t.Object({
          ...filterQuery,
          sort: t.Optional(t.UnionEnum(['popular', 'newest', 'title'], { description: 'popular (default: most favorites first), newest, or title (A–Z)' })),
          ...PaginationQuery,
        }),
        response: { 200: paginated(PromptSummary), ...problems(404, 422) },
        detail: { tags: ['catalogue'], summary: 'Prompt summaries of a category (filters, sorting, pagination)' },
      },
    )
    .get(
      '/api/search',
      ({ query }) => {
        if (query.q.trim() === '') throw validationFailed([{ path: '/q', message: 'must contain something to search for' }])
        return catalogue.search(query.q, { ...query, limit: query.limit ?? 20, offset: query.offset ?? 0 })
      },
      {
        query: t.Object({
          q: t.String({ minLength: 1, maxLength: 10_000, description: 'the search text; the last word also matches as a prefix (3+ letters)' }),
          category: t.Optional(Slug('only prompts of this category')),
          ...filterQuery,
          ...PaginationQuery,
        }),
        response: { 200: paginated(SearchHit), ...problems(422) },
        detail: {
          tags: ['catalogue'],
          summary: 'Full-text search over prompts (bm25; title weighted above description, tags and content)',
          description: `Every word must match (title, description, content or tags); common English words are ignored unless the query has nothing else; the last word also matches as the start of a longer word. Prompts whose title, description or tags hold every word come first, ranked by weighted bm25 (title 10, tags 6, description 4); prompts that match only in their content follow, newest first. \`total\` counts matches up to ${SEARCH_COUNT_CAP}.`,
        },
      },
    )
    .get(
      '/api/prompts/:prompt_id',
      ({ params, user, request, set }) => {
        const prompt = catalogue.prompt(params.prompt_id)
        // Unknown prompts cost nothing: the lookup comes before the meter.
        if (!prompt) throw notFound('There is no prompt with this id.')
        const limit = user ? TIER_LIMITS[user.tier].prompts_per_day : TIER_LIMITS.free.prompts_per_day
        const subject = user ? userSubject(user.id) : addressSubject(clientAddress(request))
        const result = consumeDaily(db, { subject, metric: 'prompts', limit, item: prompt.id })
        if (!result.allowed) throw dailyLimitReached(result.quota, 'prompt views')
        Object.assign(set.headers, rateLimitHeaders(result.quota))
        return prompt
      },
      {
        optionalAuth: true,
        params: t.Object({ prompt_id: t.String({ format: 'uuid', description: 'the prompt’s UUID' }) }),
        response: { 200: Prompt, ...problems(401, 404, 422, 429) },
        detail: {
          tags: ['catalogue'],
          summary: 'One prompt with its content and template variables (metered: free and anonymous callers open 10 distinct prompts per UTC day)',
          security: [{}, { bearer: [] }],
        },
      },
    )
}
