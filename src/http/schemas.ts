// Schemas shared by many routes: the problem body, pagination, common responses.
import { FormatRegistry, type IntegerOptions, Type } from '@sinclair/typebox'
import { t, type TSchema } from 'elysia'
import { TIERS } from '../tiers'
import { parseJsonBody } from './body'

/**
 * A strict JSON integer. Elysia's t.Integer also accepts numeric strings (it is meant for query
 * strings): in a JSON body "90" is a type error, and in a response the coercion costs time.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options)

/**
 * A query-string integer (t.Integer in a query) is decimal digits. Elysia's own `integer` format
 * takes whatever Number() reads: `?limit=0x10` was 16, `1e1` 10, `%205` 5. Replaced here, where
 * every route's schemas come from, before any route is compiled.
 */
FormatRegistry.Set('integer', (value) => /^[0-9]{1,16}$/.test(value))

export const ProblemSchema = t.Object(
  {
    type: t.String({ examples: ['about:blank'] }),
    title: t.String(),
    status: Int(),
    code: t.String({ description: 'stable machine-readable snake_case code' }),
    detail: t.String(),
    errors: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
)

/** Problem responses for the OpenAPI document, by status. */
export function problems<const S extends number>(...statuses: S[]): Record<S, typeof ProblemSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ProblemSchema])) as Record<S, typeof ProblemSchema>
}

/**
 * One of a fixed set of strings. Elysia's t.UnionEnum gives itself a default (its first value),
 * so a missing required field would silently take that value; this one has no default.
 */
export function StringEnum<const T extends readonly [string, ...string[]]>(values: T, options: { description?: string } = {}) {
  const schema = t.UnionEnum(values, options)
  delete (schema as { default?: unknown }).default
  return schema
}

export const TierSchema = StringEnum(TIERS)

/** A JSON object that refuses unknown properties (a typo is an error, not silently ignored). */
export function strictObject<T extends Record<string, TSchema>>(properties: T, options: { description?: string } = {}) {
  return t.Object(properties, { additionalProperties: false, ...options })
}

/**
 * The largest offset: the largest integer a JSON number carries exactly. Past it the databases
 * refuse the number (SQLite binds it as a real, PostgreSQL finds it out of bigint's range).
 */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER

export const PaginationQuery = {
  // `title` names the parameter in a 422: Elysia checks a query integer's range alone, with no path (http/errors.ts).
  limit: t.Optional(t.Integer({ title: 'limit', minimum: 1, maximum: 100, default: 20, description: '1–100, default 20' })),
  offset: t.Optional(t.Integer({ title: 'offset', minimum: 0, maximum: MAX_OFFSET, default: 0, description: '≥ 0, default 0' })),
}

export function paginated<T extends TSchema>(item: T) {
  return t.Object({ items: t.Array(item), total: Int(), limit: Int(), offset: Int() })
}

export const NO_STORE = { 'cache-control': 'no-store' } as const

/** A check that must pass before the body is read: authentication, a rate limit. Throws a ProblemError to refuse. */
export type BeforeBody = (context: { request: Request }) => unknown

/**
 * Route options for a JSON request body: body.ts's strict parser does the parsing (it runs first);
 * `'json'` after it is what tells the OpenAPI generator the body is application/json.
 * Only routes that take a body get a parser: a parse hook makes Elysia compile the route's
 * handler as async, a promise per request that routes without a body have no use for.
 *
 * Elysia's parse phase comes before transform, where the guard macros authenticate, so whatever
 * must come before the body (401/403 before 400/413/415/422; every login attempt counted, the
 * malformed ones too) runs here as `before`. Routes behind the bearer guard use guard.jsonBody,
 * which passes their macros' checks.
 */
export function jsonBody<T extends TSchema>(schema: T, before?: BeforeBody) {
  const parser = before ? parserAfter(before) : strictJsonParser
  return { parse: [parser, 'json' as const], body: schema }
}

interface ParseContext {
  request: Request
  contentType: string
}

const strictJsonParser = ({ request, contentType }: ParseContext) => parseJsonBody(request, contentType)

// Destructured, like every hook here: Elysia reads a hook's parameters to decide which parts of
// the context (headers, query…) to build for the route.
const parserAfter =
  (before: BeforeBody) =>
  async ({ request, contentType }: ParseContext) => {
    await before({ request })
    return parseJsonBody(request, contentType)
  }
