// Maps whatever reached onError to a ProblemError. Unknown errors become a bare 500:
// their message, stack or SQL never reach the client (they are logged with the request id).
import type { ValidationError } from 'elysia'
import { isLockTimeout, isUnstorableText } from '../db/errors'
import { databaseBusy, type FieldError, notFound, ProblemError, unstorableText, validationFailed } from './problem'

const LOCATION_LABEL: Record<string, string> = {
  body: 'request body',
  query: 'query string',
  params: 'path',
  headers: 'request headers',
  cookie: 'cookies',
}

/**
 * Elysia's summaries end with the value sent (`… to be string but found: [object Object]`): a
 * JavaScript rendering of the client's own input, as long as the body (an array of a million
 * numbers). The message names what was expected; the client knows what it sent.
 */
const withoutValue = (message: string) => message.replace(/ but found: [\s\S]*$/, '')

/** A query integer that is not decimal digits fails both branches of Elysia's union (string of digits, integer). */
const NOT_DIGITS = /^Property '([^']+)' should be one of: 'integer', 'integer'$/

const readable = (message: string) => message.replace(NOT_DIGITS, "Property '$1' must be a whole number in decimal digits")

function fieldErrors(error: ValidationError): FieldError[] {
  // One entry per field: TypeBox reports a missing property twice (missing, and not a string).
  const seen = new Set<string>()
  const out: FieldError[] = []
  // A query integer out of range is checked alone ('property'), without its name: the schema's title gives it.
  const title = error.type === 'property' ? (error.validator as { title?: unknown } | undefined)?.title : undefined
  const root = typeof title === 'string' ? `/${title}` : '/'
  for (const issue of error.all as Array<{ path?: string; message?: string; summary?: string }>) {
    const path = issue.path && issue.path !== 'root' ? issue.path : root
    if (seen.has(path)) continue
    seen.add(path)
    out.push({ path, message: readable(withoutValue(issue.summary || issue.message || 'is not valid')) })
    if (out.length >= 20) break
  }
  return out
}

/**
 * An answer that failed its own schema: a defect on our side, never the client's (500). Its field
 * errors name paths and expectations only, not the values, which may be a token or an e-mail.
 */
export function responseSchemaFailure(code: string | number, error: unknown): FieldError[] | null {
  if (code !== 'VALIDATION' || (error as ValidationError).type !== 'response') return null
  return fieldErrors(error as ValidationError)
}

export function toProblem(code: string | number, error: unknown): ProblemError {
  if (error instanceof ProblemError) return error
  // Before the codes: Elysia files an error thrown in a route's parse hook (the auth rate limit is
  // a write) as PARSE, and this one is no fault of the request.
  if (isLockTimeout(error)) return databaseBusy()
  if (isUnstorableText(error)) return unstorableText()
  switch (code) {
    case 'VALIDATION': {
      const validation = error as ValidationError
      if (validation.type === 'response') break
      const where = LOCATION_LABEL[validation.type] ?? 'request'
      return validationFailed(fieldErrors(validation), `The ${where} is not valid.`)
    }
    case 'PARSE': {
      // Our body parser refuses with a ProblemError; Elysia's own parsers fail with a SyntaxError.
      // Anything else came from a check that runs before the body (jsonBody's `before`: a rate
      // limit, authentication) and is a failure on our side, not a malformed body.
      const cause = (error as { cause?: unknown }).cause
      if (cause instanceof ProblemError) return cause
      if (cause === undefined || cause instanceof SyntaxError) {
        return new ProblemError(400, 'malformed_json', 'The request body is missing or is not valid JSON.')
      }
      break
    }
    case 'NOT_FOUND':
      return notFound('No such endpoint.')
    case 'INVALID_COOKIE_SIGNATURE':
      return new ProblemError(400, 'invalid_cookie', 'A cookie was tampered with.')
  }
  return new ProblemError(500, 'internal_error', 'Something went wrong on our side; the request id identifies it in the logs.')
}
