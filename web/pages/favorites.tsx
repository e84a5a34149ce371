// The user's favorite prompts, newest first, with a way to remove one.
import { getJson, type Page as ApiPage, sendJson } from '../api'
import { day } from '../lib/time'
import { useLocation, withQuery } from '../router'
import { favorites, useSession } from '../session'
import { ErrorNotice, Loading, Page, Pager, SignInPrompt, useApi } from '../ui'

interface Favorite {
  prompt_id: string
  title: string
  category_id: string
  created_at: string
}

const LIMIT = 20

export function FavoritesPage() {
  const session = useSession()
  const loc = useLocation()
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0)
  const list = useApi(
    async (signal) => (session.token ? await getJson<ApiPage<Favorite>>(`/user/favorites?limit=${LIMIT}&offset=${offset}`, { signal }) : null),
    [session.token, offset],
  )
  if (!session.token) {
    return (
      <Page title="Favorites">
        <SignInPrompt what="keep favorite prompts" />
      </Page>
    )
  }
  return (
    <Page title="Favorites">
      {list.error ? (
        <ErrorNotice error={list.error} />
      ) : !list.data ? (
        <Loading what="Loading your favorites" />
      ) : list.data.items.length === 0 ? (
        <p>
          No favorites yet: open a prompt and choose “Add to favorites”. <a href="/">Browse the library</a>
        </p>
      ) : (
        <>
          <ul class="list">
            {list.data.items.map((f) => (
              <li class="card favorite" key={f.prompt_id}>
                <h2 class="card-title">
                  <a href={`/p/${f.prompt_id}`}>{f.title}</a>
                </h2>
                <p class="muted">
                  <a href={`/c/${f.category_id}`}>{f.category_id}</a> · saved {day(f.created_at)}
                </p>
                <button
                  type="button"
                  class="secondary"
                  onClick={async () => {
                    await sendJson('DELETE', `/user/favorites/${f.prompt_id}`, undefined).catch(() => {})
                    ;(await favorites().catch(() => null))?.delete(f.prompt_id)
                    list.reload()
                  }}
                >
                  Remove <span class="visually-hidden">{f.title}</span>
                </button>
              </li>
            ))}
          </ul>
          <Pager label="Favorites" total={list.data.total} limit={LIMIT} offset={offset} href={(o) => withQuery(loc, { offset: o || null })} />
        </>
      )}
    </Page>
  )
}
