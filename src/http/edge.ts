// The server edge: what every HTTP exchange gets before and after the API handles it — the
// request id (echoed or generated), CORS, refusing announced bodies over 1 MiB, security
// headers and one access-log line. Kept outside Elysia's hook chain: as request and
// after-response hooks the same work cost a quarter of the throughput of a light endpoint.
import type { Server } from 'bun'
import type { Logger } from '../log'
import { MAX_BODY_BYTES, payloadTooLarge } from './body'
import { problemResponse, ProblemError } from './problem'
import { beginRequest } from './request-context'
import { indexRoutes, pathnameOf, type RouteEntry, type RoutesIndex } from './routes-index'

export interface EdgeOptions {
  log: Logger
  trustProxy: boolean
  corsOrigins: string[]
}

export interface EdgeApp {
  handle(request: Request): Promise<Response>
  routes: readonly RouteEntry[]
}

export type EdgeHandler = (request: Request, server?: Pick<Server<unknown>, 'requestIP'> | null) => Promise<Response>

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

  // Rebuilt when routes are added (tests mount extra ones after start). Recent answers are
  // remembered: most traffic repeats a few URLs.
  let routes: RoutesIndex = indexRoutes(app.routes)
  let indexed = app.routes.length
  const recent = new Map<string, string | null>()
  const routeOf = (method: string, url: string) => {
    if (app.routes.length !== indexed) {
      routes = indexRoutes(app.routes)
      indexed = app.routes.length
      recent.clear()
    }
    const key = method + url
    let route = recent.get(key)
    if (route === undefined) {
      route = routes.find(method, pathnameOf(url))
      if (recent.size >= 1000) recent.clear()
      recent.set(key, route)
    }
    return route
  }

  async function respond(request: Request, origin: string | null): Promise<Response> {
    if (origin && request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return new Response(null, {
        status: 204,
        headers: { ...SECURITY_HEADERS, 'access-control-allow-methods': CORS_ALLOW_METHODS, 'access-control-allow-headers': CORS_ALLOW_HEADERS, 'access-control-max-age': '600' },
      })
    }
    const declared = request.headers.get('content-length')
    if (declared !== null && Number(declared) > MAX_BODY_BYTES) return problemResponse(payloadTooLarge(), SECURITY_HEADERS)
    return app.handle(request)
  }

  return async function edge(request, server) {
    const info = beginRequest(request, server, trustProxy)
    const origin = allowedOrigin(request)
    let response: Response
    try {
      response = await respond(request, origin)
    } catch (error) {
      // Elysia answers its own errors; anything reaching here is a bug in the plumbing itself.
      log.error('unhandled error at the edge', { request_id: info.id, error })
      response = problemResponse(new ProblemError(500, 'internal_error', 'Something went wrong on our side; the request id identifies it in the logs.'), SECURITY_HEADERS)
    }
    const headers = response.headers
    headers.set('x-request-id', info.id)
    if (origin) {
      headers.set('access-control-allow-origin', origin)
      headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS)
      headers.append('vary', 'Origin')
    }
    log.request({
      method: request.method,
      route: routeOf(request.method, request.url),
      status: response.status,
      // to the response head; a stream (the optimizer's) goes on after this line
      duration_ms: Math.round((performance.now() - info.startedAt) * 100) / 100,
      request_id: info.id,
    })
    return response
  }
}
