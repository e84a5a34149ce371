// Categories, category listings, search and prompt detail, through HTTP (contract section 5).
import { beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../src/app'
import { openStorage } from '../src/db'
import { json, makeTestApp, problem, register, TEST_ENGINE, TEST_JWT_SECRET } from './support/app'
import { countRows, importRecords, loadTestCatalogue, setTier } from './support/catalogue'
import { sqlNumber, sqlRows, sqlRun } from './support/sql'
import { fold } from '../src/lib/search/terms'
import { Database } from 'bun:sqlite'
import type { PgStorage, SqliteStorage } from '../src/db/storage'
import { listingSql } from '../src/features/catalogue/store.sqlite'
import { LISTING_ORDER } from '../src/features/catalogue/store.pg'
import { prompts as pgPrompts } from '../src/features/catalogue/schema.pg'
import { eq } from 'drizzle-orm'

const t = await makeTestApp()
const get = (path: string) => t.request(path)
const WELCOME = '11111111-1111-4111-8111-111111111111'
const search = async (q: string, extra = '') => {
  const res = await get(`/api/search?q=${encodeURIComponent(q)}${extra}`)
  expect(res.status).toBe(200)
  return json(res)
}

beforeAll(async () => {
  await loadTestCatalogue(t)
  await importRecords(t, {
    categories: [{ id: 'zoo', name: 'Zoo', icon: '🦓', order: 99, subcategories: [{ id: 'stripes', name: 'Stripes' }] }],
    prompts: [
      {
        id: 'aaaaaaaa-0000-4000-8000-000000000001',
        title: 'Plain prompt',
        category: 'zoo',
        content: 'Mentions the zebra once, deep inside the content. <script>alert(1)</script> & "quotes"',
      },
      {
        id: 'aaaaaaaa-0000-4000-8000-000000000002',
        title: 'Zebra crossing designer',
        category: 'zoo',
        subcategory: 'stripes',
        tags: ['Road Safety'],
        content: 'Design a crossing.',
      },
      { id: 'aaaaaaaa-0000-4000-8000-000000000003', title: 'Kokosnuss', category: 'zoo', content: `Ünïcödé café ${'filler '.repeat(100)} end` },
    ],
  })
})

describe('GET /api/categories', async () => {
  test('every category in display order, with subcategories and prompt counts', async () => {
    const res = await get('/api/categories')
    expect(res.status).toBe(200)
    const { items } = await json(res)
    // The fixture re-described the demo's marketing category (order 1, before writing by id).
    expect(items[0]).toMatchObject({ id: 'marketing', name: 'Marketing', description: 'Campaigns and copy.', icon: '📣' })
    expect(Object.keys(items[0]).sort()).toEqual(['description', 'icon', 'id', 'name', 'prompt_count', 'subcategories'])
    expect(items[0].subcategories).toContainEqual({ id: 'email', name: 'Email', prompt_count: 1 })
    const zoo = items.at(-1)
    expect(zoo).toEqual({
      id: 'zoo',
      name: 'Zoo',
      description: '',
      icon: '🦓',
      prompt_count: zoo.prompt_count,
      subcategories: [{ id: 'stripes', name: 'Stripes', prompt_count: 1 }],
    })
    expect(zoo.prompt_count).toBeGreaterThanOrEqual(3)
    for (const c of items) {
      expect(c.prompt_count).toBeGreaterThanOrEqual(c.subcategories.reduce((n: number, s: { prompt_count: number }) => n + s.prompt_count, 0))
    }
    const total = items.reduce((n: number, c: { prompt_count: number }) => n + c.prompt_count, 0)
    expect(total).toBe(await countRows(t, 'prompts'))
  })

  test('an import made after the first read shows up (the cached tree follows the revision)', async () => {
    const before = (await json(await get('/api/categories/zoo'))).prompt_count
    await importRecords(t, { prompts: [{ id: 'aaaaaaaa-0000-4000-8000-0000000000ff', title: 'Later', category: 'zoo', content: 'Added later.' }] })
    expect((await json(await get('/api/categories/zoo'))).prompt_count).toBe(before + 1)
  })
})

describe('GET /api/categories/{id}', async () => {
  test('one category with its subcategories', async () => {
    const body = await json(await get('/api/categories/coding'))
    expect(Object.keys(body).sort()).toEqual(['description', 'icon', 'id', 'name', 'prompt_count', 'subcategories'])
    expect(body.subcategories.map((s: { id: string }) => s.id)).toContain('review')
  })

  test('unknown or hostile ids → 404 not_found; absurdly long → 422', async () => {
    for (const id of ['nope', "x'; DROP TABLE categories;--", '<script>', '🙂', 'a%00b', 'MARKETING']) {
      await problem(await get(`/api/categories/${encodeURIComponent(id)}`), 404, 'not_found')
    }
    await problem(await get(`/api/categories/${'a'.repeat(300)}`), 422, 'validation_failed')
  })
})

describe('GET /api/categories/{id}/prompts', async () => {
  test('paginated summaries, popular first by default', async () => {
    const res = await get('/api/categories/writing/prompts?limit=2')
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toMatchObject({ limit: 2, offset: 0, total: expect.any(Number) })
    expect(body.items).toHaveLength(2)
    expect(Object.keys(body.items[0]).sort()).toEqual([
      'category_id',
      'created_at',
      'description',
      'favorite_count',
      'id',
      'preview',
      'subcategory_id',
      'tags',
      'title',
      'type',
      'updated_at',
    ])
    expect([...body.items[0].preview].length).toBeLessThanOrEqual(201)
    const next = await json(await get(`/api/categories/writing/prompts?limit=2&offset=2`))
    expect(next.items[0].id).not.toBe(body.items[0].id)
  })

  test('sort=newest and sort=title order as they say', async () => {
    const newest = (await json(await get('/api/categories/writing/prompts?sort=newest&limit=100'))).items
    const dates = newest.map((p: { created_at: string }) => p.created_at)
    expect(dates).toEqual([...dates].sort().reverse())
    const byTitle = (await json(await get('/api/categories/writing/prompts?sort=title&limit=100'))).items.map((p: { title: string }) =>
      p.title.toLowerCase(),
    )
    expect(byTitle).toEqual([...byTitle].sort())
  })

  test.skipIf(TEST_ENGINE !== 'sqlite')('SQLite reads each sort of a category listing off an index, in order: no sort step', () => {
    // A connection of its own: bun:sqlite leaves an EXPLAIN statement unfinished after all(), and
    // the connection it ran on then keeps reading its old snapshot.
    const db = new Database((t.storage as SqliteStorage).file, { readonly: true })
    for (const sort of ['popular', 'newest', 'title'] as const) {
      const plan = db
        .query<{ detail: string }, [string, number, number]>(`EXPLAIN QUERY PLAN ${listingSql('p.category_id = ?', sort)}`)
        .all('writing', 20, 0)
        .map((r) => r.detail)
      expect(plan.join('; ')).toMatch(/USING (COVERING )?INDEX prompts_(popular|newest|title) \(category_id=\?\)/)
      expect(plan.join('; ')).not.toContain('TEMP B-TREE')
    }
    db.close(false)
  })

  test('a page read again shows every write at once: a favorite through the API, a write by another process to the same database', async () => {
    // Pages are reused until something is committed (SQLite); none may outlive a write.
    const path = '/api/categories/zoo/prompts?sort=popular'
    const page = async () => (await json(await get(path))).items as { id: string; title: string; favorite_count: number }[]
    const before = await page()
    expect(await page()).toEqual(before)
    const last = before.at(-1)!
    const fan = await register(t)
    expect((await t.request('/api/user/favorites', { method: 'POST', token: fan.token, json: { prompt_id: last.id } })).status).toBe(201)
    expect((await page())[0]).toMatchObject({ id: last.id, favorite_count: last.favorite_count + 1 })
    expect((await t.request(`/api/user/favorites/${last.id}`, { method: 'DELETE', token: fan.token })).status).toBe(204)
    expect(await page()).toEqual(before)
    // Another process writing the file (an import, a second server): a connection of its own.
    // Its commit has no link to our requests; a read from the next turn on (a new snapshot) sees it.
    const rename = `UPDATE prompts SET title = 'Renamed elsewhere' WHERE id = '${last.id}'`
    try {
      if (t.storage.engine === 'sqlite') {
        const other = new Database((t.storage as SqliteStorage).file)
        other.run(rename)
        other.close()
      } else await sqlRun(t.storage, rename)
      await new Promise((resolve) => setImmediate(resolve))
      expect((await page()).find((p) => p.id === last.id)?.title).toBe('Renamed elsewhere')
    } finally {
      await sqlRun(t.storage, 'UPDATE prompts SET title = $1 WHERE id = $2', [last.title, last.id])
    }
    expect(await page()).toEqual(before)
  })

  test('ties in the order fall to the newest prompt (the highest seq) first', async () => {
    // An app of its own: these prompts would change the counts and results of the other tests.
    const own = await makeTestApp()
    const created = '2026-01-01T00:00:00.000Z'
    await importRecords(own, {
      categories: [{ id: 'ties', name: 'Ties', icon: '🪢', order: 98 }],
      prompts: ['1', '2', '3'].map((n) => ({
        id: `bbbbbbbb-0000-4000-8000-00000000000${n}`,
        title: 'Same title',
        category: 'ties',
        content: `Tie ${n}`,
        created_at: created,
        updated_at: created,
      })),
    })
    for (const sort of ['popular', 'newest']) {
      const items = (await json(await own.request(`/api/categories/ties/prompts?sort=${sort}`))).items.map((p: { id: string }) => p.id.slice(-1))
      expect(items).toEqual(['3', '2', '1'])
    }
    const byTitle = (await json(await own.request('/api/categories/ties/prompts?sort=title'))).items.map((p: { id: string }) => p.id.slice(-1))
    expect(byTitle).toEqual(['1', '2', '3'])
  })

  test('subcategory and tag filters (tags compared in slug form)', async () => {
    const sub = await json(await get('/api/categories/zoo/prompts?subcategory=stripes'))
    expect(sub.items.map((p: { title: string }) => p.title)).toEqual(['Zebra crossing designer'])
    const tag = await json(await get('/api/categories/zoo/prompts?tag=Road%20Safety'))
    expect(tag.total).toBe(1)
    expect(tag.items[0].tags).toEqual(['road-safety'])
    expect((await json(await get('/api/categories/zoo/prompts?tag=nothing'))).total).toBe(0)
  })

  test('totals follow an import at once (each filter: category, subcategory, tag, type)', async () => {
    const category = { id: 'totals', name: 'Totals', subcategories: [{ id: 'sub', name: 'Sub' }] }
    const prompt = (id: string) => ({
      id,
      title: `Totals ${id.slice(0, 4)}`,
      content: 'Counted.',
      category: 'totals',
      subcategory: 'sub',
      tags: ['counted'],
    })
    const totals = async () =>
      Promise.all(
        ['', '?subcategory=sub', '?tag=counted', '?type=text', '?type=image'].map(
          async (q) => (await json(await get(`/api/categories/totals/prompts${q}`))).total,
        ),
      )
    await importRecords(t, { categories: [category], prompts: [prompt('2f7c1c55-9d4e-4c7e-9a57-3b1f0c6d8e01')] })
    expect(await totals()).toEqual([1, 1, 1, 1, 0])
    await importRecords(t, { prompts: [prompt('2f7c1c55-9d4e-4c7e-9a57-3b1f0c6d8e02')] })
    expect(await totals()).toEqual([2, 2, 2, 2, 0])
    // the same prompt again as an image: the type counts move
    await importRecords(t, { prompts: [{ ...prompt('2f7c1c55-9d4e-4c7e-9a57-3b1f0c6d8e02'), type: 'IMAGE' }] })
    expect(await totals()).toEqual([2, 2, 2, 1, 1])
  })

  test('bad input: unknown category 404; unknown subcategory, bad sort, bad paging 422', async () => {
    await problem(await get('/api/categories/nope/prompts'), 404, 'not_found')
    await problem(await get('/api/categories/zoo/prompts?subcategory=email'), 422, 'validation_failed')
    for (const q of ['sort=best', 'sort=', 'limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5', 'subcategory=%3Cscript%3E']) {
      await problem(await get(`/api/categories/zoo/prompts?${q}`), 422, 'validation_failed')
    }
  })
})

describe('prompt types', async () => {
  const quokka = (n: number, type?: string) => ({
    id: `aaaaaaaa-0000-4000-8000-00000000010${n}`,
    title: `Quokka portrait ${n}`,
    category: 'zoo',
    content: `Draw the quokka smiling, variant ${n}.`,
    ...(type === undefined ? {} : { type }),
  })
  beforeAll(async () => {
    await importRecords(t, { prompts: [quokka(1), quokka(2, 'IMAGE'), quokka(3, 'structured'), quokka(4, 'text')] })
  })
  const titles = (body: { items: { title: string }[] }) => body.items.map((p) => p.title).sort()

  test('summaries and the detail carry the type (text by default, stored in lower case)', async () => {
    const body = await search('quokka')
    expect(body.items.map((p: { title: string; type: string }) => [p.title, p.type]).sort()).toEqual([
      ['Quokka portrait 1', 'text'],
      ['Quokka portrait 2', 'image'],
      ['Quokka portrait 3', 'structured'],
      ['Quokka portrait 4', 'text'],
    ])
    expect((await json(await get(`/api/prompts/${quokka(2).id}`))).type).toBe('image')
  })

  test('a type filter on listings and search; text is every prompt of the default type', async () => {
    expect(titles(await search('quokka', '&type=image'))).toEqual(['Quokka portrait 2'])
    expect(titles(await search('quokka', '&type=text'))).toEqual(['Quokka portrait 1', 'Quokka portrait 4'])
    expect(titles(await search('quokk', '&type=structured&category=zoo'))).toEqual(['Quokka portrait 3'])
    expect((await search('quokka', '&type=video')).total).toBe(0)
    const listing = await json(await get('/api/categories/zoo/prompts?type=image&limit=100'))
    expect(titles(listing)).toEqual(['Quokka portrait 2'])
    const text = await json(await get('/api/categories/zoo/prompts?type=text&limit=100'))
    expect(text.items.every((p: { type: string }) => p.type === 'text')).toBe(true)
    expect(text.total).toBe((await json(await get('/api/categories/zoo/prompts?limit=100'))).total - 2)
    for (const q of ['type=IMAGE', 'type=', 'type=a%20b', `type=${'x'.repeat(65)}`]) {
      await problem(await get(`/api/categories/zoo/prompts?${q}`), 422, 'validation_failed')
      await problem(await get(`/api/search?q=quokka&${q}`), 422, 'validation_failed')
    }
  })
})

describe('GET /api/search', async () => {
  test('title matches rank above content-only matches; summaries plus a snippet', async () => {
    const body = await search('zebra')
    expect(body.items.map((p: { title: string }) => p.title)).toEqual(['Zebra crossing designer', 'Plain prompt'])
    expect(body.total).toBe(2)
    expect(Object.keys(body.items[0])).toContain('snippet')
    expect(body.items[0].snippet).toContain('<mark>Zebra</mark>')
  })

  test('heads first: an older title match ranks above a newer content-only match; title outweighs description', async () => {
    await importRecords(t, {
      prompts: [
        {
          id: 'bbbbbbbb-0000-4000-8000-000000000001',
          title: 'Quokka description only',
          category: 'zoo',
          description: 'All about the wombat.',
          content: 'x',
        },
        { id: 'bbbbbbbb-0000-4000-8000-000000000002', title: 'Wombat in the title', category: 'zoo', content: 'y' },
        { id: 'bbbbbbbb-0000-4000-8000-000000000003', title: 'Newest, content only', category: 'zoo', content: 'wombat wombat wombat wombat' },
      ],
    })
    const titles = (await search('wombat')).items.map((p: { title: string }) => p.title)
    expect(titles).toEqual(['Wombat in the title', 'Quokka description only', 'Newest, content only'])
  })

  test('an unfinished last word matches the words of titles, descriptions and tags that start with it', async () => {
    await importRecords(t, {
      prompts: [
        { id: 'bbbbbbbb-0000-4000-8000-000000000004', title: 'Orchestration for kubernetes clusters', category: 'zoo', content: 'z' },
        { id: 'bbbbbbbb-0000-4000-8000-000000000005', title: 'Plain', category: 'zoo', content: 'we talk about orchestration of kubernetes here' },
      ],
    })
    const body = await search('kubernetes orchest')
    expect(body.items.map((p: { title: string }) => p.title)).toEqual(['Orchestration for kubernetes clusters', 'Plain'])
    expect(body.total).toBe(2)
  })

  test('an unfinished last word matches words found only in content, whichever way the prompt came', async () => {
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const id = (i: number) => `bcbcbcbc-0000-4000-8000-${String(i).padStart(12, '0')}`
    await importRecords(p, {
      categories: [{ id: 'bio', name: 'Biology' }],
      prompts: [
        { id: id(1), title: 'Explain a process', category: 'bio', content: 'Describe photosynthesis to a child.' },
        { id: id(2), title: 'Photography tips', category: 'bio', content: 'Light and lenses.' },
      ],
    })
    const titles = async (q: string) =>
      (await json(await p.request(`/api/search?q=${encodeURIComponent(q)}`))).items.map((i: { title: string }) => i.title)
    expect(await titles('photosynth')).toEqual(['Explain a process'])
    expect(await titles('photo')).toEqual(['Photography tips', 'Explain a process'])
    expect(await titles('child photosy')).toEqual(['Explain a process'])
    // A word a prompt's content gains when it is imported again.
    await importRecords(p, { prompts: [{ id: id(2), title: 'Photography tips', category: 'bio', content: 'Chiaroscuro and lenses.' }] })
    expect(await titles('chiaros')).toEqual(['Photography tips'])
  })

  test('an unfinished last word finds what a native prefix finds: asked as its completions up to 16 (SQLite) or 32 (PostgreSQL), as a prefix beyond', async () => {
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const id = (i: number) => `cdcdcdcd-0000-4000-8000-${String(i).padStart(12, '0')}`
    // 40 words that begin "quokka" (quokka0 … quokka39), each in the content of its own prompt.
    await importRecords(p, {
      categories: [{ id: 'q', name: 'Quokkas' }],
      prompts: Array.from({ length: 40 }, (_, i) => ({ id: id(i), title: `Entry ${i}`, category: 'q', content: `notes on quokka${i}` })),
    })
    const total = async (q: string) => (await json(await p.request(`/api/search?q=${encodeURIComponent(q)}`))).total
    expect(await total('quokka3')).toBe(11) // quokka3, quokka30 … quokka39: completions
    expect(await total('quok')).toBe(40) // 40 words: the prefix itself
    expect(await total('notes quokka1')).toBe(11)
    expect(await total('quokkaz')).toBe(0)
    // A word a prompt gains when it is imported again is a completion at once (an update's words too).
    await importRecords(p, { prompts: [{ id: id(0), title: 'Entry 0', category: 'q', content: 'notes on quokka3extra' }] })
    expect(await total('quokka3')).toBe(12)
    expect(await sqlNumber(p.storage, "SELECT count(*) FROM prompt_words WHERE word LIKE 'quokka%'")).toBe(41)
  })

  test("an import's new words are completions: across its batches, and none from a dry run that rolled back", async () => {
    // The import adds its words to prompt_words itself (SQLite: search-words.sqlite.ts; PostgreSQL: its trigger skips those inserts, 0007).
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const id = (i: number) => `abababab-0000-4000-8000-${String(i).padStart(12, '0')}`
    const records = (word: string) => ({
      categories: [{ id: 'w', name: 'Wombats' }],
      // More prompts than a batch holds: each batch brings words the earlier ones did not.
      prompts: Array.from({ length: 2500 }, (_, i) => ({ id: id(i), title: `Entry ${i}`, category: 'w', content: `shared ${word}${i}` })),
    })
    const words = (like: string) => sqlNumber(p.storage, `SELECT count(*) FROM prompt_words WHERE word LIKE '${like}'`)
    const dryRun = await p.services.catalogue.importCatalogueData(
      { format: 'promptlib-catalogue', version: 1, ...records('wombat') },
      { file: 'test', dryRun: true },
    )
    expect(dryRun.created).toBe(2501) // the prompts and their category
    expect(await words('wombat%')).toBe(0)
    await importRecords(p, records('wombat'))
    expect(await words('wombat%')).toBe(2500)
    expect(await words('shared')).toBe(1)
    expect((await json(await p.request('/api/search?q=wombat249'))).total).toBe(11) // wombat249, wombat2490 … wombat2499
    // The search index rebuilt from the rows lists its words again (PostgreSQL: through the trigger).
    await sqlRun(p.storage, 'DELETE FROM prompt_words')
    await p.services.catalogue.rebuildSearchIndex()
    expect(await words('wombat%')).toBe(2500)
  })

  test('the snippet is HTML-escaped around the <mark> markers', async () => {
    const [hit] = (await search('deep zebra')).items
    expect(hit.snippet).toContain('<mark>zebra</mark>')
    expect(hit.snippet).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;')
    expect(hit.snippet).not.toContain('<script>')
  })

  test('long contents: the snippet shows the first match, at the start, tens of thousands of characters in, near the end of what is read first, or in multi-byte text', async () => {
    const filler = (n: number, word = 'filler') => `${word} `.repeat(n)
    await importRecords(t, {
      prompts: [
        { id: 'bbbbbbbb-0000-4000-8000-000000000011', title: 'Early', category: 'zoo', content: `Opening okapi line. ${filler(5000)}` },
        { id: 'bbbbbbbb-0000-4000-8000-000000000012', title: 'Deep', category: 'zoo', content: `${filler(4000)}an okapi at last ${filler(50)}` },
        { id: 'bbbbbbbb-0000-4000-8000-000000000013', title: 'Edge', category: 'zoo', content: `${filler(2315)}okapi ${filler(200)}` },
        {
          id: 'bbbbbbbb-0000-4000-8000-000000000014',
          title: 'Kana',
          category: 'zoo',
          content: `${filler(1700, 'ことば')}okapi ${filler(10, 'ことば')}`,
        },
      ],
    })
    const body = await search('okapi')
    const snippets = Object.fromEntries(body.items.map((p: { title: string; snippet: string }) => [p.title, p.snippet]))
    expect(Object.keys(snippets).sort()).toEqual(['Deep', 'Early', 'Edge', 'Kana'])
    expect(snippets.Early).toStartWith('Opening <mark>okapi</mark> line. filler')
    expect(snippets.Early).toEndWith('…')
    for (const title of ['Deep', 'Edge'])
      expect(snippets[title]).toMatch(/^…filler( filler)* (an )?<mark>okapi<\/mark> (at last )?filler( filler)*…$/)
    expect(snippets.Kana).toMatch(/^…(ことば )+<mark>okapi<\/mark>( ことば)+$/)
  })

  test('the last word matches as a prefix; diacritics and case fold', async () => {
    expect((await search('welc')).items.map((p: { id: string }) => p.id)).toContain(WELCOME)
    expect((await search('Unicode CAFE')).items[0].title).toBe('Kokosnuss')
    expect((await search('café')).items[0].title).toBe('Kokosnuss')
  })

  test('words of any script are found as typed, whole or as a prefix, in titles and in content', async () => {
    const words = [
      '한국어',
      'がっこう',
      'ガイドブック',
      'Ελληνικά',
      'русский',
      'עִברִית',
      'বাংলা',
      'தமிழ்',
      'किताबें',
      'ภาษาไทย',
      'Tiếng',
      'العربية',
      '中文',
    ]
    const scripts = await makeTestApp()
    await importRecords(scripts, {
      categories: [{ id: 'scripts', name: 'Scripts', icon: '🔤', order: 1 }],
      prompts: words.flatMap((word, i) => [
        { id: `dddddddd-0000-4000-8000-${String(2 * i).padStart(12, '0')}`, title: `${word} title`, category: 'scripts', content: 'c' },
        { id: `dddddddd-0000-4000-8000-${String(2 * i + 1).padStart(12, '0')}`, title: 'Other', category: 'scripts', content: `text ${word} text` },
      ]),
    })
    const found = async (q: string) => {
      const res = await scripts.handle(new Request(`http://localhost/api/search?q=${encodeURIComponent(q)}&limit=50`))
      expect(res.status).toBe(200)
      const body = (await res.json()) as { items: { id: string }[] }
      return body.items.map((p) => Number(p.id.slice(-12)))
    }
    for (const [i, word] of words.entries()) {
      expect({ word, ids: await found(word) }).toEqual({ word, ids: [2 * i, 2 * i + 1] })
      // as typed but for case and accents
      expect({ word, ids: await found(word.toUpperCase()) }).toEqual({ word, ids: [2 * i, 2 * i + 1] })
      // the shortest beginning that folds to 4 letters (a prefix from there on)
      const chars = [...word]
      const prefix = chars.slice(0, chars.findIndex((_, n) => [...fold(chars.slice(0, n + 1).join(''))].length === 4) + 1).join('')
      if (prefix !== '' && prefix !== word) expect({ prefix, ids: (await found(prefix)).slice(0, 2) }).toEqual({ prefix, ids: [2 * i, 2 * i + 1] })
    }
  })

  test('a private-use character (U+E000–U+F8FF) separates words, in the index as in the query: such a word is found', async () => {
    const app = await makeTestApp()
    await importRecords(app, {
      categories: [{ id: 'pua', name: 'Private use', icon: '🔣', order: 1 }],
      prompts: [{ id: 'eeeeeeee-0000-4000-8000-0000000000aa', title: 'zqa\uE000zqb icons', category: 'pua', content: 'glyph \uF8FFlogo' }],
    })
    for (const q of ['zqa', 'zqb', 'zqa\uE000zqb', 'logo', '\uF8FFlogo']) {
      const body = (await (await app.handle(new Request(`http://localhost/api/search?q=${encodeURIComponent(q)}`))).json()) as { total: number }
      expect({ q, total: body.total }).toEqual({ q, total: 1 })
    }
  })

  test('tags of any script are kept as typed (composed, their vowel signs and voicing marks too) and filter listings and search', async () => {
    // Before: हिन्दी was stored as हनद (every mark dropped), ガ as カ, 한국어 as loose jamo.
    const tags = ['हिन्दी', 'हन्द', 'ガイド', 'カイド', '한국어', 'ภาษาไทย', 'தமிழ்', 'Café', 'مُحَمَّد']
    const expected = ['हिन्दी', 'हन्द', 'ガイド', 'カイド', '한국어', 'ภาษาไทย', 'தமிழ்', 'cafe', 'محمد']
    const app = await makeTestApp()
    await importRecords(app, {
      categories: [{ id: 'scripts', name: 'Scripts', icon: '🔤', order: 1 }],
      prompts: tags.map((tag, i) => ({
        id: `eeeeeeee-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Tagged ${i}`,
        category: 'scripts',
        content: 'common words here',
        tags: [tag],
      })),
    })
    const get = async (path: string) =>
      (await app.handle(new Request(`http://localhost${path}`))).json() as Promise<{ items: { id: string; tags: string[] }[] }>
    for (const [i, tag] of tags.entries()) {
      const one = (await get(`/api/prompts/eeeeeeee-0000-4000-8000-${String(i).padStart(12, '0')}`)) as unknown as { tags: string[] }
      expect({ tag, stored: one.tags }).toEqual({ tag, stored: [expected[i]!] })
      for (const typed of [tag, tag.normalize('NFD')]) {
        const listed = await get(`/api/categories/scripts/prompts?tag=${encodeURIComponent(typed)}`)
        expect({ typed, ids: listed.items.map((p) => Number(p.id.slice(-12))) }).toEqual({ typed, ids: [i] })
        const found = await get(`/api/search?q=common&tag=${encodeURIComponent(typed)}`)
        expect({ typed, ids: found.items.map((p) => Number(p.id.slice(-12))) }).toEqual({ typed, ids: [i] })
      }
    }
  })

  test('filters: category, subcategory, tag', async () => {
    expect((await search('zebra', '&category=zoo')).total).toBe(2)
    expect((await search('zebra', '&category=marketing')).total).toBe(0)
    expect((await search('zebra', '&subcategory=stripes')).items.map((p: { title: string }) => p.title)).toEqual(['Zebra crossing designer'])
    expect((await search('zebra', '&tag=road-safety')).total).toBe(1)
    expect((await search('zebra', '&tag=Road%20Safety')).total).toBe(1)
  })

  test('pagination', async () => {
    const all = await search('zebra', '&limit=1')
    expect(all).toMatchObject({ total: 2, limit: 1, offset: 0 })
    const second = await search('zebra', '&limit=1&offset=1')
    expect(second.items[0].title).toBe('Plain prompt')
    expect((await search('zebra', '&offset=5')).items).toEqual([])
  })

  test('pages of any size, at any offset, walk the heads and then the content-only matches without a gap', async () => {
    const numbered = (n: number, head: boolean) => ({
      id: `bbbbbbbb-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`,
      title: head ? `Ocelot ${n}` : `Spotted cat ${n}`,
      category: 'zoo',
      content: head ? 'x' : `an ocelot, number ${n}`,
    })
    await importRecords(t, { prompts: [1, 2, 3].map((n) => numbered(n, true)).concat([4, 5, 6, 7, 8].map((n) => numbered(n, false))) })
    const all = (await search('ocelot', '&limit=100')).items.map((p: { title: string }) => p.title)
    expect(all).toHaveLength(8)
    expect(all.slice(0, 3).every((title: string) => title.startsWith('Ocelot'))).toBe(true)
    expect(all.slice(3)).toEqual(['Spotted cat 8', 'Spotted cat 7', 'Spotted cat 6', 'Spotted cat 5', 'Spotted cat 4'])
    for (const size of [1, 2, 3, 5]) {
      const walked: string[] = []
      for (let offset = 0; offset < 8; offset += size)
        walked.push(...(await search('ocelot', `&limit=${size}&offset=${offset}`)).items.map((p: { title: string }) => p.title))
      expect(walked).toEqual(all)
    }
  })

  test('sort=popular|newest|title orders the matches as a listing does (relevance, the default, ranks them); filters, pages and snippets alike', async () => {
    const bandicoot = (n: number, fields: { title: string; tags?: string[]; content?: string; created_at: string; category?: string }) => ({
      id: `dddddddd-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`,
      category: fields.category ?? 'sorting',
      content: fields.content ?? 'Nothing to see here.',
      ...fields,
    })
    await importRecords(t, {
      categories: [
        { id: 'sorting', name: 'Sorting', icon: '🔢', order: 98 },
        { id: 'elsewhere', name: 'Elsewhere', icon: '🗺️', order: 97 },
      ],
      prompts: [
        bandicoot(1, { title: 'Bandicoot census', created_at: '2024-03-01T00:00:00Z' }),
        bandicoot(2, { title: 'aardvark notes', content: 'A bandicoot appears in the content only.', created_at: '2025-01-01T00:00:00Z' }),
        bandicoot(3, { title: 'Burrow survey', tags: ['bandicoot'], created_at: '2023-06-01T00:00:00Z' }),
        bandicoot(4, { title: 'Zoo keeper log', content: 'Feed the bandicoot twice.', created_at: '2025-06-01T00:00:00Z' }),
        bandicoot(5, { title: 'Marsupial guide', content: 'bandicoot and koala', created_at: '2022-01-01T00:00:00Z', category: 'elsewhere' }),
      ],
    })
    const fan = await register(t)
    for (const [id, fans] of [
      ['dddddddd-0000-4000-8000-000000000003', 2],
      ['dddddddd-0000-4000-8000-000000000002', 1],
    ] as const) {
      for (let i = 0; i < fans; i++) {
        const who = i === 0 ? fan : await register(t)
        expect((await t.request('/api/user/favorites', { method: 'POST', token: who.token, json: { prompt_id: id } })).status).toBe(201)
      }
    }
    const titles = async (extra: string) => (await search('bandicoot', `&category=sorting${extra}`)).items.map((p: { title: string }) => p.title)
    expect(await titles('&sort=newest')).toEqual(['Zoo keeper log', 'aardvark notes', 'Bandicoot census', 'Burrow survey'])
    expect(await titles('&sort=title')).toEqual(['aardvark notes', 'Bandicoot census', 'Burrow survey', 'Zoo keeper log'])
    expect(await titles('&sort=popular')).toEqual(['Burrow survey', 'aardvark notes', 'Zoo keeper log', 'Bandicoot census'])
    // Relevance: heads first (the title outranks the tag), then content-only matches newest first.
    expect(await titles('')).toEqual(['Bandicoot census', 'Burrow survey', 'Zoo keeper log', 'aardvark notes'])
    expect(await titles('&sort=relevance')).toEqual(await titles(''))
    // The same order as the category's own listing, for the same prompts.
    const listing = (await json(await get('/api/categories/sorting/prompts?sort=popular&limit=100'))).items.map((p: { title: string }) => p.title)
    expect(listing).toEqual(await titles('&sort=popular'))
    // Across categories, with a tag filter, page by page.
    expect((await search('bandicoot', '&sort=newest')).items.map((p: { title: string }) => p.title)).toEqual([
      'Zoo keeper log',
      'aardvark notes',
      'Bandicoot census',
      'Burrow survey',
      'Marsupial guide',
    ])
    expect(await titles('&sort=newest&tag=Bandicoot')).toEqual(['Burrow survey'])
    const walked: string[] = []
    for (let offset = 0; offset < 5; offset += 2) walked.push(...(await titles(`&sort=title&limit=2&offset=${offset}`)))
    expect(walked).toEqual(await titles('&sort=title'))
    const page = await search('bandicoot', '&category=sorting&sort=title&limit=2&offset=1')
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 })
    // Snippets mark the word wherever it was found, title or content (read for the snippet alone),
    // as relevance's do; a tag's match has no text to mark, and shows what relevance shows.
    const snippetsBy = async (extra: string) =>
      Object.fromEntries(
        (await search('bandicoot', `&category=sorting${extra}`)).items.map((p: { title: string; snippet: string }) => [p.title, p.snippet]),
      )
    const sorted = await snippetsBy('&sort=newest')
    const ranked = await snippetsBy('')
    expect(sorted['Bandicoot census']).toContain('<mark>Bandicoot</mark>')
    expect(sorted['aardvark notes']).toContain('A <mark>bandicoot</mark> appears')
    expect(sorted['Zoo keeper log']).toContain('Feed the <mark>bandicoot</mark>')
    for (const title of ['Bandicoot census', 'aardvark notes', 'Zoo keeper log', 'Burrow survey'])
      expect({ title, snippet: sorted[title] }).toEqual({ title, snippet: ranked[title] })
    expect(sorted['Burrow survey']).not.toContain('<mark>')
  })

  test('total counts matches up to 1,000; pages stay within it', async () => {
    const many = await makeTestApp()
    await importRecords(many, {
      categories: [{ id: 'bulk', name: 'Bulk', icon: '📦', order: 1 }],
      prompts: Array.from({ length: 1010 }, (_, i) => ({
        id: `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Bulk item ${i}`,
        category: 'bulk',
        content: 'capybara',
      })),
    })
    const first = await json(await many.request('/api/search?q=capybara&limit=100'))
    expect(first.total).toBe(1000)
    expect(first.items).toHaveLength(100)
    const last = await json(await many.request('/api/search?q=capybara&limit=100&offset=990'))
    expect(last.items).toHaveLength(10)
    expect((await json(await many.request('/api/search?q=capybara&offset=1000'))).items).toEqual([])
    // Sorted, the pages are the newest 1,000 matches in that order: the 10 added first are left out.
    const byTitle = Array.from({ length: 1000 }, (_, i) => `Bulk item ${i + 10}`).sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }))
    const sortedTail = await json(await many.request('/api/search?q=capybara&sort=title&limit=100&offset=990'))
    expect(sortedTail.total).toBe(1000)
    expect(sortedTail.items.map((p: { title: string }) => p.title)).toEqual(byTitle.slice(990, 1000))
  })

  test('hostile text is only ever text: never a 500, never FTS5 syntax', async () => {
    const hostile = [
      '"',
      '""',
      '"zebra',
      'zebra"',
      '*',
      'zebra*',
      '* zebra',
      'NEAR(zebra',
      'NEAR(',
      ')',
      '(',
      '((zebra',
      'zebra OR',
      'OR',
      'AND',
      'NOT',
      'zebra NOT zebra',
      '-zebra',
      '^zebra',
      'title:zebra',
      '{title}: zebra',
      'zebra:',
      "'; DROP TABLE prompts; --",
      '<script>alert(1)</script>',
      '🦓',
      '🦓 zebra',
      'zebra\u0000',
      '\u0000',
      'a\ud800b',
      '\udfff',
      '\u202e',
      'x'.repeat(5000),
      'zebra '.repeat(1000),
      '%',
      '%%',
      '\\',
      'rowid=1',
      'facets: c7a6f6f',
      'c7a6f6f',
    ]
    for (const q of hostile) {
      const res = await get(`/api/search?q=${encodeURIComponent(q.replace(/[\ud800-\udfff]/g, '\ufffd'))}`)
      expect({ q: q.slice(0, 30), status: res.status }).toEqual({ q: q.slice(0, 30), status: 200 })
      const body = await json(res)
      expect(Array.isArray(body.items)).toBe(true)
    }
    // Raw bytes that are not UTF-8 and a lone surrogate written as %-escapes.
    for (const raw of ['%ED%A0%80', '%FF%FE', '%C0%AF', 'zebra%00']) {
      const res = await get(`/api/search?q=${raw}`)
      expect(res.status).toBeLessThan(500)
    }
    expect((await search('"zebra"')).total).toBe(2)
    expect((await search('zebra OR kokosnuss')).total).toBe(0) // OR is a word here, and an unknown one
  })

  test('only stopwords still search; only punctuation finds nothing', async () => {
    expect((await search('the')).total).toBeGreaterThan(0)
    expect(await search('!!! ... ???')).toEqual({ items: [], total: 0, limit: 20, offset: 0 })
  })

  test('bad input → 422', async () => {
    for (const q of [
      '',
      'q=',
      'q=%20%20',
      'q=%09%0A',
      `q=${'x'.repeat(10_001)}`,
      'q=a&limit=0',
      'q=a&limit=1000',
      'q=a&offset=-3',
      'q=a&category=Not%20Slug',
      'q=a&sort=best',
      'q=a&sort=',
      'q=a&sort=NEWEST',
    ]) {
      await problem(await get(`/api/search?${q}`), 422, 'validation_failed')
    }
  })
})

