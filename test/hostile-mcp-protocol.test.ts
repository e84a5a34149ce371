// POST /api/mcp as MCP clients see the protocol (contract section 12 and the MCP specification):
// a batch that cancels its own request, list cursors that were never handed out or belong to
// another list, every tool answer checked against the tool's declared outputSchema with the
// SDK's own JSON Schema validator, and tool answers beside their REST routes. The SDK's Client
// over a listening server where a client would be lenient, raw HTTP for what it never sends.
// Runs on either engine.
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { MCP_CONCURRENCY } from '../src/features/mcp'
import { json, makeTestApp, register, setTier } from './support/app'
import { FIXTURES, importRecords, loadTestCatalogue } from './support/catalogue'
import { listen, MCP_ACCEPT, mcpClient, rpc, toolProblem } from './support/mcp'

const t = await makeTestApp()
await loadTestCatalogue(t)
// A skill with metadata and files (scripts/, references/, assets/), and one with neither.
const imported = await t.services.catalogue.importPaths([join(FIXTURES, 'skills', 'pdf-tools'), join(FIXTURES, 'skills', 'loose-rules')])
expect(imported.flatMap((r) => r.errors)).toEqual([])
// Enough prompts for prompts/list to hand out a cursor (100 a page).
await importRecords(t, {
  prompts: Array.from({ length: 110 }, (_, i) => ({
    id: `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`,
    title: `Cursor prompt ${i}`,
    category: 'coding',
    content: `Prompt ${i} about {{topic}} in {{tone:plain}} style, as {{form:list|table}}`,
  })),
})

const server = listen(t)
const clients: Client[] = []
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  server.stop()
})

const WELCOME = '11111111-1111-4111-8111-111111111111'
const REVIEW = '33333333-3333-4333-8333-333333333333'

async function userOf(tier: 'starter' | 'pro') {
  const registered = await register(t)
  await setTier(t, registered.user.id, tier)
  const client = await mcpClient(server.url, registered.token)
  clients.push(client)
  return { ...registered, client }
}

const pro = await userOf('pro')
const starter = await userOf('starter')

