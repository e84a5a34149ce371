// The server edge: what every HTTP exchange gets before and after the API handles it — the
// request id (echoed or generated), CORS, refusing announced bodies over 1 MiB, security
// headers and one access-log line. Kept outside Elysia's hook chain: as request and
// after-response hooks the same work cost a quarter of the throughput of a light endpoint.
import type { Server } from 'bun'
import type { Logger } from '../log'
import { MAX_BODY_BYTES, payloadTooLarge } from './body'
import { problemResponse, ProblemError } from './problem'
import { beginRequest, type RequestInfo } from './request-context'
import { indexRoutes, pathnameOf, type RouteEntry, type RouteMatch, type RoutesIndex } from './routes-index'

export interface EdgeOptions {
  log: Logger
  trustProxy: boolean
  corsOrigins: string[]
}

export interface EdgeApp {
  /** Elysia's composed handler: synchronous for synchronous routes, unlike `handle` */
  fetch(request: Request): Response | Promise<Response>
  routes: readonly RouteEntry[]
  /** Elysia's default headers, copied into every request's `set.headers` */
  defaultHeaders: Record<string, unknown>
}

export type EdgeHandler = (request: Request, server?: Pick<Server<unknown>, 'requestIP'> | null) => Response | Promise<Response>

/** Sent on every response; the API app sets them too (Elysia's default headers). */
export const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff' }

const CORS_ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS'
const CORS_ALLOW_HEADERS = 'authorization, content-type, x-request-id'
const CORS_EXPOSE_HEADERS = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, www-authenticate'

export function createEdge(app: EdgeApp, { log, trustProxy, corsOrigins }: EdgeOptions): EdgeHandler {
  const anyOrigin = corsOrigins.includes('*')
  const allowedOrigin = (request: Request) => {
    if (corsOrigins.length === 0) return null
    const origin = request.headers.get('origin')
    return origin !== null && (anyOrigin || corsOrigins.includes(origin)) ? origin : null
  }

  // X-Request-Id goes out through Elysia's default headers, which Elysia copies into each
  // request's `set.headers` synchronously as it starts handling it: a getter there reads the id
  // of the request being dispatched. Setting the header on the finished Response instead costs
  // a fifth of a light endpoint's throughput (Bun builds the response's Headers object for it).
  let dispatching: string | undefined
  Object.defineProperty(app.defaultHeaders, 'x-request-id', {
    enumerable: true,
    configurable: true,
    get: () => dispatching ?? crypto.randomUUID(),
  })

  // Rebuilt when routes are added (tests mount extra ones after start). Recent answers are
  // remembered: most traffic repeats a few URLs.
  let routes: RoutesIndex = indexRoutes(app.routes)
  let indexed = app.routes.length
  const recent = new Map<string, Map<string, RouteMatch | null>>()
  const routeOf = (method: string, url: string) => {
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

  function respond(request: Request, origin: string | null, id: string): Response | Promise<Response> {
    if (origin && request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return new Response(null, {
        status: 204,
        headers: {
          ...SECURITY_HEADERS,
          'x-request-id': id,
          'access-control-allow-methods': CORS_ALLOW_METHODS,
          'access-control-allow-headers': CORS_ALLOW_HEADERS,
          'access-control-max-age': '600',
        },
      })
    }
    const declared = request.headers.get('content-length')
    if (declared !== null && Number(declared) > MAX_BODY_BYTES) return problemResponse(payloadTooLarge(), { ...SECURITY_HEADERS, 'x-request-id': id })
    dispatching = id
    try {
      return app.fetch(request)
    } finally {
      dispatching = undefined
    }
  }

  // Elysia answers its own errors; anything reaching here is a bug in the plumbing itself.
  function crashed(error: unknown, info: RequestInfo): Response {
    log.error('unhandled error at the edge', { request_id: info.id, error })
    const problem = new ProblemError(500, 'internal_error', 'Something went wrong on our side; the request id identifies it in the logs.')
    return problemResponse(problem, { ...SECURITY_HEADERS, 'x-request-id': info.id })
  }

  function finish(request: Request, response: Response, info: RequestInfo, origin: string | null): Response {
    const route = routeOf(request.method, request.url)
    // A route whose answer is a fixed Response (the docs page) was built once, not per request.
    if (route?.fixedResponse) response.headers.set('x-request-id', info.id)
    if (origin) {
      const headers = response.headers
      headers.set('access-control-allow-origin', origin)
      headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS)
      headers.append('vary', 'Origin')
    }
    log.request({
      method: request.method,
      route: route === null ? null : route.path,
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
    let result: Response | Promise<Response>
    try {
      result = respond(request, origin, info.id)
    } catch (error) {
      result = crashed(error, info)
    }
    if (result instanceof Promise) {
      return result.then(
        (response) => finish(request, response, info, origin),
        (error: unknown) => finish(request, crashed(error, info), info, origin),
      )
    }
    return finish(request, result, info, origin)
  }
}
