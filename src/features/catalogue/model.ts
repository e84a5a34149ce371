// The shapes the catalogue answers with, declared once: routes validate with them, the OpenAPI
// document is generated from them, and the service's types are their `.static`.
import { t } from 'elysia'
import { Int, paginated } from '../../http/schemas'
import { SORTED_MATCH_CAP } from './search'

/**
 * Search counts matches up to this many, and serves pages within them. Counting every match of
 * a common word costs a pass over its whole index entries; beyond a thousand results a query
 * wants narrowing more than paging.
 */
export const SEARCH_COUNT_CAP = 1000

export const Slug = (description: string) => t.String({ maxLength: 64, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description })
const DateTime = t.String({ format: 'date-time' })

export const SubcategoryView = t.Object({ id: t.String(), name: t.String(), prompt_count: Int() })
export const CategoryView = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  icon: t.String({ description: 'an emoji' }),
  prompt_count: Int(),
  subcategories: t.Array(SubcategoryView),
})
export type CategoryView = typeof CategoryView.static

export const CategoryList = t.Object({ items: t.Array(CategoryView) })

const summaryFields = {
  id: t.String({ format: 'uuid' }),
  title: t.String(),
  description: t.String(),
  category_id: t.String(),
  subcategory_id: t.Nullable(t.String()),
  tags: t.Array(t.String()),
  type: t.String({ description: 'text (the default), structured, image, …: the type its catalogue gives (prompts.chat’s TEXT, STRUCTURED, IMAGE)' }),
  preview: t.String({ description: 'the first ~200 characters of the content, cut at a word boundary ("…" when cut)' }),
  favorite_count: Int(),
  created_at: DateTime,
  updated_at: DateTime,
}
export const PromptSummary = t.Object(summaryFields)
export type PromptSummary = typeof PromptSummary.static

export const SearchHit = t.Object({
  ...summaryFields,
  snippet: t.String({
    description: 'about 24 words around the matches, HTML-escaped, matching words inside <mark>…</mark>; "…" where text was cut',
  }),
})
export type SearchHit = typeof SearchHit.static

export const Variable = t.Object({ name: t.String(), default: t.Nullable(t.String()), options: t.Nullable(t.Array(t.String())) })
export const Prompt = t.Object({
  ...summaryFields,
  content: t.String(),
  variables: t.Array(Variable, { description: '{{name}}, {{name:default}}, {{name:a|b}} in order of first appearance' }),
})
export type Prompt = typeof Prompt.static

export const PromptPage = paginated(PromptSummary)
export type PromptPage = typeof PromptPage.static
export const SearchPage = paginated(SearchHit)
export type SearchPage = typeof SearchPage.static

export const SortSchema = t.UnionEnum(['popular', 'newest', 'title'], {
  description: 'popular (default: most favorites first), newest, or title (A–Z)',
})

/** A search's order: relevance, or one of a listing's. */
export const SearchSortSchema = t.UnionEnum(['relevance', 'popular', 'newest', 'title'], {
  description: `relevance (default: the best matches of titles, tags and descriptions first, then content-only matches, newest first), or a listing's order: popular (most favorites first), newest, or title (A–Z); a query that matches more than ${SORTED_MATCH_CAP} prompts sorts the ${SORTED_MATCH_CAP} added last`,
})
export type SearchSort = typeof SearchSortSchema.static
