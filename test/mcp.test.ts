// POST /api/mcp driven by the SDK's own Client over Streamable HTTP against a listening server
// (contract section 12): the handshake, the nine tools beside their REST routes, prompts and
// skills as resources, and how refusals come back.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { parse as parseYaml } from 'yaml'
import { json, makeTestApp, register, setTier, tempDir } from './support/app'
import { importRecords, loadTestCatalogue } from './support/catalogue'
import { listen, mcpClient, rawMcp, rpc, toolProblem, toolText } from './support/mcp'

const t = await makeTestApp()
await loadTestCatalogue(t)
const server = listen(t)
const clients: Client[] = []
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  server.stop()
})

const WELCOME = '11111111-1111-4111-8111-111111111111'
const REVIEW = '33333333-3333-4333-8333-333333333333'

async function userOf(tier: 'free' | 'starter' | 'pro' | 'lifetime') {
  const registered = await register(t)
  await setTier(t, registered.user.id, tier)
  return registered
}

async function connect(token: string) {
  const client = await mcpClient(server.url, token)
  clients.push(client)
  return client
}

async function patOf(jwt: string): Promise<string> {
  const res = await t.request('/api/user/tokens', { method: 'POST', token: jwt, json: { name: 'mcp' } })
  expect(res.status).toBe(201)
  return (await json(res)).token
}

/** The JSON-RPC error a client call was answered with. */
async function rpcError(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(McpError)
  return error as McpError
}

const starter = await userOf('starter')
const pro = await userOf('pro')
const starterClient = await connect(await patOf(starter.token))
const proClient = await connect(pro.token)

describe('the handshake', () => {
  test('a personal access token and a JWT both connect; the server names itself, its capabilities and what it offers', async () => {
    expect(starterClient.getServerVersion()).toMatchObject({ name: 'promptlib', version: expect.stringMatching(/^\d+\.\d+\.\d+/) })
    expect(proClient.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} })
    expect(proClient.getInstructions()).toContain('search_prompts')
    expect(await proClient.ping()).toEqual({})
  })

  test('no session: no Mcp-Session-Id is handed out, and every message stands on its own', async () => {
    const res = await rawMcp(t, rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }), {
      token: pro.token,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    // A tools/call with no initialize before it, as a load balancer may route it to a fresh instance.
    const call = await rawMcp(t, rpc('tools/call', { name: 'list_categories', arguments: {} }), { token: pro.token })
    expect(call.status).toBe(200)
    expect((await json(call)).result.structuredContent.items.length).toBeGreaterThan(0)
  })

  test('every protocol version of the SDK is accepted: an older client gets its own version back', async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await rawMcp(t, rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } }), {
        token: pro.token,
      })
      expect((await json(res)).result.protocolVersion).toBe(version)
    }
  })
})

describe('tools/list', () => {
  test('the nine tools, each with input and output schemas and annotations', async () => {
    const { tools } = await starterClient.listTools()
    expect(tools.map((tool) => tool.name)).toEqual([
      'search_prompts',
      'get_prompt',
      'list_categories',
      'search_skills',
      'get_skill',
      'optimize_prompt',
      'list_favorites',
      'add_favorite',
      'remove_favorite',
    ])
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type).toBe('object')
      expect(tool.description!.length).toBeGreaterThan(20)
    }
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
    for (const name of ['search_prompts', 'get_prompt', 'list_categories', 'search_skills', 'get_skill', 'list_favorites']) {
      expect(hints[name]).toMatchObject({ readOnlyHint: true })
    }
    for (const name of ['optimize_prompt', 'add_favorite', 'remove_favorite']) expect(hints[name]?.readOnlyHint).toBe(false)
    expect(hints.remove_favorite).toMatchObject({ destructiveHint: true })
    expect(hints.add_favorite).toMatchObject({ destructiveHint: false })
    expect(tools.find((tool) => tool.name === 'search_prompts')!.inputSchema).toMatchObject({ required: ['query'], additionalProperties: false })
  })
})