describe('long prompts', async () => {
  test('a 150,000-character prompt is stored, served whole and found by a word near its end', async () => {
    const content = `${'A long preamble sentence about nothing in particular. '.repeat(2800)}Finally the quixotic ending.`
    expect(content.length).toBeGreaterThan(150_000)
    const id = 'aaaaaaaa-0000-4000-8000-00000000long'.replace('long', '0150')
    await importRecords(t, { prompts: [{ id, title: 'Very long prompt', category: 'zoo', content }] })
    const detail = await json(await t.request(`/api/prompts/${id}`, { headers: { 'x-forwarded-for': '10.1.1.1' } }))
    expect(detail.content).toBe(content)
    expect([...detail.preview].length).toBeLessThanOrEqual(201)
    const hit = (await search('quixotic')).items[0]
    expect(hit.id).toBe(id)
    expect(typeof hit.snippet).toBe('string')
  })
})

describe('GET /api/prompts/{id}', async () => {
  test('the full prompt: summary fields, content and the variables in order of first appearance', async () => {
    const res = await get(`/api/prompts/${WELCOME}`)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.content).toContain('Write a welcome email for {{product}}')
    expect(body.variables).toEqual([
      { name: 'product', default: null, options: null },
      { name: 'tone', default: 'friendly', options: null },
      { name: 'format', default: null, options: ['list', 'table'] },
    ])
    expect(body).toMatchObject({
      id: WELCOME,
      title: 'Welcome email sequence',
      category_id: 'marketing',
      subcategory_id: 'email',
      tags: ['onboarding', 'email-marketing'],
    })
    expect(body.created_at).toBe('2026-01-05T10:00:00.000Z')
  })

  test('an upper-case UUID finds the same prompt', async () => {
    expect((await json(await t.request(`/api/prompts/${WELCOME.toUpperCase()}`, { headers: { 'x-forwarded-for': '10.9.9.9' } }))).id).toBe(WELCOME)
  })

  test('not a UUID → 422; unknown → 404; a bad token → 401', async () => {
    for (const id of ['abc', '1', "x' OR 1=1", '11111111-1111-4111-8111-11111111111z', `${WELCOME}0`]) {
      await problem(await get(`/api/prompts/${encodeURIComponent(id)}`), 422, 'validation_failed')
    }
    await problem(await get('/api/prompts/99999999-9999-4999-8999-999999999999'), 404, 'not_found')
    await problem(await t.request(`/api/prompts/${WELCOME}`, { token: 'garbage' }), 401, 'invalid_token')
  })
})

