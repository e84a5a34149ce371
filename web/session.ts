// Who is signed in: the JWT (kept in localStorage, sent as a bearer token; never in a cookie, so
// no request is authenticated by accident) and the profile /api/user/me returns for it.
import { useEffect, useState } from 'preact/hooks'
import { ApiError, connectSession, getJson, type Me, type SiteConfig } from './api'

const TOKEN_KEY = 'promptlib.token'

export interface Session {
  token: string | null
  me: Me | null
  /** true while the profile of a stored token is being loaded */
  loading: boolean
  /** why the last session ended without the user asking (an expired token), shown once */
  notice: string | null
}

function readStoredToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

function storeToken(token: string | null) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token)
    else localStorage.removeItem(TOKEN_KEY)
  } catch {}
}

let session: Session = { token: readStoredToken(), me: null, loading: false, notice: null }
const listeners = new Set<() => void>()

function update(next: Partial<Session>) {
  session = { ...session, ...next }
  for (const listener of listeners) listener()
}

export const currentSession = () => session

/**
 * Whose session it is: the user id in the token (a password change keeps it; another user or a
 * logout does not), '' when signed out. The page is mounted anew when it changes, so nothing one
 * user left on it (a token's secret shown once, an optimizer run) is shown to the next.
 */
export function sessionOwner(token: string | null): string {
  if (!token) return ''
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { user_id?: unknown }
    return typeof payload.user_id === 'string' ? payload.user_id : token
  } catch {
    return token
  }
}

export function useSession(): Session {
  const [, rerender] = useState(0)
  useEffect(() => {
    const listener = () => rerender((n) => n + 1)
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return session
}

connectSession(
  () => session.token,
  (problem, token) => {
    // A refusal of a token this tab no longer holds (the answer to a request sent before a new
    // login or a password change here or in another tab) ends nothing: the session moved on.
    if (token !== session.token) return
    // The server no longer takes this token (expired, revoked by a password change, account gone).
    storeToken(null)
    favoriteIds = null
    update({
      token: null,
      me: null,
      notice: problem.code === 'token_expired' ? 'Your session expired.' : 'You were signed out.',
    })
  },
)

// Another tab of this site logged out, logged in (maybe as someone else) or changed the password
// (a new token): this tab follows at once, rather than acting on for a session that ended there.
window.addEventListener('storage', (event) => {
  if (event.key !== TOKEN_KEY && event.key !== null) return
  const token = readStoredToken()
  if (token === session.token) return
  favoriteIds = null
  if (!token) {
    update({ token: null, me: null, notice: 'You logged out in another tab.' })
    return
  }
  update({ token, me: null, notice: null })
  refreshMe().catch(() => {})
})

/** Reloads the profile (tier, limits, today's usage) of the signed-in user. */
export async function refreshMe(): Promise<Me | null> {
  const token = session.token
  if (!token) return null
  update({ loading: session.me === null })
  try {
    const me = await getJson<Me>('/user/me')
    if (session.token === token) update({ me, loading: false })
    return me
  } catch (error) {
    if (session.token === token) update({ loading: false })
    if (error instanceof ApiError && error.status === 401) return null
    throw error
  }
}

export async function signIn(token: string): Promise<Me | null> {
  storeToken(token)
  favoriteIds = null
  update({ token, me: null, notice: null })
  return refreshMe()
}

/** The same user with a new token (after a password change): the profile stays on screen meanwhile. */
export function replaceToken(token: string) {
  storeToken(token)
  update({ token })
}

/** Ends the session here; `notice` says why when the user did not ask (shown once). */
export function signOut(notice: string | null = null) {
  storeToken(null)
  update({ token: null, me: null, notice })
  favoriteIds = null
}

export function clearNotice() {
  if (session.notice) update({ notice: null })
}

// The server's configuration (providers, tiers), loaded once.
let config: Promise<SiteConfig> | null = null
export function siteConfig(): Promise<SiteConfig> {
  config ??= getJson<SiteConfig>('/config').catch((error) => {
    config = null
    throw error
  })
  return config
}

// The ids of the user's favorites, loaded once per session (the prompt page shows whether one is).
let favoriteIds: Promise<Set<string>> | null = null
export function favorites(): Promise<Set<string>> {
  favoriteIds ??= (async () => {
    const ids = new Set<string>()
    for (let offset = 0; ; offset += 100) {
      const page = await getJson<{ items: { prompt_id: string }[]; total: number }>(`/user/favorites?limit=100&offset=${offset}`)
      for (const item of page.items) ids.add(item.prompt_id)
      if (offset + 100 >= page.total) return ids
    }
  })().catch((error) => {
    favoriteIds = null
    throw error
  })
  return favoriteIds
}
