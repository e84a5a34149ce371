// /api/optimizer/modes, /api/optimizer/optimize (Server-Sent Events), /api/optimizer/history
// (contract section 7).
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { clientGoneController, eventStreamResponse } from '../../http/event-stream'
import { requestInfo } from '../../http/request-context'
import { NO_STORE, PaginationQuery, ProblemSchema, problems } from '../../http/schemas'
import type { Logger } from '../../log'
import { rateLimitHeaders } from '../usage'
import { parseOptimizeBody } from './input'
import { HistoryPage, ModesResponse, OptimizeBody } from './model'
import { OPTIMIZATION_MODES } from './modes'
import type { OptimizerService } from './service'

const EVENT_STREAM_EXAMPLE = `event: start
data: {"id":"tz4a98xxat96iws9zmbrgj3a","mode":"structured","engine":"builtin","model":null}

event: delta
data: {"text":"## Role\\nYou are a software engineer and "}

event: done
data: {"id":"tz4a98xxat96iws9zmbrgj3a","optimized_prompt":"## Role\\n…","usage":{"input_tokens":8,"output_tokens":200},"remaining_today":2}

`

const STREAM_DESCRIPTION = `Streams the rewritten prompt as Server-Sent Events (\`text/event-stream\`).

Checked before the stream starts, answered as ordinary problem+json: authentication (401), then the
body (422; costs no quota), then the daily quota (429 \`daily_limit_reached\`: free 3, starter 10 per
UTC day; pro and lifetime unlimited) and the open-stream cap (429 \`rate_limited\`: at most 3 streams
per user at once). Both 429s carry \`Retry-After\`.

Then \`200\` and these events, each one \`event:\` line and one \`data:\` line of JSON:

- \`start\` \`{"id","mode","engine","model"}\`: once, first. \`id\` is the history entry.
- \`delta\` \`{"text"}\`: one or more; the rewritten prompt is their concatenation.
- \`done\` \`{"id","optimized_prompt","usage":{"input_tokens","output_tokens"},"remaining_today"}\`: last,
  on success. \`remaining_today\` is null on unlimited tiers. Usage comes from the upstream model
  when it reports it, else it is an estimate.
- \`error\` \`{"code","detail"}\`: last, instead of \`done\`; the stream then ends. Codes:
  \`upstream_error\`, \`upstream_timeout\`, \`shutting_down\`, \`internal_error\`. A call that fails before
  any \`delta\` is not counted against the daily limit.

A \`: ping\` comment line goes out after 15 s without an event. When the client disconnects, the engine
request is aborted at once and the history entry is stored as \`aborted\`.

On the wire:

\`\`\`
${EVENT_STREAM_EXAMPLE}\`\`\`

\`\`\`
curl -N -X POST localhost:8000/api/optimizer/optimize -H "authorization: Bearer $TOKEN" \\
  -H 'content-type: application/json' -d '{"prompt":"write a blog post about rust","mode":"structured"}'
\`\`\``

// Hand-written OpenAPI (no body/response hooks on this route); TypeBox schemas are JSON Schema.
const problemResponse = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema as never } } })

export interface OptimizerRoutesDeps {
  optimizer: OptimizerService
  guard: AuthGuard
  log: Logger
  /** a `: ping` comment goes out after this much silence on a stream (15 s; tests shorten it) */
  pingIntervalMs: number
}

export function optimizerRoutes({ optimizer, guard, log, pingIntervalMs }: OptimizerRoutesDeps) {
  const modes = { items: OPTIMIZATION_MODES.map(({ id, label, description }) => ({ id, label, description })) }

  return new Elysia({ name: 'optimizer' })
    .use(guard)
    .get('/api/optimizer/modes', () => modes, {
      response: { 200: ModesResponse },
      detail: { tags: ['optimizer'], summary: 'The optimization modes' },
    })
    .post(
      '/api/optimizer/optimize',
      async ({ user, body, request }) => {
        const input = parseOptimizeBody(body)
        const requestId = requestInfo(request).id
        // Refusals (429) are thrown by start(), before any byte of the stream.
        const gone = clientGoneController(request)
        const optimization = await optimizer.start(user, input, { signal: gone.signal, requestId })
        return eventStreamResponse(optimization.events, {
          gone,
          pingIntervalMs,
          headers: rateLimitHeaders(optimization.quota),
          onError: (error) => log.error('optimizer stream crashed', { request_id: requestId, history_id: optimization.id, error }),
        })
      },
      {
        ...guard.jsonBody({ auth: true }, OptimizeBody),
        detail: {
          tags: ['optimizer'],
          summary: 'Optimize a prompt, streamed as Server-Sent Events',
          description: STREAM_DESCRIPTION,
          security: [{ bearer: [] }],
          responses: {
            200: {
              description: 'The event stream: start, delta…, then done or error (see the description)',
              content: { 'text/event-stream': { schema: { type: 'string' }, example: EVENT_STREAM_EXAMPLE } },
            },
            400: problemResponse('The body is not valid JSON (malformed_json)'),
            401: problemResponse('Missing, invalid or expired token'),
            403: problemResponse('A personal access token of a user whose tier has no API access (api_access_required)'),
            413: problemResponse('The body is over 1 MiB'),
            415: problemResponse('The body is not application/json'),
            422: problemResponse('The body is not valid (validation_failed, with errors)'),
            429: problemResponse(
              'daily_limit_reached (with limit, used, resets_at) or rate_limited (too many open streams); Retry-After says when to retry',
            ),
          },
        },
      },
    )
    .get(
      '/api/optimizer/history',
      async ({ user, query, set }) => {
        const limit = query.limit ?? 20
        const offset = query.offset ?? 0
        Object.assign(set.headers, NO_STORE)
        return { ...(await optimizer.history(user.id, limit, offset)), limit, offset }
      },
      {
        auth: true,
        query: t.Object(PaginationQuery),
        response: { 200: HistoryPage, ...problems(401, 403, 422) },
        detail: { tags: ['optimizer'], summary: 'The user’s optimizations, newest first', security: [{ bearer: [] }] },
      },
    )
}