describe('OpenAPI', async () => {
  test('every catalogue, skills and favorites route is documented with its tag, parameters and problems', async () => {
    const doc = await json(await get('/api/openapi.json'))
    const routes = [
      ['/api/categories', 'get', 'catalogue'],
      ['/api/categories/{category_id}', 'get', 'catalogue'],
      ['/api/categories/{category_id}/prompts', 'get', 'catalogue'],
      ['/api/search', 'get', 'catalogue'],
      ['/api/prompts/{prompt_id}', 'get', 'catalogue'],
      ['/api/skills', 'get', 'skills'],
      ['/api/skills/search', 'get', 'skills'],
      ['/api/skills/{skill_id}', 'get', 'skills'],
      ['/api/user/favorites', 'get', 'favorites'],
      ['/api/user/favorites', 'post', 'favorites'],
      ['/api/user/favorites/{prompt_id}', 'delete', 'favorites'],
    ] as const
    for (const [path, method, tag] of routes) {
      const op = doc.paths[path]?.[method]
      expect(op, `${method} ${path}`).toBeDefined()
      expect(op.tags).toEqual([tag])
      expect(op.summary.length).toBeGreaterThan(10)
    }
    expect(doc.tags.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(['catalogue', 'skills', 'favorites']))
    expect(Object.keys(doc.paths['/api/prompts/{prompt_id}'].get.responses).sort()).toEqual(['200', '401', '403', '404', '422', '429'])
    expect(doc.paths['/api/search'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'category',
      'limit',
      'offset',
      'q',
      'sort',
      'subcategory',
      'tag',
      'type',
    ])
  })
})

