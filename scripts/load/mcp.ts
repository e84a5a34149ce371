// MCP tool calls for the load run: raw JSON-RPC over fetch to POST /api/mcp (stateless Streamable
// HTTP, API-CONTRACT §12), with a pro user's PAT. The endpoint may not exist on the server under
// test: mcpAvailable() asks with `initialize` and the run leaves MCP traffic out on a 404.
import { type Action, type LoadUser, type Outcome, pick, WORDS } from './traffic'

const PROTOCOL_VERSION = '2025-06-18'
let ids = 0

async function call(base: string, pat: string, method: string, params: Record<string, unknown>): Promise<Response> {
  return fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      // what the Streamable HTTP transport requires of a client
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      authorization: `Bearer ${pat}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params }),
  })
}

/** The JSON-RPC answer in a response that is either JSON or an event stream (its last `data:` line). */
async function answerOf(res: Response): Promise<{ result?: { isError?: boolean; content?: { text?: string }[] }; error?: { code: number } } | null> {
  const text = await res.text()
  const json = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .at(-1)
        ?.slice(5)
    : text
  try {
    return JSON.parse(json ?? '')
  } catch {
    return null
  }
}

/** Whether the server answers MCP: `initialize` gets a JSON-RPC result (false on 404; anything else is an error). */
export async function mcpAvailable(base: string, pat: string): Promise<boolean> {
  const res = await call(base, pat, 'initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'promptlib-load', version: '1' },
  })
  if (res.status === 404) {
    await res.arrayBuffer()
    return false
  }
  const answer = await answerOf(res)
  if (res.status !== 200 || !answer?.result) throw new Error(`MCP initialize: ${res.status} ${JSON.stringify(answer)}`)
  return true
}

async function outcome(res: Response, allowedRefusal?: string): Promise<Outcome> {
  if (res.status !== 200) return { status: res.status, ok: false, detail: (await res.text()).slice(0, 200) }
  const answer = await answerOf(res)
  if (answer?.result && !answer.result.isError) return { status: 200, ok: true }
  // A refusal the contract names (a prompt whose variables need arguments) is an answer, not a failure.
  const text = answer?.result?.content?.[0]?.text ?? ''
  if (allowedRefusal && (text.includes(allowedRefusal) || answer?.error?.code === -32602)) return { status: 200, ok: true }
  return { status: 200, ok: false, detail: JSON.stringify(answer).slice(0, 200) }
}

/** `tools/call` of search_prompts and get_prompt, each from a random pro user's PAT. */
export function mcpActions(users: LoadUser[], prompts: string[]): Action[] {
  const pro = users.filter((u) => u.pat)
  return [
    {
      kind: 'mcp-search',
      weight: 5,
      run: async (b) =>
        outcome(await call(b, pick(pro).pat!, 'tools/call', { name: 'search_prompts', arguments: { query: pick(WORDS), limit: 10 } })),
    },
    {
      kind: 'mcp-get',
      weight: 5,
      run: async (b) =>
        outcome(await call(b, pick(pro).pat!, 'tools/call', { name: 'get_prompt', arguments: { id: pick(prompts) } }), 'validation_failed'),
    },
  ]
}
