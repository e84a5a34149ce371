// The HTTP plumbing every route shares: request id, CORS, body parsing, the one error shape,
// and one access-log line per request. Hooks are global so they reach every feature plugin.
import { Elysia } from 'elysia'
import type { Logger } from '../log'
import { checkDeclaredLength, parseJsonBody } from './body'
import { toProblem } from './errors'
import { problemResponse, ProblemError } from './problem'
import { beginRequest, requestInfo } from './request-context'

export interface PlumbingOptions {
  log: Logger
  trustProxy: boolean
  corsOrigins: string[]
}

const CORS_ALLOW_HEADERS = 'authorization, content-type, x-request-id'
const CORS_EXPOSE_HEADERS = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, www-authenticate'

export function plumbing({ log, trustProxy, corsOrigins }: PlumbingOptions) {
  const anyOrigin = corsOrigins.includes('*')
  const allowedOrigin = (origin: string | null) =>
    origin !== null && (anyOrigin || corsOrigins.includes(origin)) ? origin : null

  return new Elysia({ name: 'plumbing' })
    .error({ ProblemError })
    .onRequest(({ request, server, set }) => {
      const info = beginRequest(request, server, trustProxy)
      set.headers['x-request-id'] = info.id
      set.headers['x-content-type-options'] = 'nosniff'
      if (corsOrigins.length > 0) {
        const origin = allowedOrigin(request.headers.get('origin'))
        if (origin) {
          set.headers['access-control-allow-origin'] = origin
          set.headers['access-control-expose-headers'] = CORS_EXPOSE_HEADERS
          set.headers['vary'] = 'Origin'
          if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
            return new Response(null, {
              status: 204,
              headers: {
                ...(set.headers as Record<string, string>),
                'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
                'access-control-allow-headers': CORS_ALLOW_HEADERS,
                'access-control-max-age': '600',
              },
            })
          }
        }
      }
      checkDeclaredLength(request)
    })
    .onParse({ as: 'global' }, ({ request, contentType }) => parseJsonBody(request, contentType))
    .onError({ as: 'global' }, ({ code, error, request, route, set }) => {
      const problem = toProblem(code, error)
      if (problem.status >= 500) {
        log.error('unhandled error', { request_id: requestInfo(request).id, route, error })
      }
      set.status = problem.status
      return problemResponse(problem)
    })
    .onAfterResponse({ as: 'global' }, ({ request, route, set, responseValue }) => {
      const info = requestInfo(request)
      const status = responseValue instanceof Response ? responseValue.status : Number(set.status ?? 200)
      log.request({
        method: request.method,
        // The route template, never the raw URL: query strings carry OAuth codes and the like.
        route: route || null,
        status,
        duration_ms: Math.round((performance.now() - info.startedAt) * 100) / 100,
        request_id: info.id,
      })
    })
}
