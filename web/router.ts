// Client-side routing over the History API: the server answers the app for every path outside /api,
// and the app draws the page for the path. Links are plain <a href>; one listener turns clicks on
// the app's own links into navigations without a reload.
import { useEffect, useState } from 'preact/hooks'

export interface Location {
  path: string
  query: URLSearchParams
  /** what the navigation carried along (history.state), e.g. a prompt for the optimizer */
  state: unknown
  kind: 'initial' | 'push' | 'replace' | 'pop'
  /** whether the new page's heading takes the focus: after a link or back/forward, not while typing a search */
  focus: boolean
  /** bumps on every navigation, so a page can tell a new visit from a re-render */
  key: number
}

let key = 0
/** the path and query of the page on screen */
let shown = ''
function read(kind: Location['kind'], focus = kind === 'push' || kind === 'pop'): Location {
  shown = location.pathname + location.search
  return { path: location.pathname, query: new URLSearchParams(location.search), state: history.state, kind, focus, key: ++key }
}

let current = read('initial')
const listeners = new Set<() => void>()
const notify = (kind: Location['kind'], focus?: boolean) => {
  current = read(kind, focus)
  for (const listener of listeners) listener()
}

/**
 * `keepFocus`: the focus stays where it is (typing a search); `focus`: the new page's heading takes
 * it even on a replace (after signing in, where the form that had it is gone).
 */
export function navigate(to: string, options: { replace?: boolean; state?: unknown; keepFocus?: boolean; focus?: boolean } = {}) {
  const url = new URL(to, location.href)
  if (url.origin !== location.origin || isServerPath(url.pathname)) {
    location.assign(url.href)
    return
  }
  if (options.replace) history.replaceState(options.state ?? null, '', url.pathname + url.search + url.hash)
  else history.pushState(options.state ?? null, '', url.pathname + url.search + url.hash)
  if (!options.replace) window.scrollTo(0, 0)
  notify(options.replace ? 'replace' : 'push', options.keepFocus ? false : options.focus)
}

/** Paths the server answers itself (the API and its docs): a real navigation. */
const isServerPath = (path: string) => path === '/api' || path.startsWith('/api/')

export function useLocation(): Location {
  const [, rerender] = useState(0)
  useEffect(() => {
    const listener = () => rerender((n) => n + 1)
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return current
}

/** The same path with these query parameters changed (null or '' removes one). */
export function withQuery(loc: Location, changes: Record<string, string | number | null>): string {
  const query = new URLSearchParams(loc.query)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') query.delete(name)
    else query.set(name, String(value))
  }
  const text = query.toString()
  return text ? `${loc.path}?${text}` : loc.path
}

export function startRouter() {
  window.addEventListener('popstate', () => {
    // A change of the fragment alone (the skip link) is no new page.
    if (location.pathname + location.search === shown) return
    notify('pop')
  })
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const anchor = (event.target as Element | null)?.closest?.('a')
    if (!anchor || !anchor.href || anchor.target || anchor.hasAttribute('download')) return
    const url = new URL(anchor.href)
    if (url.origin !== location.origin || isServerPath(url.pathname)) return
    // A link to a place on this page (the skip link) keeps the browser's own behaviour.
    if (url.pathname === location.pathname && url.search === location.search && url.hash) return
    event.preventDefault()
    navigate(url.pathname + url.search + url.hash)
  })
}
