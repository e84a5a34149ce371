// POST /api/mcp: Model Context Protocol over Streamable HTTP, stateless (contract section 12).
// Everything HTTP happens here, before the SDK sees the request: the Origin (DNS-rebinding
// protection), the bearer token, the headers, the body (1 MiB, nesting depth) and its JSON-RPC
// shape, each refused with problem+json like every other route. Then a fresh server and
// transport answer the messages: JSON, or an event stream when a tool call asked for progress.
// GET and DELETE (a server-to-client stream, ending a session) are 405: no sessions here, and
// the edge answers another method on a known path with 405 and `Allow`.
import { Elysia } from 'elysia'
import { type BearerAuthenticator, bearerToken } from '../../http/auth'
import { parseJsonText, readBodyText } from '../../http/body'
import { clientGoneController } from '../../http/event-stream'
import { ProblemError } from '../../http/problem'
import { clientAddress, requestInfo } from '../../http/request-context'
import { ProblemSchema } from '../../http/schemas'
import { TIER_LIMITS } from '../../tiers'
import type { Admission } from './admission'
import type { CallRegistry } from './calls'
import type { ClientMessage } from './messages'
import type { Protocol } from './protocol'

export interface McpRoutesDeps {
  /** the SDK's part, loaded with the first request */
  protocol: () => Promise<Protocol>
  calls: CallRegistry
  /** how many requests are answered at once */
  admission: Admission
  authenticate: BearerAuthenticator
  /** CORS_ORIGINS: the only origins a browser may call this endpoint from ('*': any) */
  corsOrigins: string[]
}

function checkOrigin(request: Request, corsOrigins: string[]): void {
  const origin = request.headers.get('origin')
  if (origin === null || corsOrigins.includes('*') || corsOrigins.includes(origin)) return
  throw new ProblemError(403, 'origin_not_allowed', 'Requests from this Origin are refused; the server’s CORS_ORIGINS lists the origins it accepts.')
}

function checkHeaders(request: Request, { isJsonContentType, supportedVersions }: Protocol): void {
  const accept = request.headers.get('accept') ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new ProblemError(
      406,
      'not_acceptable',
      'Send Accept: application/json, text/event-stream (the MCP Streamable HTTP transport answers either).',
    )
  }
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ProblemError(415, 'unsupported_media_type', 'Send the JSON-RPC message as application/json.')
  }
  const version = request.headers.get('mcp-protocol-version')
  if (version !== null && !supportedVersions.includes(version)) {
    throw new ProblemError(400, 'unsupported_protocol_version', `MCP-Protocol-Version must be one of ${supportedVersions.join(', ')}.`)
  }
}

/**
 * A call of optimize_prompt waits seconds on the engine: a request of nothing else does not take
 * one of the admission's turns. A batch that holds other messages too does (they would run unadmitted).
 */
function waitsOnEngine(messages: ClientMessage[]): boolean {
  return messages.every((m) => m.method === 'tools/call' && (m.params as { name?: unknown } | undefined)?.name === 'optimize_prompt')
}

/** A single tools/call that asked for progress notifications: answered as an event stream, so they can go out. */
function wantsProgress(messages: ClientMessage[]): boolean {
  if (messages.length !== 1) return false
  const message = messages[0] as { method?: string; params?: { _meta?: { progressToken?: unknown } } }
  return message.method === 'tools/call' && message.params?._meta?.progressToken !== undefined
}

/**
 * The body as the SDK's server gets it: without the cancellations that name a request of the same
 * batch. Its server drops the answer of a request it was told to cancel, and the transport then
 * waits for that answer for ever: the HTTP request hung and its admission turn was never given
 * back (sixteen such batches stopped the endpoint for everyone). A cancellation that comes with
 * the request is ignored, as MCP allows; one for a call of an earlier POST works through `calls`.
 */
function withoutOwnCancellations(body: unknown, messages: ClientMessage[]): unknown {
  if (!Array.isArray(body)) return body
  const key = (id: unknown) => `${typeof id}:${String(id)}`
  const requests = new Set(messages.flatMap((m) => ('id' in m ? [key(m.id)] : [])))
  const ownCancellation = (m: ClientMessage) =>
    m.method === 'notifications/cancelled' && !('id' in m) && requests.has(key((m.params as { requestId?: unknown } | undefined)?.requestId))
  return messages.some(ownCancellation) ? body.filter((_, i) => !ownCancellation(messages[i]!)) : body
}

/**
 * A batch is answered with an array (JSON-RPC 2.0, section 6), even when it holds one request: the
 * SDK's transport answers a lone response as a bare object, which a client that sent a batch
 * does not take for its answer.
 */
async function asBatchAnswer(response: Response): Promise<Response> {
  if (response.status !== 200 || response.body === null || !response.headers.get('content-type')?.startsWith('application/json')) return response
  const text = await response.text()
  if (text.trimStart().startsWith('[')) return new Response(text, { status: response.status, headers: response.headers })
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  return new Response(`[${text}]`, { status: response.status, headers })
}

/** The stream's body, followed: `onEnd` when it ended or the client cancelled it (`cancelled` true). */
function followBody(response: Response, onEnd: (cancelled: boolean) => void): Response {
  const reader = response.body!.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) {
        controller.close()
        onEnd(false)
      } else controller.enqueue(value)
    },
    cancel(reason) {
      onEnd(true)
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: response.status, headers: response.headers })
}

