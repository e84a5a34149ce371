// The catalogue's HTTP API under hostile and edge-case input, with answers known in advance, on
// whichever engine the suite runs (the same assertions on SQLite and PostgreSQL): prefix search
// totals, page walks across the head / content-only boundary, odd query text, snippets, odd ids,
// metering at the limit, favorites under concurrency, skills filters (contract section 5 and 6).
import { beforeAll, describe, expect, test } from 'bun:test'
import { json, makeTestApp, problem, register, setTier } from './support/app'
import { countRows, favoriteCount, importRecords, loadTestCatalogue } from './support/catalogue'
import { sqlNumber } from './support/sql'

const t = await makeTestApp({ TRUST_PROXY: 'true' })
const uuid = (n: number) => `eeeeeeee-0000-4000-8000-${String(n).padStart(12, '0')}`
const letters = 'abcdefghijklmnopqrstuvwxyz'
/** 20 prompts whose titles hold 20 different words that all begin with "zorblax". */
const ZORBLAX = Array.from({ length: 20 }, (_, i) => ({
  id: uuid(100 + i),
  title: `The zorblax${letters[i]}${letters[i]} manual`,
  category: 'probe',
  content: 'Nothing else to see.',
}))
/** 4 head matches of "gryphon" (title, description, tags) and 5 content-only ones, added in this order. */
const GRYPHON = [
  { id: uuid(200), title: 'Gryphon keeper', category: 'probe', content: 'x' },
  { id: uuid(201), title: 'Heraldry', description: 'All about the gryphon.', category: 'probe', content: 'x' },
  { id: uuid(202), title: 'Mythic beasts', tags: ['gryphon'], category: 'probe', content: 'x' },
  { id: uuid(203), title: 'Gryphons and gryphon riders', category: 'probe', content: 'x' },
  ...[1, 2, 3, 4, 5].map((n) => ({ id: uuid(210 + n), title: `Stable ${n}`, category: 'probe', content: `feed the gryphon number ${n}` })),
]

beforeAll(async () => {
  await loadTestCatalogue(t)
  await importRecords(t, {
    categories: [{ id: 'probe', name: 'Probe', icon: '🧪', order: 50 }],
    prompts: [...ZORBLAX, ...GRYPHON],
  })
})

const search = async (q: string, extra = '') => {
  const res = await t.request(`/api/search?q=${encodeURIComponent(q)}${extra}`)
  expect({ q: q.slice(0, 40), status: res.status }).toEqual({ q: q.slice(0, 40), status: 200 })
  return json(res)
}
const ids = (body: { items: { id: string }[] }) => body.items.map((p) => p.id)

describe('search: an unfinished last word', () => {
  test('matches every word that begins with it, however many (20 title words: total 20, none left out)', async () => {
    const expected = ZORBLAX.map((p) => p.id).sort()
    for (const q of ['zorbl', 'zorblax', 'the zorblax']) {
      const body = await search(q, '&limit=100')
      expect({ q, total: body.total }).toEqual({ q, total: 20 })
      expect(ids(body).sort()).toEqual(expected)
    }
    // Narrowed by a whole word, the same prefix still finds exactly that prompt.
    expect(ids(await search('zorblaxkk'))).toEqual([uuid(110)])
  })

  test('pages of every size walk all matches once: heads first, then content-only, newest first', async () => {
    for (const q of ['gryphon', 'gryph', 'GRYPHON']) {
      const all = await search(q, '&limit=100')
      expect({ q, total: all.total }).toEqual({ q, total: 9 })
      const order = ids(all)
      expect(order.slice(0, 4).sort()).toEqual(GRYPHON.slice(0, 4).map((p) => p.id))
      expect(order.slice(4)).toEqual([5, 4, 3, 2, 1].map((n) => uuid(210 + n)))
      for (const size of [1, 2, 3, 4, 5, 7, 8]) {
        const walked: string[] = []
        for (let offset = 0; offset < 12; offset += size) {
          const page = await search(q, `&limit=${size}&offset=${offset}`)
          expect(page).toMatchObject({ total: 9, limit: size, offset })
          walked.push(...ids(page))
        }
        expect({ q, size, walked }).toEqual({ q, size, walked: order })
      }
      expect((await search(q, '&offset=9')).items).toEqual([])
      expect((await search(q, '&offset=100&limit=100')).items).toEqual([])
    }
  })
})

