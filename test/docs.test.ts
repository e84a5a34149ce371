// /api/health, the OpenAPI document generated from the route schemas, offline docs, and the
// documentation that ships in the repository.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { json, makeTestApp, register, setTier } from './support/app'
import { rawMcp, rpc } from './support/mcp'

const t = await makeTestApp()

describe('GET /api/health', async () => {
  test('status, version and database', async () => {
    const res = await t.request('/api/health')
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/), db: 'ok' })
  })

  test('503 when the database is unusable', async () => {
    const broken = await makeTestApp()
    await broken.storage.close()
    const res = await broken.request('/api/health')
    expect(res.status).toBe(503)
    expect(await json(res)).toMatchObject({ status: 'error', db: 'error' })
  })
})

describe('OpenAPI', async () => {
  test('a 3.1 document with every route, request and response schemas, and the bearer scheme', async () => {
    const res = await t.request('/api/openapi.json')
    expect(res.status).toBe(200)
    const doc = await json(res)
    expect(doc.openapi).toStartWith('3.1')
    expect(doc.info.title).toBe('promptlib API')
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    for (const [path, method] of [
      ['/api/auth/register', 'post'],
      ['/api/auth/login', 'post'],
      ['/api/user/me', 'get'],
      ['/api/user/me', 'delete'],
      ['/api/user/password', 'post'],
      ['/api/health', 'get'],
    ] as const) {
      const op = doc.paths[path]?.[method]
      expect(op, `${method} ${path}`).toBeDefined()
      expect(Object.keys(op.responses).length).toBeGreaterThan(0)
    }
    const register = doc.paths['/api/auth/register'].post
    expect(register.requestBody.content['application/json'].schema.required).toEqual(['email', 'password', 'name'])
    expect(register.responses['201']).toBeDefined()
    expect(register.responses['409']).toBeDefined()
    expect(doc.paths['/api/docs']).toBeUndefined()
    // A free user's PAT is refused (403 api_access_required) wherever a PAT is accepted.
    expect(doc.paths['/api/optimizer/optimize'].post.responses['403']).toBeDefined()
    expect(doc.paths['/api/prompts/{prompt_id}'].get.responses['403']).toBeDefined()
  })

  // Found by checking every response against the document: the generator files every schema under
  // application/json, writes a 204's "no body" as a media type named "type", and offers a query
  // integer's string form without its range.
  test('what the generator cannot say: problem+json errors, bodiless 204s, query integers with their range, the contract’s headers', async () => {
    const doc = (await json(await t.request('/api/openapi.json'))) as { paths: Record<string, Record<string, any>> }
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: `${method} ${path}`, op })),
    )
    let errors = 0
    for (const { key, op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        // Every problem body is declared as problem+json (a 503 of /api/health is its own JSON).
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, { schema?: { description?: string } }>)) {
          if (!media.schema?.description?.startsWith('RFC 9457')) continue
          errors++
          expect({ key, status, type }).toEqual({ key, status, type: 'application/problem+json' })
        }
        if (status === '204') expect({ key, content: response.content }).toEqual({ key, content: undefined })
        if (status === '401') expect(response.headers?.['WWW-Authenticate']).toBeDefined()
        if (status === '429') expect(response.headers?.['Retry-After']).toBeDefined()
      }
    }
    expect(errors).toBeGreaterThan(100)
    const limit = doc.paths['/api/search']!.get.parameters.find((p: { name: string }) => p.name === 'limit')
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
    expect(doc.paths['/api/prompts/{prompt_id}']!.get.responses['200'].headers).toHaveProperty('RateLimit-Remaining')
    expect(doc.paths['/api/auth/login']!.post.responses['200'].headers).toHaveProperty('Cache-Control')
    expect(doc.paths['/api/payments/webhook']!.post.parameters.map((p: { name: string }) => p.name)).toContain('Stripe-Signature')
    // A user who never paid has provider null: the schema admits it.
    const provider = doc.paths['/api/user/subscription']!.get.responses['200'].content['application/json'].schema.properties.provider
    expect(provider.enum).toContain(null)
    // Limits as the services count them (the routes bound them loosely in UTF-16 units).
    expect(doc.paths['/api/optimizer/optimize']!.post.requestBody.content['application/json'].schema.properties.prompt.maxLength).toBe(20_000)
    expect(doc.paths['/api/auth/register']!.post.requestBody.content['application/json'].schema.properties.email.maxLength).toBe(254)
    // MCP takes batches, and answers them with arrays.
    expect(JSON.stringify(doc.paths['/api/mcp']!.post.requestBody.content['application/json'].schema)).toContain('"array"')
  })

  test('the MCP endpoint is in the document: POST /api/mcp under the mcp tag, its refusals, and docs/mcp.md named', async () => {
    const doc = await json(await t.request('/api/openapi.json'))
    const mcp = doc.paths['/api/mcp']
    expect(Object.keys(mcp)).toEqual(['post'])
    expect(mcp.post.tags).toEqual(['mcp'])
    expect(mcp.post.security).toEqual([{ bearer: [] }])
    expect(Object.keys(mcp.post.responses).sort()).toEqual(['200', '202', '400', '401', '403', '406', '413', '415', '422'])
    expect(mcp.post.description).toContain('docs/mcp.md')
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('mcp')
  })
})

