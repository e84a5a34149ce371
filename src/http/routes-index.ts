// Which route template a request matched, for the access log ("/api/prompts/:prompt_id", never
// the raw URL: query strings and ids stay out of aggregations), and which methods a path has
// (405 and Allow). Built from the app's own route list; static paths win over parameters, as in
// Elysia's router.
export interface RouteEntry {
  method: string
  path: string
  hooks?: { detail?: unknown }
}

/**
 * Spread into the `detail` of a GET route that acts (redeems a one-time code, captures a
 * payment): HEAD is then not answered by its handler, as Elysia would, but refused with 405.
 * Link checkers and prefetchers send HEAD to the URLs they see; none may spend a sign-in or a
 * payment. Shown in the OpenAPI document as the extension `x-acts-on-get`.
 */
export const ACTS_ON_GET = { 'x-acts-on-get': true } as const

const actsOnGet = (route: RouteEntry) =>
  route.method === 'GET' && typeof route.hooks?.detail === 'object' && (route.hooks.detail as Record<string, unknown>)?.['x-acts-on-get'] === true

export interface RoutesIndex {
  /** the matched route template; HEAD falls back to GET (unless the GET acts), as Elysia answers HEAD with the GET handler, then ALL */
  find(method: string, pathname: string): string | null
  /** the methods some route answers at this path (HEAD wherever a GET that does not act), in a fixed order; empty for an unknown path */
  methodsAt(pathname: string): string[]
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
const byMethodOrder = (a: string, b: string) => (METHOD_ORDER.indexOf(a) + 1 || 99) - (METHOD_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b)

export function indexRoutes(routes: readonly RouteEntry[]): RoutesIndex {
  const exact = new Map<string, string>()
  const patterns: { method: string; pattern: RegExp; path: string }[] = []
  for (const { method, path } of routes) {
    if (!path.includes(':') && !path.includes('*')) {
      exact.set(`${method} ${path}`, path)
      continue
    }
    const source = path
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')
    patterns.push({ method, pattern: new RegExp(`^${source}$`), path })
  }
  const lookupExact = (method: string, pathname: string) => {
    const hit = exact.get(`${method} ${pathname}`)
    if (hit !== undefined) return hit
    for (const p of patterns) if (p.method === method && p.pattern.test(pathname)) return p.path
    return null
  }
  // Elysia (strictPath off) answers a route's path with one trailing slash too: it is the same
  // route, for the access log and for 405/Allow.
  const lookup = (method: string, pathname: string) =>
    lookupExact(method, pathname) ?? (pathname.length > 1 && pathname.endsWith('/') ? lookupExact(method, pathname.slice(0, -1)) : null)
  const methods = [...new Set(routes.map((r) => r.method))]
  const acting = new Set(routes.filter(actsOnGet).map((r) => r.path))
  const headAsGet = (pathname: string) => {
    const get = lookup('GET', pathname)
    return get !== null && !acting.has(get) ? get : null
  }
  return {
    // A route of any method (Elysia's .all, method ALL) answers what no other route does; a HEAD
    // of an acting GET matches neither (a 405 from the edge).
    find(method, pathname) {
      const found = lookup(method, pathname) ?? (method === 'HEAD' ? headAsGet(pathname) : null)
      if (found !== null) return found
      return method === 'HEAD' && lookup('GET', pathname) !== null ? null : lookup('ALL', pathname)
    },
    // Only asked when no route answers a request's method (a 404 or 405 in the making), so a plain scan.
    methodsAt(pathname) {
      const found = methods.filter((method) => lookup(method, pathname) !== null)
      if (!found.includes('HEAD') && headAsGet(pathname) !== null) found.push('HEAD')
      return found.sort(byMethodOrder)
    },
  }
}

/** The path of a request URL without building a URL object (this runs on every request). */
export function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  const query = url.indexOf('?', start)
  return url.slice(start, query === -1 ? undefined : query)
}
