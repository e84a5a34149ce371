// The catalogue's read side: the category tree (kept in memory per instance, reloaded when the
// database's catalogue revision moves), category listings, prompt detail (metered) and full-text
// search. Plain values in and out; storage behind CatalogueStore.
import { notFound, validationFailed } from '../../http/problem'
import { snippet, snippetOfMatch, snippetOfStart } from '../../lib/search/snippet'
import { searchTerms } from '../../lib/search/terms'
import { slugify } from '../../lib/text'
import { type Tier, TIER_LIMITS } from '../../tiers'
import { addressSubject, type DailyQuota, dailyLimitReached, type UsageService, userSubject } from '../usage'
import { type CategoryView, type Prompt, type PromptPage, type PromptSummary, SEARCH_COUNT_CAP, type SearchPage, type SearchSort } from './model'
import type { PromptSearch } from './search'
import type { CatalogueStore, NewestKey, Page, PromptRecord, Sort, TreeRows } from './store'
import { parseVariables } from './text'

/**
 * The category tree is re-validated against the database's revision when it is older than
 * this, in the background: the answer in hand is sent at once.
 */
export const REVALIDATE_MS = 100
/** An answer is never older than this: past it, a request waits for the re-validation. */
export const MAX_STALE_MS = 1000

export const summary = (r: PromptRecord): PromptSummary => ({
  id: r.id,
  title: r.title,
  description: r.description,
  category_id: r.categoryId,
  subcategory_id: r.subcategoryId,
  tags: r.tags,
  type: r.type,
  preview: r.preview,
  favorite_count: r.favoriteCount,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
})

/**
 * A prompt id as stored: lower case, without the `urn:uuid:` of a UUID's URN form (RFC 9562),
 * which the uuid format of a route's validation accepts like the plain UUID.
 */
export const canonicalUuid = (id: string) => {
  const lower = id.toLowerCase()
  return lower.startsWith('urn:uuid:') ? lower.slice(9) : lower
}

/** A newest-first walk's position as an opaque cursor: base64url of "createdAt.seq". */
const encodeCursor = (key: NewestKey) => Buffer.from(`${key.createdAt}.${key.seq}`).toString('base64url')
function decodeCursor(cursor: string): NewestKey {
  const match = cursor.length <= 64 ? /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString()) : null
  if (!match) throw validationFailed([{ path: '/cursor', message: 'is not a cursor this server handed out' }])
  return { createdAt: Number(match[1]), seq: Number(match[2]) }
}

interface Tree {
  revision: number
  list: CategoryView[]
  byId: Map<string, CategoryView>
  /** GET /api/categories, serialised once per revision (the busiest read of all) */
  json: string
}

function buildTree({ revision, categories, subcategories, counts }: TreeRows): Tree {
  const list: CategoryView[] = categories.map((cat) => ({ ...cat, prompt_count: 0, subcategories: [] }))
  const byId = new Map(list.map((cat) => [cat.id, cat]))
  for (const s of subcategories) byId.get(s.categoryId)?.subcategories.push({ id: s.id, name: s.name, prompt_count: 0 })
  for (const row of counts) {
    const cat = byId.get(row.categoryId)
    if (!cat) continue
    cat.prompt_count += row.n
    const sub = cat.subcategories.find((s) => s.id === row.subcategoryId)
    if (sub) sub.prompt_count += row.n
  }
  return { revision, list, byId, json: JSON.stringify({ items: list }) }
}

/** Who opens a prompt: a signed-in user (counted per account) or an anonymous caller (per address). */
export interface Caller {
  user: { id: string; tier: Tier } | null
  address: string
}

export interface CatalogueDeps {
  store: CatalogueStore
  search: PromptSearch
  usage: Pick<UsageService, 'consume' | 'peek'>
}