describe('search: any text is only text', () => {
  test('syntax, scripts, marks, invisible characters and long queries: 200 with the known answer', async () => {
    const gryphons = 9
    // Each: the query, and how many of the catalogue's prompts it must find.
    const cases: [string, number][] = [
      ['gryphon"', gryphons],
      ['"gryphon" "', gryphons],
      ['gryphon*', gryphons],
      ['^gryphon', gryphons],
      ['title:gryphon', 0], // "title" is a word too, and no gryphon prompt holds it
      ['gryphon:', gryphons],
      ['{title description}: gryphon', 0],
      ['NEAR(gryphon feed, 2)', 0],
      ['gryphon AND feed', 5], // "and" and "not" are stop words, never operators
      ['gryphon NOT feed', 5],
      ['(gryphon', gryphons],
      ['gryphon)', gryphons],
      ['gryphon+feed', 5],
      ['gryphon\u200bfeed', 5], // a zero-width space separates words
      ['gryphon\u200dfeed', 5], // so does a zero-width joiner
      ['\u202egryphon\u202c', gryphons], // bidirectional controls around a word
      ['\u200f\u05d2\u05e8\u05d9\u05e4\u05d5\u05df\u200f', 0], // Hebrew between RLMs
      ['gryphon 🦄 feed', 5],
      ['👨‍👩‍👧‍👦 gryphon', gryphons],
      ['\u0301\u0301', 0], // combining marks alone
      ['gr\u0301yphon', 0], // a mark inside a word makes another word... that folds back to "gryphon"
      ['the of and', 0],
      ['!!! ... ???', 0],
      ['gryphon '.repeat(1250), gryphons], // 10,000 characters, one word
      [`${Array.from({ length: 20 }, (_, i) => `word${letters[i]}`).join(' ')} gryphon`, 0],
    ]
    for (const [q, expected] of cases) {
      const body = await search(q, '&limit=100')
      const found = body.items.filter((p: { id: string }) => p.id.startsWith('eeeeeeee')).length
      if (q === 'gr\u0301yphon') expect(found).toBeLessThanOrEqual(gryphons)
      else expect({ q: q.slice(0, 40), found }).toEqual({ q: q.slice(0, 40), found: expected })
      expect(Array.isArray(body.items)).toBe(true)
    }
    // 10,000 characters is the limit: one more is a 422, 10,000 emoji (20,000 UTF-16 units) too
    await problem(await t.request(`/api/search?q=${'x'.repeat(10_001)}`), 422, 'validation_failed')
    expect((await t.request(`/api/search?q=${encodeURIComponent('🦄'.repeat(10_000))}`)).status).toBeLessThan(500)
  })
})

