// What @elysiajs/openapi's generator cannot say from the route schemas, said on the document it
// generates (http/openapi.ts serves the result): error bodies are application/problem+json (it
// files every schema under application/json), a 204 has no body (it writes `content: {type:
// "void"}`, which is not OpenAPI), a query integer is an integer (it offers the raw string form
// without the range), and the headers the contract makes part of the interface.
import { ProblemSchema } from './schemas'

type Json = Record<string, unknown>
interface Operation {
  parameters?: { in: string; name: string; schema?: Json }[]
  responses?: Record<string, Json>
}

const PROBLEM_JSON = 'application/problem+json'

const header = (description: string, type = 'string') => ({ description, schema: { type } })

/** By status, on every operation that declares it. */
const STATUS_HEADERS: Record<string, Json> = {
  401: { 'WWW-Authenticate': header('`Bearer realm="promptlib"`, with `error="invalid_token"` when a token was sent (RFC 6750)') },
  429: { 'Retry-After': header('seconds until the limit resets', 'integer') },
}
const RATE_LIMIT = {
  'RateLimit-Limit': header('the daily limit (free and anonymous callers; absent when unlimited)', 'integer'),
  'RateLimit-Remaining': header('what is left of it today', 'integer'),
  'RateLimit-Reset': header('seconds until it resets (00:00 UTC)', 'integer'),
}
const NO_STORE = { 'Cache-Control': header('`no-store`: the body carries a token or personal data') }
/** By operation and status. */
const OPERATION_HEADERS: Record<string, Record<string, Json>> = {
  'get /api/prompts/{prompt_id}': { 200: RATE_LIMIT },
  'post /api/optimizer/optimize': { 200: RATE_LIMIT },
  'post /api/auth/register': { 201: NO_STORE },
  'post /api/auth/login': { 200: NO_STORE },
  'post /api/user/tokens': { 201: NO_STORE },
  'get /api/user/export': { 200: NO_STORE },
}
/** Request headers a route reads itself (the webhooks' signatures). */
const OPERATION_PARAMETERS: Record<string, { name: string; description: string }[]> = {
  'post /api/payments/webhook': [{ name: 'Stripe-Signature', description: 'the card provider’s signature of the raw body' }],
  'post /api/payments/altpay/webhook': [
    'PAYPAL-TRANSMISSION-ID',
    'PAYPAL-TRANSMISSION-TIME',
    'PAYPAL-TRANSMISSION-SIG',
    'PAYPAL-CERT-URL',
    'PAYPAL-AUTH-ALGO',
  ].map((name) => ({ name, description: 'the wallet provider’s signature headers (verified offline)' })),
}

const isProblem = (schema: unknown) => (schema as Json | undefined)?.description === ProblemSchema.description

/** A query integer's `anyOf` [its string form, the integer with its range] → the integer. */
function queryInteger(schema: Json | undefined): Json | undefined {
  const choices = schema?.anyOf as Json[] | undefined
  const integer = choices?.find((c) => c.type === 'integer')
  return choices?.some((c) => c.type === 'string' && c.format === 'integer') && integer ? integer : schema
}

/**
 * Every schema: a nullable enum (t.Nullable of a string enum) lists its strings only, and null
 * must be among them; a string whose route bounds it loosely in UTF-16 units (its service counts
 * characters) states the limit in characters, as JSON Schema's maxLength counts them.
 */
function finishSchemas(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(finishSchemas)
  if (node === null || typeof node !== 'object') return
  const schema = node as Json
  if (Array.isArray(schema.type) && schema.type.includes('null') && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null)
  if (typeof schema[MAX_CHARACTERS] === 'number') {
    schema.maxLength = schema[MAX_CHARACTERS]
    delete schema[MAX_CHARACTERS]
  }
  for (const value of Object.values(schema)) finishSchemas(value)
}

/** A string schema's limit as its service enforces it (in characters), for the document, where the route's maxLength is a looser bound. */
export const MAX_CHARACTERS = 'x-max-characters'

export function finishDocument<D extends { paths: Record<string, Record<string, Operation>>; components?: unknown }>(document: D): D {
  finishSchemas(document)
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const key = `${method} ${path}`
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'query') parameter.schema = queryInteger(parameter.schema)
      const reads = OPERATION_PARAMETERS[key]
      if (reads)
        operation.parameters = [
          ...(operation.parameters ?? []),
          ...reads.map((r) => ({ in: 'header', required: true, schema: { type: 'string' }, ...r })),
        ]
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const content = response.content as Record<string, { schema?: unknown }> | undefined
        // The generator's "no body": a media type map holds objects, never a string.
        if (content && typeof (content as Json).type === 'string') delete response.content
        else if (content?.['application/json'] && isProblem(content['application/json'].schema)) {
          content[PROBLEM_JSON] = content['application/json']
          delete content['application/json']
        }
        const headers = { ...STATUS_HEADERS[status], ...OPERATION_HEADERS[key]?.[status] }
        if (Object.keys(headers).length > 0) response.headers = { ...headers, ...(response.headers as Json | undefined) }
      }
    }
  }
  return document
}

/**
 * The generated paths and schemas, with the document's own components (security schemes), as a
 * copy: the generator hands out the routes' own schema objects, which their validators use.
 */
export function withComponents(generated: { paths: unknown; components: { schemas: Json } }, components: Json) {
  const copy = JSON.parse(JSON.stringify(generated)) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Json } }
  return { paths: copy.paths, components: { ...components, schemas: { ...copy.components.schemas, ...(components.schemas as Json | undefined) } } }
}
