// Requests generated from the server's own OpenAPI document: for every operation, path
// parameters, queries and JSON bodies drawn from their schemas (and from ids the server really
// has, so the handlers get past their lookups), then mutated: wrong types, missing and extra
// fields, hostile and huge strings, bodies that are not objects or not JSON, the wrong media
// type, the wrong method; sent without a token, with a bad one, or as a free (JWT), starter (PAT) or pro user (both).
import fc from 'fast-check'
import { anyJsonValue, anyText, hugeText, urlPiece } from './hostile'

// biome-ignore lint: JSON Schema, read loosely
type Schema = any

export type AuthKind = 'none' | 'free-jwt' | 'starter-pat' | 'pro-jwt' | 'pro-pat' | 'victim-jwt' | 'garbage' | 'forged-jwt' | 'malformed-header'

export interface HttpCase {
  kind: 'http'
  /** the operation, as in the document: `POST /api/user/favorites` */
  op: string
  /** what was done to the valid request */
  mutation: string
  method: string
  /** path and query, percent-encoded as sent */
  path: string
  auth: AuthKind
  headers: Record<string, string>
  body?: string
}

/** Ids the server has, by parameter or field name: the valid requests use them. */
export interface KnownValues {
  [name: string]: string[]
}

interface Operation {
  method: string
  path: string
  parameters: { name: string; in: 'path' | 'query' | 'header' | 'cookie'; schema: Schema; required?: boolean }[]
  body: Schema | null
  secured: boolean
}

export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = []
  for (const [path, methods] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(methods)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        secured: (op.security ?? []).some((s: Schema) => 'bearer' in s),
      })
    }
  }
  return ops
}

/** A valid value for a schema (as far as the schema says; the handlers check more). */
export function valid(schema: Schema, name: string, known: KnownValues, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.constant(null)
  const fromServer = known[name]
  if (fromServer && fromServer.length > 0 && (schema.type === 'string' || schema.anyOf === undefined)) {
    return fc.oneof({ arbitrary: fc.constantFrom(...fromServer), weight: 4 }, { arbitrary: validBySchema(schema, name, known, depth), weight: 1 })
  }
  return validBySchema(schema, name, known, depth)
}

function validBySchema(schema: Schema, name: string, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.const !== undefined) return fc.constant(schema.const)
  const choices = schema.anyOf ?? schema.oneOf
  if (choices) return fc.oneof(...choices.map((s: Schema) => validBySchema(s, name, known, depth + 1)))
  const value = byType(schema, name, known, depth)
  return schema.nullable ? fc.option(value, { nil: null }) : value
}

function byType(schema: Schema, name: string, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'string':
      return validString(schema, name)
    case 'integer':
      return validInteger(schema)
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'array':
      return fc.array(valid(schema.items, name, known, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) })
    case 'object': {
      const properties: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) properties[key] = valid(sub, key, known, depth + 1)
      const record = fc.record(properties, { requiredKeys: schema.required ?? [] })
      if (schema.additionalProperties !== true || Object.keys(properties).length > 0) return record
      // an open object (a webhook payload): some JSON
      return fc.dictionary(fc.string({ maxLength: 12 }), anyJsonValue, { maxKeys: 6 })
    }
    default:
      return anyJsonValue
  }
}

/**
 * Mostly small integers; sometimes a bound, and where the schema sets none, integers past what a
 * JSON number holds exactly (offsets of 10^20 answered 500 on both engines before they had a maximum).
 */
function validInteger(schema: Schema): fc.Arbitrary<number> {
  const min: number = schema.minimum ?? -1000
  const edges = [min, schema.maximum ?? Number.MAX_SAFE_INTEGER]
  if (schema.maximum === undefined) edges.push(2 ** 53 + 2, 1e20, 1e300)
  if (schema.minimum === undefined) edges.push(-(2 ** 53) - 2, -1e20)
  return fc.oneof({ weight: 3, arbitrary: fc.integer({ min, max: schema.maximum ?? 100_000 }) }, { weight: 1, arbitrary: fc.constantFrom(...edges) })
}

function validString(schema: Schema, name: string): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = Math.min(schema.maxLength ?? 60, 60)
  if (schema.format === 'uuid') return fc.uuid()
  if (schema.format === 'email' || name === 'email') return fc.emailAddress()
  if (schema.format === 'integer') return validInteger({ minimum: -5, maximum: schema.maximum }).map(String)
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? Infinity))
  if (name === 'password' || name === 'new_password' || name === 'current_password') {
    return fc.oneof(fc.constant('a sufficiently long passphrase'), fc.string({ minLength: 8, maxLength: 40 }))
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) })
}