describe('catalogue tools answer what the REST routes answer', () => {
  test('search_prompts: the items and total of GET /api/search, as structuredContent and the same JSON as text', async () => {
    const result = await starterClient.callTool({ name: 'search_prompts', arguments: { query: 'email', limit: 5 } })
    const rest = await json(await t.request('/api/search?q=email&limit=5'))
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ items: rest.items, total: rest.total })
    expect(JSON.parse(toolText(result))).toEqual(result.structuredContent)
    expect(rest.items.length).toBeGreaterThan(0)

    const filtered = await starterClient.callTool({ name: 'search_prompts', arguments: { query: 'review', category: 'coding', tag: 'code-review' } })
    const restFiltered = await json(await t.request('/api/search?q=review&category=coding&tag=code-review'))
    expect(filtered.structuredContent).toEqual({ items: restFiltered.items, total: restFiltered.total })
  })

  test('list_categories: the items of GET /api/categories', async () => {
    const result = await starterClient.callTool({ name: 'list_categories', arguments: {} })
    expect(result.structuredContent).toEqual(await json(await t.request('/api/categories')))
  })

  test('get_prompt: the prompt with its variables, and `text` filled from the arguments, else the defaults', async () => {
    const result = await starterClient.callTool({ name: 'get_prompt', arguments: { id: WELCOME, arguments: { product: 'Acme', format: 'table' } } })
    const rest = await json(await t.request(`/api/prompts/${WELCOME}`, { token: starter.token }))
    expect(result.structuredContent).toEqual({
      id: WELCOME,
      title: rest.title,
      content: rest.content,
      variables: rest.variables,
      text: 'Write a welcome email for Acme in a friendly tone, formatted as table. Mention Acme twice.',
    })
  })

  test('get_prompt counts as a prompt view, as GET /api/prompts/{id} does; a refused call counts nothing', async () => {
    const user = await userOf('starter')
    const client = await connect(await patOf(user.token))
    const viewsToday = async () => (await json(await t.request('/api/user/me', { token: user.token }))).usage.prompts_today
    expect(await viewsToday()).toBe(0)
    await client.callTool({ name: 'get_prompt', arguments: { id: REVIEW, arguments: { diff: 'x' } } })
    expect(await viewsToday()).toBe(1)
    // re-opening the same prompt that day is free, like the REST route
    await client.callTool({ name: 'get_prompt', arguments: { id: REVIEW, arguments: { diff: 'y' } } })
    expect(await viewsToday()).toBe(1)
    toolProblem(await client.callTool({ name: 'get_prompt', arguments: { id: WELCOME } }))
    expect(await viewsToday()).toBe(1)
  })

  test('get_prompt refusals: a missing variable, a value outside its options, an unknown variable, an unknown prompt', async () => {
    const missing = toolProblem(await starterClient.callTool({ name: 'get_prompt', arguments: { id: WELCOME, arguments: { format: 'list' } } }))
    expect(missing).toMatchObject({ code: 'validation_failed', status: 422, errors: [{ path: '/arguments/product' }] })
    const outside = toolProblem(
      await starterClient.callTool({ name: 'get_prompt', arguments: { id: WELCOME, arguments: { product: 'A', format: 'chart' } } }),
    )
    expect(outside.errors).toEqual([{ path: '/arguments/format', message: '"format" must be one of: list, table' }])
    const unknown = toolProblem(
      await starterClient.callTool({ name: 'get_prompt', arguments: { id: REVIEW, arguments: { diff: 'x', dif: 'typo' } } }),
    )
    expect(unknown.errors).toEqual([{ path: '/arguments/dif', message: '"dif" is not a variable of this prompt' }])
    const absent = await starterClient.callTool({ name: 'get_prompt', arguments: { id: '99999999-9999-4999-8999-999999999999' } })
    expect(toolText(absent)).toStartWith('not_found: ')
    expect(toolProblem(absent)).toMatchObject({ code: 'not_found', status: 404 })
  })
})

