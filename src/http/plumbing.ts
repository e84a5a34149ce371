// The API's own plumbing, inside Elysia: one body parser and one error shape for every route.
// (Request ids, CORS and the access log live at the edge: edge.ts.)
import { Elysia } from 'elysia'
import type { Logger } from '../log'
import { parseJsonBody } from './body'
import { toProblem } from './errors'
import { problemResponse, ProblemError } from './problem'
import { requestInfo } from './request-context'

export function plumbing({ log }: { log: Logger }) {
  return new Elysia({ name: 'plumbing' })
    .error({ ProblemError })
    .onParse({ as: 'global' }, ({ request, contentType }) => parseJsonBody(request, contentType))
    .onError({ as: 'global' }, ({ code, error, request, route, set }) => {
      const problem = toProblem(code, error)
      if (problem.status >= 500) {
        log.error('unhandled error', { request_id: requestInfo(request).id, route, error })
      }
      set.status = problem.status
      return problemResponse(problem)
    })
}