describe('search index', async () => {
  test('rebuilt from the rows (after `promptlib db copy`, which copies rows only)', async () => {
    const r = await makeTestApp()
    await importRecords(r, {
      categories: [{ id: 'zoo', name: 'Zoo' }],
      prompts: [
        { id: 'dddddddd-0000-4000-8000-000000000001', title: 'Okapi habitat', category: 'zoo', content: 'Forest giraffes.' },
        { id: 'dddddddd-0000-4000-8000-000000000002', title: 'Plain', category: 'zoo', content: 'The okapi hides.' },
      ],
      skills: [{ name: 'okapi-care', description: 'Feeds okapis. Use when asked.', instructions: '# Care' }],
    })
    const { token, user } = await register(r)
    await setTier(r, user.id, 'pro')
    const skillHits = async () => (await json(await r.request('/api/skills/search?q=okapi', { token }))).total
    expect((await json(await r.request('/api/search?q=okapi'))).total).toBe(2)
    expect(await skillHits()).toBe(1)
    // What a copy leaves: rows without their search index.
    if (r.storage.engine === 'postgres') {
      await sqlRun(r.storage, 'DELETE FROM prompt_search')
      await sqlRun(r.storage, 'UPDATE skills SET search = NULL')
    } else {
      await sqlRun(r.storage, "INSERT INTO prompts_fts(prompts_fts) VALUES('delete-all')")
      await sqlRun(r.storage, "INSERT INTO prompts_head_fts(prompts_head_fts) VALUES('delete-all')")
      await sqlRun(r.storage, "INSERT INTO skills_fts(skills_fts) VALUES('delete-all')")
    }
    expect((await json(await r.request('/api/search?q=okapi'))).total).toBe(0)
    expect(await skillHits()).toBe(0)
    await r.services.catalogue.rebuildSearchIndex()
    const body = await json(await r.request('/api/search?q=okapi'))
    expect(body.items.map((p: { title: string }) => p.title)).toEqual(['Okapi habitat', 'Plain'])
    expect(await skillHits()).toBe(1)
  })
})

