// Which route template a request matched, for the access log ("/api/prompts/:prompt_id", never
// the raw URL: query strings and ids stay out of aggregations). Built from the app's own route
// list; static paths win over parameters, as in Elysia's router.
export interface RouteEntry {
  method: string
  path: string
}

export interface RoutesIndex {
  /** the matched route template; HEAD falls back to GET, as Elysia answers HEAD with the GET handler */
  find(method: string, pathname: string): string | null
}

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
  const lookup = (method: string, pathname: string) => {
    const hit = exact.get(`${method} ${pathname}`)
    if (hit !== undefined) return hit
    for (const p of patterns) if (p.method === method && p.pattern.test(pathname)) return p.path
    return null
  }
  return {
    find: (method, pathname) => lookup(method, pathname) ?? (method === 'HEAD' ? lookup('GET', pathname) : null),
  }
}

/** The path of a request URL without building a URL object (this runs on every request). */
export function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  const query = url.indexOf('?', start)
  return url.slice(start, query === -1 ? undefined : query)
}