describe('snippets', () => {
  test('escaped, marked, and never half a surrogate pair, however the window is cut', async () => {
    // Letters outside the BMP (mathematical bold, CJK extension B) around a match deep in a long
    // content, the window's edges falling inside surrogate pairs at every offset.
    const prompts = Array.from({ length: 10 }, (_, k) => ({
      id: uuid(300 + k),
      title: `Snippet ${k}`,
      category: 'probe',
      content: `${'𝐀𝐁 𠀀𠀁 '.repeat(60)}${'y'.repeat(k)} <b>&amp; "basilisk" ${'𝐂𝐃 '.repeat(150)}`,
    }))
    await importRecords(t, { prompts })
    const body = await search('basilisk', '&limit=100')
    expect(body.total).toBe(10)
    for (const hit of body.items as { snippet: string }[]) {
      expect(hit.snippet.isWellFormed()).toBe(true)
      expect(hit.snippet).toContain('&lt;b&gt;&amp;amp; &quot;<mark>basilisk</mark>&quot;')
      expect(hit.snippet).not.toMatch(/<(?!\/?mark>)/)
      // no entity is cut: every & starts a whole one
      expect(hit.snippet.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&')
    }
  })
})

describe('odd prompt ids', () => {
  const known = uuid(200)
  test('the URN form of a UUID is that prompt: found, favorited and removed as the plain UUID', async () => {
    const res = await t.request(`/api/prompts/urn:uuid:${known.toUpperCase()}`, { headers: { 'x-forwarded-for': '203.0.113.200' } })
    expect(res.status).toBe(200)
    expect((await json(res)).id).toBe(known)
    const user = await register(t)
    const added = await t.request('/api/user/favorites', { method: 'POST', token: user.token, json: { prompt_id: `urn:uuid:${known}` } })
    expect(added.status).toBe(201)
    expect((await json(added)).prompt_id).toBe(known)
    expect((await t.request(`/api/user/favorites/URN:UUID:${known}`, { method: 'DELETE', token: user.token })).status).toBe(204)
    expect(await favoriteCount(t, known)).toBe(0)
  })

  test('encoded slashes, dots, braces, spaces, very long: 422 (never a 5xx)', async () => {
    for (const bad of [
      '..%2F..%2Fetc%2Fpasswd',
      '%2e%2e%2f',
      `{${known}}`,
      `%20${known}`,
      `${known}%00`,
      'a'.repeat(5000),
      known.replaceAll('-', ''),
    ]) {
      await problem(await t.request(`/api/prompts/${bad}`), 422, 'validation_failed')
    }
  })
})

describe('prompt metering at the daily limit (free user)', () => {
  test('with 9 used: the same new prompt 10 times at once is served 10 times and counted once; then the limit holds', async () => {
    const user = await register(t)
    const open = (id: string, method = 'GET') => t.request(`/api/prompts/${id}`, { method, token: user.token })
    const catalogue = [...ZORBLAX, ...GRYPHON].map((p) => p.id)
    for (const id of catalogue.slice(0, 9)) expect((await open(id)).status).toBe(200)
    const same = await Promise.all(Array.from({ length: 10 }, () => open(catalogue[9]!)))
    expect(same.map((r) => r.status)).toEqual(Array(10).fill(200))
    const me = await json(await t.request('/api/user/me', { token: user.token }))
    expect(me.usage.prompts_today).toBe(10)
    // At the limit: a HEAD of a new prompt is refused like a GET and shows no content; opened ones stay free.
    const head = await open(catalogue[10]!, 'HEAD')
    expect(head.status).toBe(429)
    expect(await head.text()).toBe('')
    await problem(await open(catalogue[10]!), 429, 'daily_limit_reached')
    expect((await open(catalogue[3]!.toUpperCase())).status).toBe(200)
    expect((await json(await t.request('/api/user/me', { token: user.token }))).usage.prompts_today).toBe(10)
  })
})

describe('favorites', () => {
  test('one user adding and removing the same favorite 20 times at once: favorite_count is the number of rows, never negative', async () => {
    const user = await register(t)
    const id = uuid(201)
    const before = await favoriteCount(t, id)
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0
          ? t.request('/api/user/favorites', { method: 'POST', token: user.token, json: { prompt_id: id } })
          : t.request(`/api/user/favorites/${id}`, { method: 'DELETE', token: user.token }),
      ),
    )
    for (const r of results) expect([200, 201, 204, 404]).toContain(r.status)
    const rows = await sqlNumber(t.storage, 'SELECT count(*) FROM favorites WHERE prompt_id = $1', [id])
    expect(await favoriteCount(t, id)).toBe(rows)
    expect(rows - before).toBeGreaterThanOrEqual(0)
    const listed = await json(await t.request('/api/user/favorites', { token: user.token }))
    expect(listed.total).toBe(rows - before)
    expect(await countRows(t, 'favorites')).toBeGreaterThanOrEqual(rows)
  })

  test('pages past the end are empty with the right total', async () => {
    const user = await register(t)
    for (const p of GRYPHON.slice(0, 3)) await t.request('/api/user/favorites', { method: 'POST', token: user.token, json: { prompt_id: p.id } })
    const page = await json(await t.request('/api/user/favorites?limit=2&offset=2', { token: user.token }))
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 2 })
    expect(page.items.map((f: { prompt_id: string }) => f.prompt_id)).toEqual([GRYPHON[0]!.id])
    expect(await json(await t.request('/api/user/favorites?offset=3', { token: user.token }))).toEqual({ items: [], total: 3, limit: 20, offset: 3 })
  })
})

describe('skills', () => {
  test('a tag filter that is no tag at all ("!!!") finds nothing, in the list and in search, tagless skills included', async () => {
    await importRecords(t, {
      skills: [{ name: 'tagless-helper', description: 'A helper without any tags.', instructions: 'Help with the basilisk.' }],
    })
    const user = await register(t)
    await setTier(t, user.user.id, 'pro')
    const get = async (path: string) => {
      const res = await t.request(path, { token: user.token })
      expect(res.status).toBe(200)
      return json(res)
    }
    expect((await get('/api/skills/search?q=basilisk')).items.map((s: { id: string }) => s.id)).toEqual(['tagless-helper'])
    expect((await get('/api/skills?tag=!!!')).total).toBe(0)
    expect((await get('/api/skills/search?q=basilisk&tag=!!!')).total).toBe(0)
    expect((await get('/api/skills?tag=%20')).total).toBe(0)
  })

  test('ids shaped like paths are unknown skills (404), never files', async () => {
    const user = await register(t)
    await setTier(t, user.user.id, 'lifetime')
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%2e%2e%2fSKILL.md', 'release-notes%2FSKILL.md', '%00']) {
      const body = await problem(await t.request(`/api/skills/${id}`, { token: user.token }), 404, 'not_found')
      expect(JSON.stringify(body)).not.toContain('root:')
    }
    await setTier(t, user.user.id, 'starter')
    await problem(await t.request('/api/skills/..%2F..%2Fetc%2Fpasswd', { token: user.token }), 403, 'upgrade_required')
  })
})