export function createCatalogueService({ store, search, usage }: CatalogueDeps) {
  let tree: Tree | null = null
  let checkedAt = -Infinity
  let revalidating: Promise<Tree> | null = null

  async function revalidate(): Promise<Tree> {
    const started = performance.now()
    const revision = await store.revision()
    tree = tree && tree.revision === revision ? tree : buildTree(await store.tree())
    checkedAt = started
    return tree
  }

  /** One re-validation at a time; callers in the meantime share it. */
  function refresh(): Promise<Tree> {
    revalidating ??= revalidate().finally(() => (revalidating = null))
    return revalidating
  }

  /** The tree when it may be answered at once (re-validating it in the background when due), else null. */
  function treeNow(): Tree | null {
    if (!tree) return null
    const age = performance.now() - checkedAt
    if (age >= MAX_STALE_MS) return null
    // A failed background re-validation is retried by a later request; past MAX_STALE_MS its error reaches one.
    if (age >= REVALIDATE_MS && !revalidating) refresh().catch(() => {})
    return tree
  }

  const currentTree = (): Promise<Tree> => Promise.resolve(treeNow() ?? refresh())

  async function category(id: string): Promise<CategoryView> {
    const found = (await currentTree()).byId.get(id)
    if (!found) throw notFound(`There is no category "${id}".`)
    return found
  }

  async function prompt(id: string): Promise<Prompt | null> {
    const row = await store.prompt(canonicalUuid(id))
    return row ? { ...summary(row), content: row.content, variables: parseVariables(row.content) } : null
  }

  return {
    /** GET /api/categories when it can be answered without waiting (the usual case), else null. */
    categoriesJsonNow: (): string | null => treeNow()?.json ?? null,
    categoriesJson: async (): Promise<string> => (await currentTree()).json,
    categories: async (): Promise<CategoryView[]> => (await currentTree()).list,
    category,

    /**
     * After this process committed a catalogue write: the next answer must show it, so the tree
     * is re-validated now (after any re-validation already under way, which may predate it).
     */
    async noteWrite(): Promise<void> {
      if (!tree) return
      await revalidating?.catch(() => {})
      await refresh()
    },

    async listPrompts(categoryId: string, filters: { subcategory?: string; tag?: string; type?: string; sort: Sort } & Page): Promise<PromptPage> {
      const found = await category(categoryId)
      if (filters.subcategory !== undefined && !found.subcategories.some((s) => s.id === filters.subcategory)) {
        throw validationFailed([{ path: '/subcategory', message: `category "${categoryId}" has no subcategory "${filters.subcategory}"` }])
      }
      const page = { limit: filters.limit, offset: filters.offset }
      const filter = {
        categoryId,
        subcategoryId: filters.subcategory,
        tag: filters.tag === undefined ? undefined : slugify(filters.tag),
        type: filters.type,
      }
      const { items, total } = await store.listPrompts(filter, filters.sort, page)
      return { items: items.map(summary), total, ...page }
    },

    /** The prompt for /api/prompts/{id}, unmetered, or null. */
    prompt,

    /**
     * Every prompt with its content and variables, newest first, `limit` at a time (MCP
     * prompts/list): `cursor` is the previous page's `next`, which is null after the last page.
     */
    async newestPrompts(cursor: string | undefined, limit: number): Promise<{ items: Prompt[]; next: string | null }> {
      const { items, next } = await store.newestPrompts(cursor === undefined ? null : decodeCursor(cursor), limit)
      return {
        items: items.map((row) => ({ ...summary(row), content: row.content, variables: parseVariables(row.content) })),
        next: next === null ? null : encodeCursor(next),
      }
    },

    /**
     * /api/prompts/{id}: the lookup comes first (an unknown prompt costs nothing), then the
     * daily meter: free and anonymous callers open a number of distinct prompts per UTC day.
     * With `peek` (HEAD) the meter is read, not moved.
     */
    async openPrompt(id: string, caller: Caller, { peek = false } = {}): Promise<{ prompt: Prompt; quota: DailyQuota }> {
      const found = await prompt(id)
      if (!found) throw notFound('There is no prompt with this id.')
      const limit = TIER_LIMITS[caller.user?.tier ?? 'free'].prompts_per_day
      const subject = caller.user ? userSubject(caller.user.id) : addressSubject(caller.address)
      const meter = { subject, metric: 'prompts' as const, limit, item: found.id }
      // `peek` (HEAD): the answer GET would give, without counting the view.
      const result = peek ? await usage.peek(meter) : await usage.consume(meter)
      if (!result.allowed) throw dailyLimitReached(result.quota, 'prompt views')
      return { prompt: found, quota: result.quota }
    },

    /** Title and category of the prompts that exist among `ids` (favorites show them). */
    async promptTitles(ids: string[]): Promise<Map<string, { title: string; category_id: string }>> {
      const rows = await store.titles(ids)
      return new Map(rows.map((r) => [r.id, { title: r.title, category_id: r.categoryId }]))
    },

    /**
     * Full-text search in two tiers: prompts whose title, description or tags hold every word
     * come first, best first; prompts that match only with their content follow, newest first.
     * A `sort` other than relevance puts the matches in that listing order instead.
     */
    async search(
      q: string,
      filters: { category?: string; subcategory?: string; tag?: string; type?: string; sort?: SearchSort } & Page,
    ): Promise<SearchPage> {
      const { limit, offset } = filters
      const empty = { items: [], total: 0, limit, offset }
      const terms = searchTerms(q)
      if (!terms) return empty
      const tag = filters.tag === undefined ? undefined : slugify(filters.tag)
      if (tag === '') return empty
      // Relevance is the absence of a listing order.
      const sort = filters.sort === 'relevance' ? undefined : filters.sort
      const { total, hits } = await search.search(
        {
          terms,
          categoryId: filters.category,
          subcategoryId: filters.subcategory,
          tag,
          type: filters.type,
          sort,
        },
        { limit, offset },
        SEARCH_COUNT_CAP,
      )
      // A head match found its words in the title, description or tags: its snippet comes from
      // there first; a content-only match's from its content, or the start of it when that decides
      // it. A sorted search's hit may be either: from its description or title when they hold a
      // word, else as a content-only match's.
      const snippets = hits.map(({ prompt: p, content, contentStart }) => {
        if (contentStart !== undefined) return snippetOfStart(contentStart, [p.description, p.title], terms)
        if (content !== undefined) return snippet([content, p.description, p.title], terms)
        return sort ? snippetOfMatch([p.description, p.title], terms) : snippet([p.description, p.title, p.preview], terms)
      })
      const undecided = hits.filter((_, i) => snippets[i] === null).map((h) => h.prompt.id)
      const whole = undecided.length === 0 ? new Map<string, string>() : await search.contents(undecided)
      const items = hits.map(({ prompt: p }, i) => ({
        ...summary(p),
        snippet:
          snippets[i] ??
          (sort
            ? // A sorted hit with no word in its text matched by its tags: the snippet relevance shows for that.
              (snippetOfMatch([whole.get(p.id) ?? ''], terms) ?? snippet([p.description, p.title, p.preview], terms))
            : snippet([whole.get(p.id) ?? '', p.description, p.title], terms)),
      }))
      return { items, total, limit, offset }
    },
  }
}

export type CatalogueService = ReturnType<typeof createCatalogueService>