export function mcpRoutes({ protocol, calls, admission, authenticate, corsOrigins }: McpRoutesDeps) {
  async function answer(request: Request): Promise<Response> {
    checkOrigin(request, corsOrigins)
    const principal = await authenticate(bearerToken(request.headers.get('authorization')))
    const { user } = principal
    // A PAT of a free user was refused by the authenticator already; a JWT is refused here.
    if (!TIER_LIMITS[user.tier].api_access) {
      throw new ProblemError(403, 'api_access_required', `The MCP endpoint needs the starter tier or higher; your tier is ${user.tier}.`, {
        required_tier: 'starter',
      })
    }
    const mcp = await protocol()
    checkHeaders(request, mcp)
    const body = parseJsonText(await readBodyText(request))
    const messages = mcp.jsonRpcMessages(body)

    const credential = `${user.id}:${principal.tokenId ?? 'jwt'}`
    for (const message of messages) {
      if (message.method !== 'notifications/cancelled' || 'id' in message) continue
      const id = message.params?.requestId
      if (typeof id === 'string' || typeof id === 'number') calls.cancel(credential, id)
    }

    const leave = waitsOnEngine(messages) ? () => {} : await admission.enter()
    try {
      const gone = clientGoneController(request)
      const streaming = wantsProgress(messages)
      const server = mcp.mcpServer({ user, credential, address: clientAddress(request), requestId: requestInfo(request).id, gone: gone.signal })
      const transport = new mcp.Transport({ sessionIdGenerator: undefined, enableJsonResponse: !streaming })
      await server.connect(transport)
      const response = await transport.handleRequest(request, { parsedBody: withoutOwnCancellations(body, messages) })
      // A JSON answer is complete once handleRequest resolves: no handler of this server runs any
      // more and it holds no timer, so it is dropped rather than closed (close() settles pending
      // requests that cannot exist here, building an error with a stack trace: a fifth of a ping).
      if (!streaming || response.body === null || response.status !== 200) {
        leave()
        return Array.isArray(body) ? await asBatchAnswer(response) : response
      }
      return followBody(response, (cancelled) => {
        leave()
        if (cancelled) gone.abort()
        void server.close()
      })
    } catch (error) {
      leave()
      throw error
    }
  }

  return new Elysia({ name: 'mcp' }).post('/api/mcp', ({ request }) => answer(request), {
    parse: 'none',
    detail: {
      tags: ['mcp'],
      summary: 'Model Context Protocol (Streamable HTTP, stateless): the library’s prompts, tools and skills for MCP clients',
      description: MCP_DESCRIPTION,
      security: [{ bearer: [] }],
      requestBody: {
        required: true,
        description: 'One JSON-RPC 2.0 request or notification, or a non-empty batch of them (at most 100)',
        content: {
          'application/json': {
            schema: {
              oneOf: [
                { $ref: '#/components/schemas/JsonRpcMessage' },
                { type: 'array', minItems: 1, maxItems: 100, items: { $ref: '#/components/schemas/JsonRpcMessage' } },
              ],
            },
            example: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_prompts', arguments: { query: 'code review' } } },
          } as never,
        },
      },
      responses: {
        200: {
          description: 'The JSON-RPC answers: application/json, or text/event-stream for a tools/call that sent a progress token',
          content: {
            'application/json': {
              schema: {
                oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }],
                description: 'an answer, or an array of them for a batch',
              },
            },
            'text/event-stream': { schema: { type: 'string' } },
          },
        },
        202: { description: 'Only notifications were sent: nothing to answer' },
        400: problem('The body is not JSON or nests deeper than 64 (malformed_json); an unsupported MCP-Protocol-Version'),
        401: problem('Missing, invalid, expired or revoked token; WWW-Authenticate: Bearer'),
        403: problem('A free user (api_access_required), or an Origin not in CORS_ORIGINS (origin_not_allowed)'),
        406: problem('Accept lacks application/json or text/event-stream (not_acceptable)'),
        413: problem('The body is over 1 MiB (payload_too_large)'),
        415: problem('The body is not application/json'),
        422: problem('The body is not a JSON-RPC request or notification, or an empty batch (validation_failed, with errors)'),
      },
    },
  })
}

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema as never } } })

const MCP_DESCRIPTION = `The endpoint for Model Context Protocol clients (Claude, Cursor, VS Code…); docs/mcp.md has their configuration.

Stateless Streamable HTTP: no \`Mcp-Session-Id\`, so any instance answers any message; GET and DELETE answer 405. Send
\`Accept: application/json, text/event-stream\` and \`Authorization: Bearer <personal access token or JWT>\` (starter tier or higher).

- **Tools**: search_prompts, get_prompt, list_categories, search_skills, get_skill, optimize_prompt, list_favorites, add_favorite,
  remove_favorite; each answers structuredContent shaped like its REST route, and refusals (\`upgrade_required\`,
  \`daily_limit_reached\`, \`not_found\`, \`validation_failed\`) as tool errors naming the code.
- **Prompts**: every catalogue prompt, newest first; its name is its id and its arguments are its template variables.
- **Resources** (pro and lifetime): each skill's SKILL.md as \`skill://{id}/SKILL.md\`.

Refused before any message is read, as problem+json: no or a bad token (401), a free user (403 \`api_access_required\`), an
\`Origin\` not in CORS_ORIGINS (403 \`origin_not_allowed\`), then the headers and the body as listed below.`
