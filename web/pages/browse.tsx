// Browsing: the categories on the home page, and one category's prompts with a subcategory, a
// tag, an order and pages, all kept in the address (so a filtered list can be shared or bookmarked).
import { ApiError, type Category, getJson, type Page as ApiPage, type PromptSummary, query } from '../api'
import { navigate, useLocation, withQuery } from '../router'
import { ErrorNotice, Loading, Page, Pager, SelectField, useApi, useLastPage } from '../ui'
import { PromptCard } from './cards'

// The tree changes only when an operator imports: loaded once per visit.
let categoriesLoaded: Promise<{ items: Category[] }> | null = null
export function categories(): Promise<{ items: Category[] }> {
  categoriesLoaded ??= getJson<{ items: Category[] }>('/categories').catch((error) => {
    categoriesLoaded = null
    throw error
  })
  return categoriesLoaded
}

export function HomePage() {
  const list = useApi(() => categories(), [])
  return (
    <Page title="Prompt library" lead="Browse prompts by topic, or search them all from the box above.">
      {list.error ? (
        <ErrorNotice error={list.error} retry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.items.length === 0 ? (
        <p>
          The library is empty. An operator adds prompts with <code>promptlib import</code>.
        </p>
      ) : (
        <ul class="grid categories">
          {list.data.items.map((category) => (
            <li class="card" key={category.id}>
              <h2>
                <a href={`/c/${category.id}`}>
                  {category.icon && <span aria-hidden="true">{category.icon} </span>}
                  {category.name}
                </a>
              </h2>
              <p class="card-text">{category.description}</p>
              <p class="muted">{category.prompt_count === 1 ? '1 prompt' : `${category.prompt_count} prompts`}</p>
              {category.subcategories.length > 0 && (
                <ul class="chips" aria-label={`${category.name}: subcategories`}>
                  {category.subcategories.map((sub) => (
                    <li key={sub.id}>
                      <a href={`/c/${category.id}?sub=${sub.id}`}>{sub.name}</a>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
    </Page>
  )
}

/** A listing's orders (a search offers them after relevance). */
export const SORTS = [
  ['popular', 'Most popular'],
  ['newest', 'Newest'],
  ['title', 'Title A–Z'],
] as const

const LIMIT = 20

export function CategoryPage({ id }: { id: string }) {
  const loc = useLocation()
  const sub = loc.query.get('sub') ?? ''
  const tag = loc.query.get('tag') ?? ''
  const sort = loc.query.get('sort') ?? 'popular'
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0)
  const category = useApi((signal) => getJson<Category>(`/categories/${encodeURIComponent(id)}`, { signal }), [id])
  const prompts = useApi(
    (signal) =>
      getJson<ApiPage<PromptSummary>>(
        `/categories/${encodeURIComponent(id)}/prompts${query({ subcategory: sub, tag, sort, limit: LIMIT, offset })}`,
        { signal },
      ),
    [id, sub, tag, sort, offset],
  )
  const beyond = useLastPage(prompts.loading ? undefined : prompts.data?.total, LIMIT, offset, (o) => withQuery(loc, { offset: o || null }))
  if (category.error) {
    // Only a category the server does not know is "not found"; a server out of reach is not.
    const missing = category.error instanceof ApiError && (category.error.status === 404 || category.error.status === 422)
    return (
      <Page title={missing ? 'Category not found' : 'This category could not be loaded'}>
        <ErrorNotice
          error={category.error}
          retry={() => {
            category.reload()
            prompts.reload()
          }}
        />
        <p>
          <a href="/">All categories</a>
        </p>
      </Page>
    )
  }
  if (!category.data) return <Loading />
  const c = category.data
  const change = (changes: Record<string, string | null>) => navigate(withQuery(loc, { ...changes, offset: null }), { keepFocus: true })
  return (
    <Page title={c.name} lead={c.description}>
      <form class="filters" aria-label="Filter and order" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          id="filter-sub"
          label="Subcategory"
          value={sub}
          options={[['', `All (${c.prompt_count})`], ...c.subcategories.map((s) => [s.id, `${s.name} (${s.prompt_count})`] as const)]}
          onChange={(value) => change({ sub: value })}
        />
        <SelectField
          id="filter-sort"
          label="Order"
          value={sort}
          options={SORTS}
          onChange={(value) => change({ sort: value === 'popular' ? null : value })}
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
      <section aria-labelledby="prompts-heading">
        <h2 id="prompts-heading" class="visually-hidden">
          Prompts
        </h2>
        {prompts.error ? (
          <ErrorNotice error={prompts.error} retry={prompts.reload} />
        ) : !prompts.data || beyond ? (
          <Loading what="Loading prompts" />
        ) : prompts.data.items.length === 0 ? (
          <p>No prompts here{tag ? ` with the tag #${tag}` : ''}.</p>
        ) : (
          <>
            <ul class="list" aria-busy={prompts.loading}>
              {prompts.data.items.map((p) => (
                <PromptCard key={p.id} prompt={p} tagHref={(t) => withQuery(loc, { tag: t, offset: null })} />
              ))}
            </ul>
            <Pager label="Prompts" total={prompts.data.total} limit={LIMIT} offset={offset} href={(o) => withQuery(loc, { offset: o || null })} />
          </>
        )}
      </section>
    </Page>
  )
}
