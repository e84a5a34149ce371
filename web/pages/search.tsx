// Search as you type: the header's search box writes the query into the address, and this page
// asks the API at once for every change (an older request still in flight is cancelled), so the
// results follow the keystrokes. The snippets' matches are shown as <mark>. Best matches first,
// or in a listing's order.
import { getJson, type Page as ApiPage, type PromptSummary, query } from '../api'
import { navigate, useLocation, withQuery } from '../router'
import { ErrorNotice, Page, Pager, SelectField, useApi, useLastPage } from '../ui'
import { categories, SORTS } from './browse'
import { PromptCard } from './cards'

const LIMIT = 20

export function SearchPage() {
  const loc = useLocation()
  const q = loc.query.get('q') ?? ''
  const category = loc.query.get('category') ?? ''
  const tag = loc.query.get('tag') ?? ''
  const sort = loc.query.get('sort') ?? ''
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0)
  const tree = useApi(() => categories(), [])
  const results = useApi(
    async (signal) => {
      if (!q.trim()) return null
      const page = await getJson<ApiPage<PromptSummary>>(`/search${query({ q, category, tag, sort, limit: LIMIT, offset })}`, { signal })
      return { q, page }
    },
    [q, category, tag, sort, offset],
  )
  const data = results.data
  const beyond = useLastPage(results.loading ? undefined : data?.page.total, LIMIT, offset, (o) => withQuery(loc, { offset: o || null }))
  const change = (changes: Record<string, string | null>) => navigate(withQuery(loc, { ...changes, offset: null }), { replace: true })
  return (
    <Page title={q.trim() ? `Search: ${q.trim()}` : 'Search'}>
      <form class="filters" aria-label="Search filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          id="search-category"
          label="Category"
          value={category}
          options={[['', 'All categories'], ...(tree.data?.items ?? []).map((c) => [c.id, c.name] as const)]}
          onChange={(value) => change({ category: value })}
        />
        <SelectField
          id="search-sort"
          label="Order"
          value={sort}
          options={[['', 'Best match'], ...SORTS]}
          onChange={(value) => change({ sort: value })}
        />
        {tag && (
          <p class="active-filter">
            Tag: <strong>#{tag}</strong>{' '}
            <button type="button" class="link-button" onClick={() => change({ tag: null })}>
              Show all tags
            </button>
          </p>
        )}
      </form>
      {!q.trim() ? (
        <p>
          Type in the search box above: every word must match a prompt's title, description, tags or text, and the last one, from its fourth letter
          on, may be the start of a word.
        </p>
      ) : results.error ? (
        <ErrorNotice error={results.error} retry={results.reload} />
      ) : (
        <section aria-labelledby="results-heading" class="results" data-results-for={data?.q ?? ''} aria-busy={results.loading}>
          <h2 id="results-heading" class="results-count" aria-live="polite">
            {!data || beyond
              ? 'Searching…'
              : data.page.total === 0
                ? 'No prompts found'
                : `${data.page.total.toLocaleString()}${data.page.total >= 1000 ? '+' : ''} ${data.page.total === 1 ? 'prompt' : 'prompts'} found`}
          </h2>
          {data && data.page.items.length > 0 && (
            <>
              <ul class="list">
                {data.page.items.map((p) => (
                  <PromptCard key={p.id} prompt={p} tagHref={(t) => withQuery(loc, { tag: t, offset: null })} />
                ))}
              </ul>
              <Pager label="Results" total={data.page.total} limit={LIMIT} offset={offset} href={(o) => withQuery(loc, { offset: o || null })} />
            </>
          )}
        </section>
      )}
    </Page>
  )
}
