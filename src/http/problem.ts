// RFC 9457 problem details: the one error body of the whole API (contract section 2).
import { STATUS_CODES } from 'node:http'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

export interface FieldError {
  path: string
  message: string
}

export interface ProblemBody {
  type: 'about:blank'
  title: string
  status: number
  code: string
  detail: string
  errors?: FieldError[]
  [extra: string]: unknown
}

/** Throw one of these anywhere; the error handler turns it into a problem+json response. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail)
    this.name = 'ProblemError'
  }

  body(): ProblemBody {
    return {
      type: 'about:blank',
      title: STATUS_CODES[this.status] ?? 'Error',
      status: this.status,
      code: this.code,
      detail: this.detail,
      ...this.extra,
    }
  }
}

export function problemResponse(problem: ProblemError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem.body()), {
    status: problem.status,
    headers: { ...headers, ...problem.headers, 'content-type': PROBLEM_CONTENT_TYPE },
  })
}

// The problems that more than one feature raises. Feature-specific ones are built in place.

export const notFound = (detail = 'The requested resource does not exist.') => new ProblemError(404, 'not_found', detail)

export const validationFailed = (errors: FieldError[], detail = 'The request is not valid.') =>
  new ProblemError(422, 'validation_failed', detail, { errors })

/** A NUL (U+0000) that got as far as PostgreSQL, which refuses it (db/errors.ts isUnstorableText). */
export const unstorableText = () =>
  validationFailed(
    [{ path: '/', message: 'contains NUL (U+0000), which cannot be stored' }],
    'The request holds a NUL character (U+0000), which no field accepts.',
  )

export const WWW_AUTHENTICATE_REALM = 'Bearer realm="promptlib"'

/** 401 with the RFC 6750 challenge: `error="invalid_token"` whenever a token was sent but refused. */
export function unauthorized(code: 'missing_token' | 'invalid_token' | 'token_expired' | 'token_revoked', detail: string) {
  const challenge = code === 'missing_token' ? WWW_AUTHENTICATE_REALM : `${WWW_AUTHENTICATE_REALM}, error="invalid_token"`
  return new ProblemError(401, code, detail, {}, { 'www-authenticate': challenge })
}

export function rateLimited(retryAfterSeconds: number, detail: string) {
  return new ProblemError(429, 'rate_limited', detail, {}, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) })
}

/** A write that waited its whole lock timeout (an import in another process holds the database): try again shortly. */
export const databaseBusy = () =>
  new ProblemError(
    503,
    'database_busy',
    'The database is busy with another process’s write (an import?). Try again shortly.',
    {},
    { 'retry-after': '1' },
  )
