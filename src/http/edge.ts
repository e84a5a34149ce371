// The server edge: what every HTTP exchange gets before and after the API handles it — the
// request id (echoed or generated), CORS, 405 for a known path's other methods, security
// headers and one access-log line. Kept outside Elysia's hook chain: as request and
// after-response hooks the same work cost a quarter of the throughput of a light endpoint.
// (A body over 1 MiB is refused by the body parser, after authentication: see jsonBody.)
import type { Server } from 'bun'
import type { Logger } from '../log'
import { type WebHandler, webPathOf } from '../web'
import { DOCS_PAGE_HEADERS, DOCS_PATH } from './openapi'
import { problemResponse, ProblemError } from './problem'
import { beginRequest, type RequestInfo } from './request-context'
import { indexRoutes, pathnameOf, type RouteEntry, type RoutesIndex } from './routes-index'

export interface EdgeOptions {
  log: Logger
  trustProxy: boolean
  corsOrigins: string[]
  /** the web app: answers every path outside /api (src/web) */
  web?: WebHandler
}

export interface EdgeApp {
  /** Elysia's composed handler: synchronous for synchronous routes, unlike `handle` */
  fetch(request: Request): Response | Promise<Response>
  routes: readonly RouteEntry[]
}

export type EdgeHandler = (request: Request, server?: Pick<Server<unknown>, 'requestIP'> | null) => Response | Promise<Response>

const CORS_ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS'
// mcp-protocol-version: sent by MCP clients (POST /api/mcp) on every request after initialize.
const CORS_ALLOW_HEADERS = 'authorization, content-type, x-request-id, mcp-protocol-version'
const CORS_EXPOSE_HEADERS = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, www-authenticate, allow'

/** The access log's route for the web app's pages and files (the paths outside /api). */
export const WEB_ROUTE = '/*'

export function createEdge(app: EdgeApp, { log, trustProxy, corsOrigins, web }: EdgeOptions): EdgeHandler {
  const anyOrigin = corsOrigins.includes('*')
  // With CORS on, every answer depends on the request's Origin (the allow header is sent to some
  // origins and not to others, or to none when there is no Origin): caches must key on it, or a
  // copy stored for one caller is served to another without, or with the wrong, CORS headers
  // (Fetch standard, "CORS protocol and HTTP caches").
  const corsOn = corsOrigins.length > 0
  const allowedOrigin = (request: Request) => {
    if (corsOrigins.length === 0) return null
    const origin = request.headers.get('origin')
    return origin !== null && (anyOrigin || corsOrigins.includes(origin)) ? origin : null
  }

  // Rebuilt when routes are added (tests mount extra ones after start). Recent answers are
  // remembered: most traffic repeats a few URLs.
  let routes: RoutesIndex = indexRoutes(app.routes)
  let indexed = app.routes.length
  const recent = new Map<string, Map<string, string | null>>()
  const routeOf = (method: string, url: string): string | null => {
    if (app.routes.length !== indexed) {
      routes = indexRoutes(app.routes)
      indexed = app.routes.length
      recent.clear()
    }
    let byUrl = recent.get(method)
    if (byUrl === undefined) {
      if (recent.size >= 20) recent.clear()
      recent.set(method, (byUrl = new Map()))
    }
    let route = byUrl.get(url)
    if (route === undefined) {
      route = routes.find(method, pathnameOf(url))
      if (byUrl.size >= 1000) byUrl.clear()
      byUrl.set(url, route)
    }
    return route
  }

  function respond(request: Request, route: string | null, origin: string | null): Response | Promise<Response> {
    if (origin && request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-methods': CORS_ALLOW_METHODS,
          'access-control-allow-headers': CORS_ALLOW_HEADERS,
          'access-control-max-age': '600',
        },
      })
    }
    if (route === null) {
      // No route for this method: a path that other methods answer is a 405 (RFC 9110 §15.5.6),
      // or for OPTIONS the list of them; an unknown path goes on to Elysia's 404.
      const methods = routes.methodsAt(pathnameOf(request.url))
      if (methods.length > 0) return otherMethods(request.method, methods)
    }
    return app.fetch(request)
  }

  // Elysia answers its own errors; anything reaching here is a bug in the plumbing itself.
  function crashed(error: unknown, info: RequestInfo): Response {
    log.error('unhandled error at the edge', { request_id: info.id, error })
    const problem = new ProblemError(500, 'internal_error', 'Something went wrong on our side; the request id identifies it in the logs.')
    return problemResponse(problem)
  }

  function finish(request: Request, route: string | null, response: Response, info: RequestInfo, origin: string | null): Response {
    // Set here rather than as Elysia's default headers: a response that sets no headers of its
    // own is then built without a headers object (Response.json(body)), which costs less than
    // building one from Elysia's per-request header record, even with these two set after.
    const headers = response.headers
    headers.set('x-content-type-options', 'nosniff')
    headers.set('x-request-id', info.id)
    if (route === DOCS_PATH) for (const [name, value] of Object.entries(DOCS_PAGE_HEADERS)) headers.set(name, value)
    if (corsOn) {
      headers.append('vary', 'Origin')
      if (origin) {
        headers.set('access-control-allow-origin', origin)
        headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS)
      }
    }
    log.request({
      method: request.method,
      route,
      status: response.status,
      // to the response head; a stream (the optimizer's) goes on after this line
      duration_ms: performance.now() - info.startedAt,
      request_id: info.id,
    })
    return response
  }

  // Synchronous routes are answered synchronously: no promise between Bun and the handler.
  return function edge(request, server) {
    const info = beginRequest(request, server, trustProxy)
    const origin = allowedOrigin(request)
    let route: string | null = null
    let result: Response | Promise<Response>
    try {
      const webPath = web ? webPathOf(request.url) : null
      if (webPath !== null) {
        route = WEB_ROUTE
        result = web!(request, webPath)
      } else {
        route = routeOf(request.method, request.url)
        result = respond(request, route, origin)
      }
    } catch (error) {
      result = crashed(error, info)
    }
    if (result instanceof Promise) {
      return result.then(
        (response) => finish(request, route, response, info, origin),
        (error: unknown) => finish(request, route, crashed(error, info), info, origin),
      )
    }
    return finish(request, route, result, info, origin)
  }
}

/** A path's other methods: OPTIONS lists them (204), anything else is refused with them (405); Allow either way. */
function otherMethods(method: string, methods: string[]): Response {
  const allow = [...methods, 'OPTIONS'].join(', ')
  if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow } })
  const problem = new ProblemError(405, 'method_not_allowed', `This endpoint does not answer this method; it answers ${allow}.`, {}, { allow })
  return problemResponse(problem)
}
