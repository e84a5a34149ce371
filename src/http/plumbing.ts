// The API's own plumbing, inside Elysia: one error shape for every route. (Bodies are parsed by
// the routes that take one, see jsonBody; request ids, CORS and the access log live at the edge.)
import { Elysia } from 'elysia'
import { isUnstorableText } from '../db/errors'
import type { Logger } from '../log'
import { responseSchemaFailure, toProblem } from './errors'
import { problemResponse, ProblemError } from './problem'
import { requestInfo } from './request-context'

export function plumbing({ log }: { log: Logger }) {
  return new Elysia({ name: 'plumbing' }).error({ ProblemError }).onError({ as: 'global' }, ({ code, error, request, route, set }) => {
    const problem = toProblem(code, error)
    const badAnswer = responseSchemaFailure(code, error)
    if (badAnswer) log.error('an answer failed its own schema', { request_id: requestInfo(request).id, route, fields: badAnswer })
    else if (problem.code === 'database_busy')
      log.warn('database busy: a write waited its whole lock timeout', { request_id: requestInfo(request).id, route })
    else if (isUnstorableText(error)) log.warn('a NUL reached PostgreSQL; refused', { request_id: requestInfo(request).id, route })
    else if (problem.status >= 500) {
      // A refusal the code chose (payments not configured here, a provider down): said, not an
      // alarm. A bot probing an install without payments would otherwise write error lines with stacks.
      if (error instanceof ProblemError && problem.code !== 'internal_error')
        log.warn('answered with a server-side refusal', { request_id: requestInfo(request).id, route, status: problem.status, code: problem.code })
      else log.error('unhandled error', { request_id: requestInfo(request).id, route, error })
    }
    set.status = problem.status
    return problemResponse(problem)
  })
}