describe('interactive docs', async () => {
  test('the page loads its script from this server, not a CDN', async () => {
    const page = await (await t.request('/api/docs')).text()
    expect(page).toContain('/api/docs/scalar.js')
    expect(page).toContain('/api/openapi.json')
    expect(page).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/)
    const script = await t.request('/api/docs/scalar.js')
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toContain('javascript')
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
  })

  test('the page is framed by no one and sends no Referer (it shares the web app’s origin, and its token)', async () => {
    const res = await t.request('/api/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'")
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // Only the page: the API's JSON answers keep their plain headers.
    expect((await t.request('/api/openapi.json')).headers.get('x-frame-options')).toBeNull()
  })

  // The browser check (docs-browser.test.ts) needs Chromium; this one runs everywhere.
  test('the page turns off what calls Scalar’s cloud: web fonts, Ask AI, MCP, toolbar, hosted client, proxy', async () => {
    const page = await (await t.request('/api/docs')).text()
    const attribute = page.match(/data-configuration='([^']*)'/)?.[1]
    expect(attribute).toBeDefined()
    const config = JSON.parse(attribute!)
    expect(config).toMatchObject({
      withDefaultFonts: false,
      showDeveloperTools: 'never',
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
      telemetry: false,
      proxyUrl: '',
    })
  })
})

describe('documentation in the repository', async () => {
  const root = resolve(import.meta.dir, '..')
  const markdown = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ]

  test('README and docs link only to files inside the repository (a clone has nothing beside it)', () => {
    for (const file of markdown) {
      const text = readFileSync(join(root, file), 'utf8')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue
        const path = resolve(root, dirname(file), target!.split('#')[0]!)
        const where = { file, target }
        expect({ ...where, inside: !relative(root, path).startsWith('..') }).toEqual({ ...where, inside: true })
        expect({ ...where, exists: existsSync(path) }).toEqual({ ...where, exists: true })
      }
    }
  })

  test('docs/api.md names every endpoint the server has', () => {
    const guide = readFileSync(join(root, 'docs/api.md'), 'utf8')
    const undocumented = t.app.routes
      .filter((r) => r.path !== '/api/docs/scalar.js')
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((endpoint) => !guide.includes(endpoint))
    expect(undocumented).toEqual([])
  })

  test('docs/mcp.md configures each client with a token in a header, every snippet is JSON, and it names every tool the server lists', async () => {
    const guide = readFileSync(join(root, 'docs/mcp.md'), 'utf8')
    for (const client of ['## Claude Code', '## Claude Desktop', '## Cursor', '## VS Code']) expect(guide).toContain(client)
    const snippets = [...guide.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!)
    expect(snippets.length).toBeGreaterThanOrEqual(4)
    for (const snippet of snippets) {
      expect(snippet).toContain('/api/mcp')
      expect(JSON.stringify(JSON.parse(snippet))).toMatch(/Authorization.*Bearer/)
    }
    const user = await register(t)
    await setTier(t, user.user.id, 'starter')
    const listed = await json(await rawMcp(t, rpc('tools/list', {}), { token: user.token }))
    const names: string[] = listed.result.tools.map((tool: { name: string }) => tool.name)
    expect(names).toHaveLength(9)
    expect(names.filter((name) => !guide.includes(`| \`${name}\` |`))).toEqual([])
  })
})
