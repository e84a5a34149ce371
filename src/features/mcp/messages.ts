// What an MCP POST body must be before the SDK sees it (contract section 12): one JSON-RPC
// request or notification, or a non-empty batch of them. The SDK's transport would answer
// some of these itself (an empty batch with 202, a response message with 202) or in a body of its
// own; here every one is a problem+json 422 naming what is wrong, like any other invalid body.
import {
  InitializeRequestSchema,
  type JSONRPCNotification,
  JSONRPCNotificationSchema,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { type FieldError, validationFailed } from '../../http/problem'

/** What a POST may carry. */
export type ClientMessage = JSONRPCRequest | JSONRPCNotification

/** As the SDK's transport allows. */
export const MAX_BATCH = 100

const invalid = (errors: FieldError[]) =>
  validationFailed(errors, 'The body is not a JSON-RPC request or notification (or a non-empty batch of them).')

function check(value: unknown, at: string, errors: FieldError[]): ClientMessage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push({ path: at || '/', message: 'must be a JSON-RPC message: an object with "jsonrpc": "2.0" and a "method"' })
    return null
  }
  const message = value as Record<string, unknown>
  if (typeof message.method !== 'string') {
    errors.push({
      path: `${at}/method`,
      message: 'must be a string: this endpoint takes requests and notifications (it never asks the client anything, so it takes no responses)',
    })
    return null
  }
  const parsed = ('id' in message ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(message)
  // The handshake is the SDK's own handler, which would answer malformed params as an internal
  // error: checked here instead (every other method's params are checked by its handler).
  const params = parsed.success && message.method === 'initialize' ? InitializeRequestSchema.safeParse(message) : parsed
  if (parsed.success && params.success) return parsed.data
  for (const issue of (params.success ? parsed : params).error!.issues.slice(0, 5)) {
    const path = issue.path.length > 0 ? `${at}/${issue.path.join('/')}` : at || '/'
    errors.push({ path, message: issue.code === 'unrecognized_keys' ? `has unknown members: ${issue.keys.join(', ')}` : issue.message })
  }
  return null
}

/** The messages of a body, or 422 validation_failed. */
export function jsonRpcMessages(body: unknown): ClientMessage[] {
  const errors: FieldError[] = []
  if (!Array.isArray(body)) {
    const message = check(body, '', errors)
    if (!message) throw invalid(errors)
    return [message]
  }
  if (body.length === 0) throw invalid([{ path: '/', message: 'an empty batch holds no message' }])
  if (body.length > MAX_BATCH) throw invalid([{ path: '/', message: `a batch holds at most ${MAX_BATCH} messages (got ${body.length})` }])
  const messages = body.map((item, i) => check(item, `/${i}`, errors))
  if (errors.length > 0) throw invalid(errors.slice(0, 20))
  if (messages.length > 1 && messages.some((m) => m!.method === 'initialize')) {
    throw invalid([{ path: '/', message: 'initialize must be sent alone, not in a batch' }])
  }
  // The transport pairs each answer with its request by id: two requests with one id would share an answer.
  const ids = messages.flatMap((m) => ('id' in m! ? [`${typeof m.id}:${m.id}`] : []))
  if (new Set(ids).size !== ids.length) throw invalid([{ path: '/', message: 'the requests of a batch need distinct ids' }])
  return messages as ClientMessage[]
}
