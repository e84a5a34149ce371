// MCP clients for the tests: the SDK's own Client over its Streamable HTTP transport (a real
// client, as Claude or Cursor run it), and raw HTTP for what a real client never sends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { TestApp } from './app'

export const MCP_ACCEPT = 'application/json, text/event-stream'

/** A connected SDK client (initialize done) sending `Authorization: Bearer <token>` on every request. */
export async function mcpClient(baseUrl: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'promptlib-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  })
  await client.connect(transport)
  return client
}

/** A test app listening on a loopback port (the SDK client speaks HTTP). */
export function listen(t: TestApp) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.handle })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

/** A raw POST /api/mcp through the app, with the headers a well-behaved client sends unless overridden. */
export function rawMcp(t: TestApp, body: unknown, { token, headers = {} }: { token?: string; headers?: Record<string, string> } = {}) {
  return t.request('/api/mcp', {
    method: 'POST',
    token,
    headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array || body instanceof ReadableStream ? body : JSON.stringify(body),
  })
}

export const rpc = (method: string, params?: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
})

/** A tool result's text, parsed when it is JSON. */
// biome-ignore lint: tests inspect arbitrary JSON
export function toolText(result: object): any {
  const [first] = ((result as { content?: unknown }).content ?? []) as { type: string; text: string }[]
  return first?.text
}

/** The problem document a tool error carries after its first line (`code: detail`). */
// biome-ignore lint: tests inspect arbitrary JSON
export function toolProblem(result: object): any {
  if ((result as { isError?: unknown }).isError !== true) throw new Error(`expected a tool error, got ${JSON.stringify(result).slice(0, 300)}`)
  const text: string = toolText(result)
  const [head, ...rest] = text.split('\n')
  const problem = JSON.parse(rest.join('\n'))
  if (!head!.startsWith(`${problem.code}: `)) throw new Error(`the first line does not name the code: ${head}`)
  return problem
}