describe('category tree across instances', async () => {
  test('an import through another instance on the same database shows within a second', async () => {
    const a = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const { storage } = await openStorage(a.config)
    const b = createApp({ config: a.config, storage, log: a.log, jwtSecret: TEST_JWT_SECRET })
    try {
      const categoriesOfB = async () => (await json(await b.handle(new Request('http://localhost/api/categories')))).items as unknown[]
      expect(await categoriesOfB()).toEqual([])
      await importRecords(a, { categories: [{ id: 'elsewhere', name: 'Elsewhere' }] })
      const started = Date.now()
      while ((await categoriesOfB()).length === 0 && Date.now() - started < 1500) await Bun.sleep(20)
      expect(await categoriesOfB()).toEqual([{ id: 'elsewhere', name: 'Elsewhere', description: '', icon: '', prompt_count: 0, subcategories: [] }])
      expect(Date.now() - started).toBeLessThan(1200)
    } finally {
      await storage.close()
    }
  })

  test('an unfinished word searched again after an import through another instance finds the new words at once', async () => {
    const a = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const { storage } = await openStorage(a.config)
    const b = createApp({ config: a.config, storage, log: a.log, jwtSecret: TEST_JWT_SECRET })
    try {
      const searchB = async (q: string) =>
        ((await json(await b.handle(new Request(`http://localhost/api/search?q=${q}`)))).items as { title: string }[]).map((p) => p.title).sort()
      await importRecords(a, {
        categories: [{ id: 'herd', name: 'Herd' }],
        prompts: [{ id: 'cccccccc-0000-4000-8000-000000000001', title: 'First quaggaland', category: 'herd', content: 'x' }],
      })
      // B remembers what "quagg" completes to; A's import then adds a word that starts with it.
      expect(await searchB('quagg')).toEqual(['First quaggaland'])
      await importRecords(a, { prompts: [{ id: 'cccccccc-0000-4000-8000-000000000002', title: 'Second quaggaroo', category: 'herd', content: 'y' }] })
      expect(await searchB('quagg')).toEqual(['First quaggaland', 'Second quaggaroo'])
      expect(await searchB('quagga')).toEqual(['First quaggaland', 'Second quaggaroo'])
    } finally {
      await storage.close()
    }
  })
})