type Mutation = { name: string; apply(body: unknown, pick: Picks): { body?: string; contentType?: string | null } }

interface Picks {
  index: number
  value: unknown
  text: string
  huge: string
  keys: string[]
}

const stringFieldsOf = (value: unknown): string[] =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value as object) : []

const json = (value: unknown) => ({ body: JSON.stringify(value) })

/** What is done to a valid JSON body. */
const BODY_MUTATIONS: { weight: number; mutation: Mutation }[] = [
  { weight: 30, mutation: { name: 'valid', apply: (body) => json(body) } },
  {
    weight: 8,
    mutation: {
      name: 'missing field',
      apply(body, pick) {
        const keys = stringFieldsOf(body)
        if (keys.length === 0) return json(body)
        const copy = { ...(body as Record<string, unknown>) }
        delete copy[keys[pick.index % keys.length]!]
        return json(copy)
      },
    },
  },
  {
    weight: 10,
    mutation: {
      name: 'wrong type',
      apply(body, pick) {
        const keys = stringFieldsOf(body)
        if (keys.length === 0) return json(pick.value)
        return json({ ...(body as object), [keys[pick.index % keys.length]!]: pick.value })
      },
    },
  },
  {
    weight: 8,
    mutation: {
      name: 'extra fields',
      apply(body, pick) {
        const extra = Object.fromEntries(pick.keys.map((k) => [k, pick.value]))
        // __proto__ as an own key: JSON text, not an object literal, makes it one
        const text = JSON.stringify({ ...(typeof body === 'object' && body !== null ? body : {}), ...extra })
        return { body: text.replace(/^\{/, '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},') }
      },
    },
  },
  {
    weight: 12,
    mutation: {
      name: 'hostile strings',
      apply(body, pick) {
        const keys = stringFieldsOf(body)
        if (keys.length === 0) return json(pick.text)
        return json(Object.fromEntries(keys.map((k, i) => [k, i === pick.index % keys.length ? pick.text : (body as Record<string, unknown>)[k]])))
      },
    },
  },
  {
    weight: 2,
    mutation: {
      name: 'huge string',
      apply(body, pick) {
        const keys = stringFieldsOf(body)
        return json(keys.length === 0 ? { x: pick.huge } : { ...(body as object), [keys[pick.index % keys.length]!]: pick.huge })
      },
    },
  },
  { weight: 4, mutation: { name: 'not an object', apply: (_, pick) => json(pick.value === null ? [] : pick.value) } },
  {
    weight: 4,
    mutation: {
      name: 'not JSON',
      apply: (body, pick) => {
        const text = JSON.stringify(body) ?? ''
        const variants = [
          text.slice(0, Math.max(1, pick.index % (text.length + 1))),
          `${text},`,
          `{'single': 'quotes'}`,
          `{"a":1,"a":2,"a":${JSON.stringify(pick.text)}}`,
          pick.text,
          '\uFEFF{}',
          'NaN',
          '{"a": 1e99999}',
          `${'['.repeat(100)}${']'.repeat(100)}`,
          `{"x":${'{"x":'.repeat(60)}1${'}'.repeat(60)}}`,
        ]
        return { body: variants[pick.index % variants.length]! }
      },
    },
  },
  {
    weight: 3,
    mutation: {
      name: 'wrong media type',
      apply: (body, pick) => ({
        body: JSON.stringify(body),
        contentType: [
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          '',
          'application/json; charset=latin1',
          // a header value fetch will send: control characters and what is past Latin-1 replaced
          `application/json; x=${pick.text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?')}`,
        ][pick.index % 6]!,
      }),
    },
  },
  { weight: 2, mutation: { name: 'no body', apply: () => ({ contentType: null }) } },
]

const picks: fc.Arbitrary<Picks> = fc.record({
  index: fc.nat(1000),
  value: anyJsonValue,
  text: anyText,
  huge: hugeText,
  keys: fc.array(anyText, { minLength: 1, maxLength: 3 }),
})

function authFor(op: Operation): fc.Arbitrary<AuthKind> {
  const users: AuthKind[] = ['free-jwt', 'starter-pat', 'pro-jwt', 'pro-pat']
  return fc.oneof(
    { arbitrary: fc.constantFrom(...users), weight: op.secured ? 8 : 3 },
    { arbitrary: fc.constantFrom<AuthKind>('none', 'garbage', 'forged-jwt', 'malformed-header'), weight: 2 },
  )
}

/** A path or query value: valid, hostile, huge, raw or encoded. */
function paramValue(param: Operation['parameters'][number], known: KnownValues): fc.Arbitrary<string> {
  const validText = valid(param.schema, param.name, known).map((v) => (typeof v === 'string' ? v : String(JSON.stringify(v))))
  return fc
    .tuple(
      fc.oneof(
        { arbitrary: validText, weight: 6 },
        { arbitrary: anyText, weight: 3 },
        { arbitrary: fc.constantFrom('x'.repeat(5000), '9'.repeat(400), '%', '%zz', '%ff%fe', '%00', '%c0%af', '..', '.', '%2e%2e'), weight: 1 },
      ),
      fc.boolean(),
    )
    .map(([text, raw]) => (/^%|^\.+$/.test(text) ? text : urlPiece(text, raw && !/^[a-z0-9-]*$/i.test(text) && text.length < 200)))
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']

export function operationCase(op: Operation, known: KnownValues): fc.Arbitrary<HttpCase> {
  const pathParams = op.parameters.filter((p) => p.in === 'path')
  const queryParams = op.parameters.filter((p) => p.in === 'query')
  const pathValues = fc.tuple(...pathParams.map((p) => paramValue(p, known)))
  const query = fc.tuple(
    ...queryParams.map((p) => fc.option(paramValue(p, known), { freq: 2 })),
    fc.option(fc.tuple(anyText, anyText), { freq: 4 }),
    fc.option(fc.constantFrom('duplicate', 'array', 'bare'), { freq: 6 }),
  )
  const body = op.body
    ? fc.tuple(
        valid(op.body, 'body', known),
        picks,
        fc.oneof(...BODY_MUTATIONS.map((m) => ({ arbitrary: fc.constant(m.mutation), weight: m.weight }))),
      )
    : fc.constant(null)
  const method = fc.oneof({ arbitrary: fc.constant(op.method), weight: 19 }, { arbitrary: fc.constantFrom(...OTHER_METHODS), weight: 1 })
  return fc.tuple(pathValues, query, body, authFor(op), method).map(([values, queryParts, bodyParts, chosenAuth, chosenMethod]) => {
    let auth = chosenAuth
    let path = op.path
    pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, values[i]!)))
    const pairs: string[] = []
    const extraPair = queryParts[queryParams.length] as [string, string] | null
    const shape = queryParts[queryParams.length + 1] as string | null
    queryParams.forEach((p, i) => {
      const value = queryParts[i] as string | null
      if (value === null) return
      pairs.push(`${encodeURIComponent(p.name)}=${value}`)
      if (shape === 'duplicate') pairs.push(`${encodeURIComponent(p.name)}=${value}`)
      if (shape === 'array') pairs.push(`${encodeURIComponent(p.name)}[]=${value}`)
    })
    if (extraPair) pairs.push(`${urlPiece(extraPair[0], false)}=${urlPiece(extraPair[1], false)}`)
    if (shape === 'bare') pairs.push('&&=&flag')
    if (pairs.length > 0) path += `?${pairs.join('&')}`

    const headers: Record<string, string> = {}
    let bodyText: string | undefined
    let mutation = 'valid'
    if (bodyParts) {
      const [value, pick, m] = bodyParts
      const applied = m.apply(value, pick)
      mutation = m.name
      bodyText = applied.body
      if (applied.contentType !== null) headers['content-type'] = applied.contentType ?? 'application/json'
    }
    // anything encodeURIComponent would change (asked without it: it throws on a lone surrogate)
    if (pathParams.length > 0 && mutation === 'valid' && values.some((v) => !/^[A-Za-z0-9\-_.!~*'()]*$/.test(v))) mutation = 'hostile path'
    if (chosenMethod !== op.method) mutation = `method ${chosenMethod}`
    // a method swapped to DELETE /api/user/me must not delete the users the other cases sign in as
    const destructive = (chosenMethod === 'DELETE' && op.path === '/api/user/me') || op.path === '/api/user/password'
    if (destructive && /-(?:jwt|pat)$/.test(auth)) auth = 'victim-jwt'
    // GET and HEAD cannot carry a body in fetch
    if (chosenMethod === 'GET' || chosenMethod === 'HEAD') bodyText = undefined
    return { kind: 'http', op: `${op.method} ${op.path}`, mutation, method: chosenMethod, path, auth, headers, body: bodyText }
  })
}
