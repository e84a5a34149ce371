// MCP messages for the fuzzer. POST /api/mcp is one operation in the OpenAPI document, whose body
// is any JSON-RPC message, so the tools' own arguments never came from their schemas: here each
// tool of tools/list is called with arguments drawn from its input schema, valid or with one of
// them missing, of the wrong type or hostile, and prompts/get, resources/read and the paginated
// lists get hostile names, uris and cursors. As the users who may call them, and as some who may not.
import fc from 'fast-check'
import { anyJsonValue, anyText, hugeText } from './hostile'
import { type AuthKind, type HttpCase, type KnownValues, valid } from './openapi-cases'

export interface McpTool {
  name: string
  inputSchema: Record<string, unknown>
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }

type Arguments = Record<string, unknown>

/** What is done to a tool's valid arguments. */
const argumentMutation = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ name: 'valid', apply: (args: Arguments) => args }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(20), anyText)
      .map(([i, text]) => ({ name: 'hostile argument', apply: (args: Arguments) => replaceOne(args, i, text) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(20), anyJsonValue)
      .map(([i, value]) => ({ name: 'wrong type', apply: (args: Arguments) => replaceOne(args, i, value) })),
  },
  { weight: 1, arbitrary: fc.nat(20).map((i) => ({ name: 'missing argument', apply: (args: Arguments) => withoutOne(args, i) })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(20), hugeText).map(([i, huge]) => ({ name: 'huge argument', apply: (args: Arguments) => replaceOne(args, i, huge) })),
  },
)

function replaceOne(args: Arguments, index: number, value: unknown): Arguments {
  const keys = Object.keys(args)
  return keys.length === 0 ? { x: value } : { ...args, [keys[index % keys.length]!]: value }
}

function withoutOne(args: Arguments, index: number): Arguments {
  const keys = Object.keys(args)
  if (keys.length === 0) return args
  const copy = { ...args }
  delete copy[keys[index % keys.length]!]
  return copy
}

const mcpAuth: fc.Arbitrary<AuthKind> = fc.oneof(
  { arbitrary: fc.constantFrom<AuthKind>('pro-pat', 'pro-jwt'), weight: 6 },
  { arbitrary: fc.constantFrom<AuthKind>('starter-pat', 'free-jwt', 'none', 'garbage'), weight: 1 },
)

const message = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

function toolCall(tool: McpTool, known: KnownValues): fc.Arbitrary<HttpCase> {
  return fc.tuple(valid(tool.inputSchema, 'arguments', known), argumentMutation, mcpAuth, fc.nat(1000)).map(([args, mutation, auth, id]) => ({
    kind: 'http' as const,
    op: `MCP tools/call ${tool.name}`,
    mutation: mutation.name,
    method: 'POST',
    path: '/api/mcp',
    auth,
    headers: { ...MCP_HEADERS },
    body: message(id, 'tools/call', { name: tool.name, arguments: mutation.apply((args ?? {}) as Arguments) }),
  }))
}

/** prompts/get, resources/read and the lists, by hostile names, uris and cursors. */
function otherRequest(known: KnownValues): fc.Arbitrary<HttpCase> {
  const name = fc.oneof(fc.constantFrom(...(known.prompt_id ?? ['x'])), anyText)
  const skill = fc.oneof(fc.constantFrom(...(known.skill_id ?? ['x'])), anyText)
  const params = fc.oneof(
    fc
      .tuple(name, fc.dictionary(anyText, fc.oneof(anyText, anyJsonValue), { maxKeys: 3 }))
      .map(([n, args]) => ['prompts/get', { name: n, arguments: args }] as const),
    skill.map((s) => ['resources/read', { uri: `skill://${s}/SKILL.md` }] as const),
    anyText.map((uri) => ['resources/read', { uri }] as const),
    fc.oneof(anyText, anyJsonValue).map((cursor) => ['prompts/list', { cursor }] as const),
    fc.oneof(anyText, anyJsonValue).map((cursor) => ['resources/list', { cursor }] as const),
  )
  return fc.tuple(params, mcpAuth, fc.nat(1000)).map(([[method, p], auth, id]) => ({
    kind: 'http' as const,
    op: `MCP ${method}`,
    mutation: 'hostile',
    method: 'POST',
    path: '/api/mcp',
    auth,
    headers: { ...MCP_HEADERS },
    body: message(id, method, p),
  }))
}

export function mcpCase(tools: McpTool[], known: KnownValues): fc.Arbitrary<HttpCase> {
  return fc.oneof({ arbitrary: fc.oneof(...tools.map((tool) => toolCall(tool, known))), weight: 4 }, { arbitrary: otherRequest(known), weight: 1 })
}
