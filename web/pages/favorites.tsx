// The user's favorite prompts, newest first, with a way to remove one.
import { useState } from 'preact/hooks'
import { getJson, type Page as ApiPage, sendJson } from '../api'
import { day } from '../lib/time'
import { useLocation, withQuery } from '../router'
import { favorites, useSession } from '../session'
import { ErrorNotice, Loading, Page, Pager, SignInPrompt, useApi, useLastPage } from '../ui'

interface Favorite {
  prompt_id: string
  title: string
  category_id: string
  created_at: string
}

const LIMIT = 20

/** Removes one favorite: once (no second request while the first is out), and says so when it fails. */
function RemoveButton({ favorite, onRemoved }: { favorite: Favorite; onRemoved: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const remove = async () => {
    setBusy(true)
    setError(null)
    try {
      await sendJson('DELETE', `/user/favorites/${encodeURIComponent(favorite.prompt_id)}`, undefined)
      ;(await favorites().catch(() => null))?.delete(favorite.prompt_id)
      onRemoved()
      // Its card goes away with the button in it: the focus goes back to the top of the list.
      document.querySelector<HTMLElement>('main h1')?.focus()
    } catch (e) {
      setError(e)
      setBusy(false)
    }
  }
  return (
    <>
      {error !== null && <ErrorNotice error={error} />}
      <button type="button" class="secondary" aria-disabled={busy} onClick={() => !busy && remove()}>
        Remove <span class="visually-hidden">{favorite.title}</span>
      </button>
    </>
  )
}

export function FavoritesPage() {
  const session = useSession()
  const loc = useLocation()
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0)
  const list = useApi(
    async (signal) => (session.token ? await getJson<ApiPage<Favorite>>(`/user/favorites?limit=${LIMIT}&offset=${offset}`, { signal }) : null),
    [session.token, offset],
  )
  const beyond = useLastPage(list.loading ? undefined : list.data?.total, LIMIT, offset, (o) => withQuery(loc, { offset: o || null }))
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
        <ErrorNotice error={list.error} retry={list.reload} />
      ) : !list.data || beyond ? (
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
                <h2 class="card-title" dir="auto">
                  <a href={`/p/${f.prompt_id}`}>{f.title}</a>
                </h2>
                <p class="muted">
                  <a href={`/c/${f.category_id}`}>{f.category_id}</a> · saved {day(f.created_at)}
                </p>
                <RemoveButton favorite={f} onRemoved={list.reload} />
              </li>
            ))}
          </ul>
          <Pager label="Favorites" total={list.data.total} limit={LIMIT} offset={offset} href={(o) => withQuery(loc, { offset: o || null })} />
        </>
      )}
    </Page>
  )
}