describe('skills: pro and up', () => {
  test('search_skills and get_skill answer what GET /api/skills/search and /api/skills/{id} answer', async () => {
    const search = await proClient.callTool({ name: 'search_skills', arguments: { query: 'release', limit: 3 } })
    const rest = await json(await t.request('/api/skills/search?q=release&limit=3', { token: pro.token }))
    expect(search.structuredContent).toEqual({ items: rest.items, total: rest.total })
    expect(rest.total).toBeGreaterThan(0)
    const skill = await proClient.callTool({ name: 'get_skill', arguments: { id: 'release-notes' } })
    expect(skill.structuredContent).toEqual(await json(await t.request('/api/skills/release-notes', { token: pro.token })))
  })

  test('below pro: a tool error naming upgrade_required and the tier needed', async () => {
    for (const call of [
      { name: 'search_skills', arguments: { query: 'release' } },
      { name: 'get_skill', arguments: { id: 'release-notes' } },
    ]) {
      const result = await starterClient.callTool(call)
      expect(toolText(result)).toStartWith('upgrade_required: ')
      expect(toolProblem(result)).toMatchObject({ code: 'upgrade_required', status: 403, required_tier: 'pro' })
    }
    expect(toolProblem(await proClient.callTool({ name: 'get_skill', arguments: { id: 'no-such-skill' } })).code).toBe('not_found')
  })

  test('resources: each skill’s SKILL.md as skill://{id}/SKILL.md, its front matter and instructions', async () => {
    const { resources } = await proClient.listResources()
    const restList = await json(await t.request('/api/skills?limit=100', { token: pro.token }))
    expect(resources.map((r) => r.uri)).toEqual(restList.items.map((s: { id: string }) => `skill://${s.id}/SKILL.md`))
    expect(resources[0]).toMatchObject({ mimeType: 'text/markdown', name: restList.items[0].id })
    const { resourceTemplates } = await proClient.listResourceTemplates()
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['skill://{id}/SKILL.md'])

    const { contents } = await proClient.readResource({ uri: 'skill://release-notes/SKILL.md' })
    const text = (contents[0] as { text: string }).text
    const [, front, body] = text.match(/^---\n([\s\S]*?)---\n([\s\S]*)$/)!
    expect(parseYaml(front!)).toEqual({
      name: 'release-notes',
      description: 'Writes release notes from merged pull requests. Use when preparing a release.',
      license: 'MIT',
      'allowed-tools': 'Read Bash(git log:*)',
      metadata: { category: 'coding', tags: 'releases' },
    })
    expect(body).toBe('# Release notes\n\nCollect merged pull requests and group them by theme.')
  })

  test('a SKILL.md read as a resource, imported again, gives the same skill (every skill of the catalogue)', async () => {
    const { resources } = await proClient.listResources()
    const dir = tempDir()
    for (const resource of resources) {
      const { contents } = await proClient.readResource({ uri: resource.uri })
      mkdirSync(join(dir, resource.name))
      writeFileSync(join(dir, resource.name, 'SKILL.md'), (contents[0] as { text: string }).text)
    }
    const other = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const reports = await other.services.catalogue.importPaths([dir])
    expect(reports.flatMap((r) => r.errors)).toEqual([])
    const KEPT = ['name', 'description', 'category', 'tags', 'license', 'compatibility', 'allowed_tools', 'metadata', 'instructions']
    const fields = (skill: Record<string, unknown>) => Object.fromEntries(KEPT.map((key) => [key, skill[key]]))
    for (const resource of resources) {
      expect(fields(await other.services.skills.get(resource.name))).toEqual(fields(await t.services.skills.get(resource.name)))
    }
    expect(resources.length).toBeGreaterThan(5)
    // Into the catalogue it was read from: the same skills, nothing written (metadata included,
    // where the category and tags the SKILL.md carries in it were stored as metadata too).
    const again = await t.services.catalogue.importPaths([dir])
    expect(again.map((r) => [r.created, r.updated, r.failed])).toEqual(again.map(() => [0, 0, 0]))
  })

  test('resources below pro: empty lists, and a read refused with upgrade_required; an unknown skill is resource-not-found', async () => {
    expect((await starterClient.listResources()).resources).toEqual([])
    expect((await starterClient.listResourceTemplates()).resourceTemplates).toEqual([])
    const refused = await rpcError(starterClient.readResource({ uri: 'skill://release-notes/SKILL.md' }))
    expect(refused.code).toBe(-32003)
    expect(refused.data).toMatchObject({ code: 'upgrade_required', required_tier: 'pro' })
    expect((await rpcError(proClient.readResource({ uri: 'skill://no-such-skill/SKILL.md' }))).code).toBe(-32002)
    expect((await rpcError(proClient.readResource({ uri: 'https://example.com/SKILL.md' }))).code).toBe(-32002)
  })
})