describe.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL: a large catalogue', async () => {
  test('long contents and skill texts are stored with lz4 when the server has it, and read back exactly', async () => {
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const content = `${'Summarise the meeting notes below in five bullet points. '.repeat(300)}ü😀 end`
    await importRecords(p, {
      categories: [{ id: 'long', name: 'Long' }],
      prompts: [{ id: 'ffffffff-0000-4000-8000-000000000001', title: 'Long one', category: 'long', content }],
      skills: [{ name: 'long-skill', description: 'Long. Use when asked.', instructions: content }],
    })
    const lz4 = await sqlNumber(p.storage, "SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
    const method = lz4 ? 'lz4' : 'pglz'
    const [stored] = await sqlRows<{ prompt: string; instructions: string; files: string }>(
      p.storage,
      `SELECT (SELECT pg_column_compression(content) FROM prompts) AS prompt,
              (SELECT pg_column_compression(instructions) FROM skills) AS instructions,
              (SELECT attcompression FROM pg_attribute WHERE attrelid = 'skills'::regclass AND attname = 'files') AS files`,
    )
    expect(stored).toEqual({ prompt: method, instructions: method, files: lz4 ? 'l' : '' })
    expect((await json(await p.request('/api/prompts/ffffffff-0000-4000-8000-000000000001'))).content).toBe(content)
  })

  test('content-only matches are paged newest first, however far apart in age (window by window, then the rest at once)', async () => {
    const p = await makeTestApp()
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `eeeeeeee-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
        title: `Item ${from + i}`,
        category: 'far',
        content: `narwhal ${from + i}`,
      }))
    await importRecords(p, { categories: [{ id: 'far', name: 'Far' }], prompts: batch(0, 600) })
    // The next prompts get ids many search windows later (4,096 ids each).
    await sqlRun(p.storage, "SELECT setval(pg_get_serial_sequence('prompts', 'seq'), 60000)")
    await importRecords(p, { prompts: batch(600, 500) })
    const page = async (offset: number) => json(await p.request(`/api/search?q=narwhal&limit=100&offset=${offset}`))
    const first = await page(0)
    expect(first.total).toBe(1000)
    expect(first.items[0].title).toBe('Item 1099')
    const titles = [...first.items, ...(await page(400)).items, ...(await page(500)).items, ...(await page(900)).items].map(
      (i: { title: string }) => i.title,
    )
    expect(titles.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => `Item ${1099 - i}`))
    expect(titles.slice(100, 200)).toEqual(Array.from({ length: 100 }, (_, i) => `Item ${699 - i}`))
    expect(titles.slice(200, 300)).toEqual(Array.from({ length: 100 }, (_, i) => `Item ${599 - i}`))
    expect(titles.slice(300)).toEqual(Array.from({ length: 100 }, (_, i) => `Item ${199 - i}`))
  })

  test('after a large import the search rows are all-visible, even when commits are not flushed at once', async () => {
    // The suite's cluster runs with synchronous_commit = off (scripts/postgres.sh): VACUUM right
    // after the import's commit used to leave every page unmarked, each search then paying a
    // visibility check per candidate row.
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    expect(await sqlNumber(p.storage, "SELECT CASE WHEN current_setting('synchronous_commit') = 'off' THEN 1 ELSE 0 END")).toBe(1)
    await importRecords(p, {
      categories: [{ id: 'vis', name: 'Visible' }],
      prompts: Array.from({ length: 400 }, (_, i) => ({
        id: `ffffffff-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Visible ${i}`,
        category: 'vis',
        content: `walrus ${'text '.repeat(100)}`,
      })),
    })
    await p.services.catalogue.optimizeSearchIndex()
    const pages = await sqlNumber(p.storage, "SELECT relpages FROM pg_class WHERE relname = 'prompt_search'")
    expect(pages).toBeGreaterThan(5)
    expect(await sqlNumber(p.storage, "SELECT relallvisible FROM pg_class WHERE relname = 'prompt_search'")).toBe(pages)
  })

  test('an unfinished word typed again: its remembered completions, one statement each for matches and ranks, no lookup', async () => {
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    await importRecords(p, {
      categories: [{ id: 'herd', name: 'Herd' }],
      prompts: Array.from({ length: 5 }, (_, i) => ({
        id: `acacacac-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Quagga${i} herd`,
        category: 'herd',
        content: 'x',
      })),
    })
    const storage = p.storage as PgStorage
    const counted = { planned: 0, prepared: 0 }
    const count = (db: { execute: (...args: never[]) => unknown }, key: keyof typeof counted) => {
      const execute = db.execute.bind(db)
      db.execute = ((...args: never[]) => {
        counted[key]++
        return execute(...args)
      }) as typeof db.execute
    }
    count(storage.unprepared, 'planned')
    count(storage.db, 'prepared')
    const search = async () => (await json(await p.request('/api/search?q=quagg'))).total
    expect(await search()).toBe(5)
    expect(counted).toEqual({ planned: 2, prepared: 1 }) // the completions looked up once
    expect(await search()).toBe(5)
    expect(counted).toEqual({ planned: 4, prepared: 1 })
  })

  test('search statements are planned for their words, never as one prepared generic plan', async () => {
    // After five runs a prepared statement may switch to a generic plan; for search that plan
    // walked the table backwards through its primary key (50 ms a search on 100,000 prompts
    // instead of 3). One connection, so pg_prepared_statements shows everything it prepared.
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' }, {}, { poolSize: 1 })
    await importRecords(p, {
      categories: [{ id: 'plan', name: 'Plans' }],
      prompts: Array.from({ length: 30 }, (_, i) => ({
        id: `abababab-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: i % 2 ? `Okapi ${i}` : `Entry ${i}`,
        category: 'plan',
        content: `okapi quagga ${i}`,
      })),
      skills: [{ name: 'okapi-care', description: 'Feeds okapis. Use when asked.', instructions: '# Care okapi', category: 'plan' }],
    })
    const { token, user } = await register(p)
    await setTier(p, user.id, 'pro')
    for (let i = 0; i < 8; i++) {
      expect((await json(await p.request('/api/search?q=okapi&limit=5'))).total).toBe(30)
      expect((await json(await p.request('/api/search?q=quagga&limit=5&offset=20'))).items.length).toBe(5)
      expect((await p.request('/api/skills/search?q=okapi', { token })).status).toBe(200)
    }
    const prepared = await sqlRows<{ statement: string }>(p.storage, 'SELECT statement FROM pg_prepared_statements')
    expect(prepared.some((r) => r.statement.includes('prompts'))).toBe(true)
    expect(prepared.filter((r) => r.statement.includes('@@'))).toEqual([])
  })

  test('each listing order is read off its index, never sorted (drizzle-kit indexes .desc() as DESC NULLS LAST)', async () => {
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const { db } = p.storage as PgStorage
    for (const [sort, index] of [
      ['popular', 'prompts_popular'],
      ['newest', 'prompts_newest'],
      ['title', 'prompts_title'],
    ] as const) {
      const query = db
        .select({ seq: pgPrompts.seq })
        .from(pgPrompts)
        .where(eq(pgPrompts.categoryId, 'writing'))
        .orderBy(...LISTING_ORDER[sort])
        .limit(20)
        .toSQL()
      // With sorting priced out, a sort still appears when no index gives the order.
      const plan = await db.$client.begin(async (c) => {
        await c.unsafe('SET LOCAL enable_sort = off')
        return (await c.unsafe(`EXPLAIN ${query.sql}`, query.params as never[])).map((r) => String(r['QUERY PLAN']))
      })
      expect({ sort, uses: plan.some((line) => line.includes(index)) }).toEqual({ sort, uses: true })
      expect({ sort, sorts: plan.filter((line) => /^(->\s+)?Sort\s+\(/.test(line.trim())) }).toEqual({ sort, sorts: [] })
    }
  })

  test('the planner knows a subcategory belongs to one category (extended statistics, filled by ANALYZE)', async () => {
    // Without them it multiplied the two filters and sorted a whole subcategory from the heap
    // (17.5 ms against 0.13 ms read in order off prompts_popular, 3,381 prompts).
    const p = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    await importRecords(p, {
      categories: ['a', 'b'].map((id) => ({ id, name: id, subcategories: [1, 2].map((n) => ({ id: `${id}${n}`, name: `${id}${n}` })) })),
      prompts: Array.from({ length: 40 }, (_, i) => ({
        id: `efefefef-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Entry ${i}`,
        category: i % 2 ? 'a' : 'b',
        subcategory: `${i % 2 ? 'a' : 'b'}${(i >> 1) % 2 ? 1 : 2}`,
        content: 'text',
      })),
    })
    await p.services.catalogue.optimizeSearchIndex()
    const [stats] = await sqlRows<{ dependencies: string | null }>(
      p.storage,
      "SELECT dependencies::text FROM pg_stats_ext WHERE statistics_name = 'prompts_category_subcategory'",
    )
    expect(stats?.dependencies ?? '').toContain('=>')
  })
})
