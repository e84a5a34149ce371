// Skills: pro and lifetime only; list, detail, search; "search" is never a skill id (contract section 5).
import { beforeAll, describe, expect, test } from 'bun:test'
import { json, makeTestApp, problem, register } from './support/app'
import { loadTestCatalogue, setTier } from './support/catalogue'

const t = await makeTestApp()
let pro = ''
let lifetime = ''
let free = ''
let starter = ''

beforeAll(async () => {
  await loadTestCatalogue(t)
  for (const [tier, set] of [
    ['pro', (v: string) => (pro = v)],
    ['lifetime', (v: string) => (lifetime = v)],
    ['free', (v: string) => (free = v)],
    ['starter', (v: string) => (starter = v)],
  ] as const) {
    const { token, user } = await register(t)
    await setTier(t, user.id, tier)
    set(token)
  }
})

const get = (path: string, token = pro) => t.request(path, { token })

describe('access', async () => {
  test('no token → 401; free and starter → 403 upgrade_required (pro); pro and lifetime → 200', async () => {
    for (const path of ['/api/skills', '/api/skills/search?q=review', '/api/skills/code-review']) {
      await problem(await t.request(path), 401, 'missing_token')
      for (const token of [free, starter]) {
        const body = await problem(await get(path, token), 403, 'upgrade_required')
        expect(body.required_tier).toBe('pro')
      }
      expect((await get(path, pro)).status).toBe(200)
      expect((await get(path, lifetime)).status).toBe(200)
    }
  })
})

describe('GET /api/skills', async () => {
  test('paginated, by name, with the documented fields: each item the whole skill, instructions included (contract section 5)', async () => {
    const body = await json(await get('/api/skills?limit=3'))
    expect(body).toMatchObject({ limit: 3, offset: 0 })
    expect(body.total).toBeGreaterThanOrEqual(9)
    const names = body.items.map((s: { name: string }) => s.name)
    expect(names).toEqual([...names].sort())
    expect(Object.keys(body.items[0]).sort()).toEqual([
      'allowed_tools',
      'category',
      'compatibility',
      'description',
      'files',
      'id',
      'instructions',
      'license',
      'metadata',
      'name',
      'tags',
      'updated_at',
    ])
    // The same skill as its own page answers it.
    expect(body.items[0]).toEqual(await json(await get(`/api/skills/${body.items[0].id}`)))
    const found = await json(await get(`/api/skills/search?q=${encodeURIComponent(body.items[0].name)}`))
    const { snippet, ...hit } = found.items.find((s: { id: string }) => s.id === body.items[0].id)
    expect(typeof snippet).toBe('string')
    expect(hit).toEqual(body.items[0])
  })

  test('category and tag filters', async () => {
    const coding = await json(await get('/api/skills?category=coding&limit=100'))
    expect(coding.items.length).toBeGreaterThan(0)
    for (const s of coding.items) expect(s.category).toBe('coding')
    const tagged = await json(await get('/api/skills?tag=releases'))
    expect(tagged.items.map((s: { id: string }) => s.id)).toEqual(['release-notes'])
    expect((await json(await get('/api/skills?tag=%3Cscript%3E'))).total).toBe(0)
  })

  test('bad paging or filters → 422', async () => {
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=x', 'category=Not%20A%20Slug']) {
      await problem(await get(`/api/skills?${q}`), 422, 'validation_failed')
    }
  })
})

describe('GET /api/skills/{id}', async () => {
  test('the skill with its instructions', async () => {
    const body = await json(await get('/api/skills/release-notes'))
    expect(body).toMatchObject({
      id: 'release-notes',
      name: 'release-notes',
      category: 'coding',
      tags: ['releases'],
      license: 'MIT',
      allowed_tools: ['Read', 'Bash(git log:*)'],
      files: [],
      instructions: expect.stringContaining('# Release notes'),
    })
    expect(body.updated_at).toMatch(/Z$/)
  })

  test('unknown or hostile → 404; absurd length → 422', async () => {
    for (const id of ['nope', "x' OR '1'='1", '<script>', '🙂', 'SEARCH']) {
      await problem(await get(`/api/skills/${encodeURIComponent(id)}`), 404, 'not_found')
    }
    await problem(await get(`/api/skills/${'a'.repeat(201)}`), 422, 'validation_failed')
  })
})

describe('GET /api/skills/search', async () => {
  test('is the search endpoint, never the skill "search" (which no import may create)', async () => {
    await problem(await get('/api/skills/search'), 422, 'validation_failed')
    const report = await t.services.catalogue.importCatalogueData(
      {
        format: 'promptlib-catalogue',
        version: 1,
        skills: [{ name: 'search', description: 'A skill that would shadow the endpoint.', instructions: 'x' }],
      },
      { file: 'x' },
    )
    expect(report.errors[0]!.message).toContain('reserved')
  })

  test('ranked hits with an escaped, highlighted snippet', async () => {
    const body = await json(await get('/api/skills/search?q=release%20not'))
    expect(body.items[0].id).toBe('release-notes')
    expect(body.items[0].snippet).toContain('<mark>')
    expect(body.total).toBeGreaterThanOrEqual(1)
    const filtered = await json(await get('/api/skills/search?q=release&category=marketing'))
    for (const s of filtered.items) expect(s.category).toBe('marketing')
  })

  test('hostile queries are text; empty → 422', async () => {
    for (const q of ['"', 'NEAR(', ')', '*', 'a OR', "'; DROP TABLE skills;--", '🦓', 'x'.repeat(5000), '-^:']) {
      expect((await get(`/api/skills/search?q=${encodeURIComponent(q)}`)).status).toBe(200)
    }
    for (const q of ['q=', 'q=%20', 'q=a&limit=0']) await problem(await get(`/api/skills/search?${q}`), 422, 'validation_failed')
  })
})