describe('favorites', () => {
  test('add, list and remove, as the REST routes do; the same favorites either way', async () => {
    const user = await userOf('starter')
    const client = await connect(await patOf(user.token))
    const added = await client.callTool({ name: 'add_favorite', arguments: { prompt_id: WELCOME } })
    expect(added.structuredContent).toEqual({ prompt_id: WELCOME, created_at: expect.any(String) })
    const again = await client.callTool({ name: 'add_favorite', arguments: { prompt_id: WELCOME } })
    expect(again.structuredContent).toEqual(added.structuredContent)
    await t.request('/api/user/favorites', { method: 'POST', token: user.token, json: { prompt_id: REVIEW } })

    const listed = await client.callTool({ name: 'list_favorites', arguments: { limit: 10 } })
    const rest = await json(await t.request('/api/user/favorites?limit=10', { token: user.token }))
    expect(listed.structuredContent).toEqual({ items: rest.items, total: 2 })

    expect((await client.callTool({ name: 'remove_favorite', arguments: { prompt_id: WELCOME } })).structuredContent).toEqual({ removed: true })
    expect(toolProblem(await client.callTool({ name: 'remove_favorite', arguments: { prompt_id: WELCOME } })).code).toBe('not_found')
    expect(toolProblem(await client.callTool({ name: 'add_favorite', arguments: { prompt_id: '99999999-9999-4999-8999-999999999999' } })).code).toBe(
      'not_found',
    )
    expect((await json(await t.request('/api/user/favorites', { token: user.token }))).total).toBe(1)
  })
})

describe('what a client gets wrong', () => {
  test('an unknown tool is a JSON-RPC error (invalid params), not a tool result', async () => {
    const error = await rpcError(starterClient.callTool({ name: 'delete_everything', arguments: {} }))
    expect(error.code).toBe(ErrorCode.InvalidParams)
    expect(error.message).toContain('Unknown tool: delete_everything')
  })

  test('arguments of the wrong type or shape: a tool error naming validation_failed and each path', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['search_prompts', { query: 5 }, '/query'],
      ['search_prompts', { query: 'x', limit: '5' }, '/limit'],
      ['search_prompts', { query: 'x', limit: 101 }, '/limit'],
      ['search_prompts', { query: 'x', page: 2 }, '/page'],
      ['search_prompts', {}, '/query'],
      ['search_prompts', { query: '   ' }, '/query'],
      ['get_prompt', { id: 'not-a-uuid' }, '/id'],
      ['get_prompt', { id: WELCOME, arguments: { product: 7 } }, '/arguments/product'],
      ['list_favorites', { offset: -1 }, '/offset'],
      ['optimize_prompt', { prompt: 'hello', mode: 'poetic' }, '/mode'],
      ['optimize_prompt', { prompt: '', mode: 'enhance' }, '/prompt'],
      ['add_favorite', { prompt_id: null }, '/prompt_id'],
    ]
    for (const [name, args, path] of cases) {
      const result = await starterClient.callTool({ name, arguments: args })
      const problem = toolProblem(result)
      expect({ name, args, code: problem.code, paths: problem.errors.map((e: { path: string }) => e.path) }).toEqual({
        name,
        args,
        code: 'validation_failed',
        paths: expect.arrayContaining([path]),
      })
    }
  })
})