/** A raw POST to the listening server, given up after `ms` (a hung answer fails the test, not the run). */
async function post(body: unknown, ms = 3000) {
  const res = await fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${pro.token}`, accept: MCP_ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  })
  return { status: res.status, body: (await res.text()) || null }
}

const cancel = (requestId: string | number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'changed my mind' },
})

/** The JSON-RPC error a client call was answered with. */
async function rpcError(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(McpError)
  return error as McpError
}

describe('batches (JSON-RPC 2.0 section 6)', () => {
  test('a batch is answered with an array, even when one request is in it; a lone message with a lone object', async () => {
    for (const [body, ids] of [
      [[rpc('ping', {}, 1)], [1]],
      [[rpc('no/such/method', {}, 'm')], ['m']],
      [[{ jsonrpc: '2.0', method: 'notifications/initialized' }, rpc('tools/list', {}, 0)], [0]],
      [
        [rpc('ping', {}, 1), rpc('ping', {}, 2)],
        [1, 2],
      ],
    ] as [unknown[], (string | number)[]][]) {
      const answer = await post(body)
      expect(answer.status).toBe(200)
      const parsed = JSON.parse(answer.body!)
      expect({ body, isArray: Array.isArray(parsed) }).toEqual({ body, isArray: true })
      expect((parsed as { id: string | number }[]).map((a) => a.id)).toEqual(ids)
    }
    expect(JSON.parse((await post(rpc('ping', {}, 9))).body!)).toEqual({ jsonrpc: '2.0', id: 9, result: {} })
    expect(await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }])).toEqual({ status: 202, body: null })
  })
})

describe('list cursors', () => {
  const promptsCursor = async () => {
    const first = await pro.client.listPrompts()
    expect(first.nextCursor).toEqual(expect.any(String))
    return first.nextCursor!
  }

  test('tools/list and resources/templates/list hand out no cursor, so any cursor is invalid params (-32602), as on the other lists', async () => {
    expect((await pro.client.listTools()).nextCursor).toBeUndefined()
    expect((await pro.client.listResourceTemplates()).nextCursor).toBeUndefined()
    for (const cursor of ['garbage', '', await promptsCursor()]) {
      for (const call of [
        () => pro.client.listTools({ cursor }),
        () => pro.client.listResourceTemplates({ cursor }),
        () => starter.client.listTools({ cursor }),
      ]) {
        const error = await rpcError(call())
        expect({ cursor, code: error.code, data: error.data }).toEqual({
          cursor,
          code: ErrorCode.InvalidParams,
          data: expect.objectContaining({ code: 'validation_failed', errors: [{ path: '/cursor', message: expect.any(String) }] }),
        })
      }
    }
  })

  test('a cursor of one list is refused by the others: prompts/list’s by resources/list, resources/list’s by prompts/list', async () => {
    const fromPrompts = await promptsCursor()
    expect((await rpcError(pro.client.listResources({ cursor: fromPrompts }))).code).toBe(ErrorCode.InvalidParams)
    // resources/list hands out base64url offsets: the shape of its cursor for the 100th skill
    const fromResources = Buffer.from('100').toString('base64url')
    expect((await rpcError(pro.client.listPrompts({ cursor: fromResources }))).code).toBe(ErrorCode.InvalidParams)
    // and the walk itself still works: the second page of prompts/list follows its cursor
    const second = await pro.client.listPrompts({ cursor: fromPrompts })
    expect(second.prompts.length).toBeGreaterThan(0)
  })
})

describe('every answer fits the schemas tools/list declares', () => {
  test('input and output schemas are valid JSON Schema 2020-12 (MCP’s default dialect), even to a strict validator', async () => {
    const { tools } = await pro.client.listTools()
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    addFormats(ajv)
    for (const tool of tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        expect({ tool: tool.name, compiles: (() => typeof ajv.compile(schema!))() }).toEqual({ tool: tool.name, compiles: 'function' })
      }
    }
  })

  test('structuredContent validates against the outputSchema for every kind of answer; refusals carry none that does not', async () => {
    const { tools } = await pro.client.listTools()
    await starter.client.listTools()
    const validator = new AjvJsonSchemaValidator()
    const outputs = new Map(tools.map((tool) => [tool.name, validator.getValidator(tool.outputSchema!)]))
    const inputs = new Map(tools.map((tool) => [tool.name, validator.getValidator(tool.inputSchema)]))
    const cases: [Client, string, Record<string, unknown>][] = [
      [pro.client, 'search_prompts', { query: 'zzzqqqxx' }],
      [pro.client, 'search_prompts', { query: 'email', limit: 100 }],
      [pro.client, 'search_prompts', { query: 'review', category: 'coding', tag: 'code-review' }],
      [pro.client, 'get_prompt', { id: WELCOME, arguments: { product: 'Acme', format: 'table' } }],
      [pro.client, 'get_prompt', { id: REVIEW, arguments: { diff: 'x' } }],
      [pro.client, 'get_prompt', { id: 'bbbbbbbb-0000-4000-8000-000000000007', arguments: { topic: 'x', form: 'list' } }],
      [pro.client, 'list_categories', {}],
      [pro.client, 'search_skills', { query: 'pdf' }],
      [pro.client, 'search_skills', { query: 'zzzqqqxx' }],
      [pro.client, 'get_skill', { id: 'pdf-tools' }],
      [pro.client, 'get_skill', { id: 'loose-rules' }],
      [pro.client, 'get_skill', { id: 'release-notes' }],
      [pro.client, 'optimize_prompt', { prompt: 'write a poem about the sea', mode: 'enhance' }],
      [starter.client, 'optimize_prompt', { prompt: 'write a poem', mode: 'model-specific', target_model: 'gpt-4o' }],
      [pro.client, 'list_favorites', {}],
      [pro.client, 'add_favorite', { prompt_id: WELCOME }],
      [pro.client, 'add_favorite', { prompt_id: WELCOME.toUpperCase() }],
      [pro.client, 'list_favorites', { limit: 1 }],
      [pro.client, 'list_favorites', { offset: 50 }],
      [pro.client, 'remove_favorite', { prompt_id: WELCOME }],
      // refusals
      [starter.client, 'get_skill', { id: 'pdf-tools' }],
      [pro.client, 'get_skill', { id: 'no-such-skill' }],
      [pro.client, 'get_prompt', { id: WELCOME }],
      [pro.client, 'remove_favorite', { prompt_id: WELCOME }],
      [pro.client, 'search_prompts', { query: 'x', limit: 101 }],
      [pro.client, 'optimize_prompt', { prompt: 'x', mode: 'poetic' }],
    ]
    let answered = 0
    let refused = 0
    for (const [client, name, args] of cases) {
      // the SDK's Client checks structuredContent itself once it has listed the tools: a mismatch throws here
      const result = await client.callTool({ name, arguments: args })
      const label = `${name} ${JSON.stringify(args)}`
      if (result.isError) {
        refused++
        toolProblem(result)
        if (result.structuredContent !== undefined)
          expect({ label, valid: outputs.get(name)!(result.structuredContent).valid }).toEqual({ label, valid: true })
        continue
      }
      answered++
      expect({ label, valid: inputs.get(name)!(args).errorMessage }).toEqual({ label, valid: undefined })
      expect({ label, output: outputs.get(name)!(result.structuredContent).errorMessage }).toEqual({ label, output: undefined })
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent)
    }
    expect({ answered, refused }).toEqual({ answered: 20, refused: 6 })
  })
})

describe('tool answers are the REST answers (both engines)', () => {
  test('a skill with metadata and files, a skill search, an empty search, favorites paged past their end', async () => {
    const call = async (name: string, args: Record<string, unknown>) => (await pro.client.callTool({ name, arguments: args })).structuredContent
    const rest = async (path: string) => json(await t.request(path, { token: pro.token }))

    const skill = await rest('/api/skills/pdf-tools')
    expect(skill.files.length).toBeGreaterThan(0)
    expect(skill.metadata).toEqual(expect.objectContaining({ version: '1.2' }))
    expect(await call('get_skill', { id: 'pdf-tools' })).toEqual(skill)
    expect(await call('get_skill', { id: 'loose-rules' })).toEqual(await rest('/api/skills/loose-rules'))

    const skills = await rest('/api/skills/search?q=pdf&limit=5')
    expect(skills.total).toBeGreaterThan(0)
    expect(await call('search_skills', { query: 'pdf', limit: 5 })).toEqual({ items: skills.items, total: skills.total })

    const none = await rest('/api/search?q=zzzqqqxx')
    expect(await call('search_prompts', { query: 'zzzqqqxx' })).toEqual({ items: none.items, total: none.total })
    expect(none.total).toBe(0)

    await call('add_favorite', { prompt_id: REVIEW })
    const past = await rest('/api/user/favorites?limit=5&offset=10')
    expect(await call('list_favorites', { limit: 5, offset: 10 })).toEqual({ items: past.items, total: past.total })
    expect(past).toMatchObject({ items: [], total: 1 })
    await call('remove_favorite', { prompt_id: REVIEW })
  })
})

// Last: before the fix, these batches held their admission turns for ever and every later request of the file waited.
describe('a batch that cancels one of its own requests', () => {
  test('is answered: every request of the batch gets its answer (the cancellation came too early to stop anything)', async () => {
    const ping = await post([rpc('ping', {}, 1), cancel(1)])
    expect(ping.status).toBe(200)
    // (an array or, before batches were always answered with one, a lone object: not what this test is about)
    const answersOf = (body: string | null) =>
      [JSON.parse(body!)].flat() as { jsonrpc?: string; id: unknown; result?: { structuredContent?: unknown } }[]
    expect(answersOf(ping.body)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])

    const call = await post([rpc('tools/call', { name: 'list_categories', arguments: {} }, 'c'), rpc('ping', {}, 2), cancel('c')])
    expect(call.status).toBe(200)
    const answers = answersOf(call.body)
    expect(answers.map((a) => a.id).sort()).toEqual([2, 'c'])
    expect(answers.find((a) => a.id === 'c')!.result!.structuredContent).toEqual(await json(await t.request('/api/categories')))

    // A cancellation naming another id (a call of an earlier POST) leaves the batch alone, as before.
    expect(answersOf((await post([rpc('ping', {}, 3), cancel(4), cancel('3')])).body)).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }])
  })

  test(`${MCP_CONCURRENCY} such batches at once take no turn for good: the endpoint still answers everyone`, async () => {
    const { admission } = t.services.mcp
    const batches = await Promise.allSettled(Array.from({ length: MCP_CONCURRENCY }, (_, i) => post([rpc('ping', {}, i), cancel(i)], 2000)))
    expect(batches.map((b) => b.status)).toEqual(Array(MCP_CONCURRENCY).fill('fulfilled'))
    expect(admission.running).toBe(0)
    expect(await pro.client.ping()).toEqual({})
  })
})

test('nothing of this file was logged as an error', () => {
  expect(t.log.lines().filter((l) => l.level === 'error')).toEqual([])
})
