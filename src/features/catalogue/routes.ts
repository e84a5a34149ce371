// /api/categories, /api/categories/{id}, /api/categories/{id}/prompts, /api/search,
// /api/prompts/{id} (contract section 5).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { JSON_TEXT_HEADERS } from '../../http/json-text'
import { validationFailed } from '../../http/problem'
import { clientAddress } from '../../http/request-context'
import { PaginationQuery, problems } from '../../http/schemas'
import { rateLimitHeaders } from '../usage'
import { CategoryList, CategoryView, Prompt, PromptPage, SEARCH_COUNT_CAP, SearchPage, SearchSortSchema, Slug, SortSchema } from './model'
import type { CatalogueService } from './service'

const filterQuery = {
  subcategory: t.Optional(Slug('a subcategory of the category')),
  tag: t.Optional(t.String({ maxLength: 100, description: 'a tag (compared in its slug form)' })),
  type: t.Optional(Slug('only prompts of this type: text, structured, image, …')),
}

export function catalogueRoutes({ catalogue, guard }: { catalogue: CatalogueService; guard: AuthGuard }) {
  return (
    new Elysia({ name: 'catalogue' })
      .use(guard)
      // The tree's JSON is serialised once per catalogue revision and sent as it is (the busiest
      // read skips serialisation and validation), so its schema is documented by hand. Answered
      // without a promise whenever the cached tree may be used (bench.ts: a promise per request is
      // a visible share of this route's cost); only the first request, or one after a second
      // without any, waits. Written so that Elysia does not compile the handler as async (no
      // `return f(` or `=> f(`; see http/json-text.ts).
      .get(
        '/api/categories',
        () => {
          const ready = catalogue.categoriesJsonNow()
          if (ready !== null) return new Response(ready, { headers: JSON_TEXT_HEADERS })
          return new Promise<Response>((resolve, reject) => {
            catalogue.categoriesJson().then((text) => {
              resolve(new Response(text, { headers: JSON_TEXT_HEADERS }))
            }, reject)
          })
        },
        {
          detail: {
            tags: ['catalogue'],
            summary: 'All categories with their subcategories and prompt counts, in display order',
            responses: { 200: { description: 'The category tree', content: { 'application/json': { schema: CategoryList as never } } } },
          },
        },
      )
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
          query: t.Object({ ...filterQuery, sort: t.Optional(SortSchema), ...PaginationQuery }),
          response: { 200: PromptPage, ...problems(404, 422) },
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
            q: t.String({ minLength: 1, maxLength: 10_000, description: 'the search text; the last word also matches as a prefix (4+ letters)' }),
            category: t.Optional(Slug('only prompts of this category')),
            ...filterQuery,
            sort: t.Optional(SearchSortSchema),
            ...PaginationQuery,
          }),
          response: { 200: SearchPage, ...problems(422) },
          detail: {
            tags: ['catalogue'],
            summary: 'Full-text search over prompts (title weighted above tags, description and content)',
            description: `Every word must match (title, description, content or tags); common English words are ignored unless the query has nothing else; the last word also matches as the start of a longer word. Prompts whose title, description or tags hold every word come first, ranked with the title weighted 10, tags 6, description 4; prompts that match only in their content follow, newest first. \`sort\` (popular, newest, title) orders the matches as a category listing does instead. \`total\` counts matches up to ${SEARCH_COUNT_CAP}.`,
          },
        },
      )
      .get(
        '/api/prompts/:prompt_id',
        async ({ params, user, request, set }) => {
          // HEAD (answered by this handler) reports what GET would, without counting a view.
          const { prompt, quota } = await catalogue.openPrompt(
            params.prompt_id,
            { user: user ?? null, address: clientAddress(request) },
            { peek: request.method === 'HEAD' },
          )
          Object.assign(set.headers, rateLimitHeaders(quota))
          return prompt
        },
        {
          optionalAuth: true,
          params: t.Object({ prompt_id: t.String({ format: 'uuid', description: 'the prompt’s UUID' }) }),
          response: { 200: Prompt, ...problems(401, 403, 404, 422, 429) },
          detail: {
            tags: ['catalogue'],
            summary: 'One prompt with its content and template variables (metered: free and anonymous callers open 10 distinct prompts per UTC day)',
            security: [{}, { bearer: [] }],
          },
        },
      )
  )
}