describe('prompts', () => {
  test('prompts/get: one user message, the variables filled from the arguments, else their defaults', async () => {
    const result = await starterClient.getPrompt({ name: WELCOME, arguments: { product: 'Acme', format: 'list' } })
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write a welcome email for Acme in a friendly tone, formatted as list. Mention Acme twice.' } },
    ])
    expect(result.description).toBe('Welcome email sequence')
  })

  test('prompts/get refusals are invalid params: a missing variable, a value outside the options, an unknown prompt', async () => {
    const missing = await rpcError(starterClient.getPrompt({ name: WELCOME, arguments: { format: 'list' } }))
    expect(missing.code).toBe(ErrorCode.InvalidParams)
    expect(missing.data).toMatchObject({ code: 'validation_failed', errors: [{ path: '/arguments/product' }] })
    const outside = await rpcError(starterClient.getPrompt({ name: WELCOME, arguments: { product: 'A', format: 'chart' } }))
    expect(outside.code).toBe(ErrorCode.InvalidParams)
    for (const name of ['99999999-9999-4999-8999-999999999999', 'not a uuid']) {
      expect((await rpcError(starterClient.getPrompt({ name }))).code).toBe(ErrorCode.InvalidParams)
    }
  })

  test('prompts/list: every prompt once, newest first, page by page; a prompt’s variables are its arguments', async () => {
    // 130 more prompts, so the walk spans pages (100 a page); pairs share a creation time, so the
    // order within equal times is covered too.
    await importRecords(t, {
      categories: [{ id: 'walk', name: 'Walk', description: '', icon: '🚶', subcategories: [] }],
      prompts: Array.from({ length: 130 }, (_, i) => ({
        id: `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Walk prompt ${i}`,
        description: '',
        category: 'walk',
        content: `Prompt ${i} about {{topic}} in {{tone:plain}} style`,
        created_at: new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 2) * 60_000).toISOString(),
      })),
    })
    const seen: { name: string; title?: string; arguments?: unknown }[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await starterClient.listPrompts(cursor === undefined ? {} : { cursor })
      seen.push(...page.prompts)
      cursor = page.nextCursor
      pages++
    } while (cursor !== undefined)
    const total = (await json(await t.request('/api/categories'))).items.reduce((n: number, c: { prompt_count: number }) => n + c.prompt_count, 0)
    expect(pages).toBe(Math.ceil(total / 100))
    expect(seen.length).toBe(total)
    expect(new Set(seen.map((p) => p.name)).size).toBe(total)
    // newest first: every listed prompt's created_at is at most its predecessor's
    const created = await Promise.all(seen.map(async (p) => (await t.services.catalogue.prompt(p.name))!.created_at))
    for (let i = 1; i < created.length; i++) expect(created[i]! <= created[i - 1]!).toBe(true)

    const welcome = seen.find((p) => p.name === WELCOME)!
    expect(welcome).toMatchObject({
      title: 'Welcome email sequence',
      description: 'Three onboarding emails.',
      arguments: [
        { name: 'product', required: true },
        { name: 'tone', description: 'default: friendly', required: false },
        { name: 'format', description: 'one of: list, table', required: true },
      ],
    })
  })

  test('prompts/list with a cursor the server never handed out: invalid params', async () => {
    for (const cursor of ['nonsense', Buffer.from('1.2.3').toString('base64url'), 'x'.repeat(500)]) {
      expect((await rpcError(starterClient.listPrompts({ cursor }))).code).toBe(ErrorCode.InvalidParams)
    }
  })
})
