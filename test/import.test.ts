// Importers: JSON catalogues, prompts.csv, Agent Skills folders; idempotent re-imports; a file
// with errors changes nothing; the CLI as a real process; the demo catalogue on first start.
import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import postgres from 'postgres'
import { loadConfig } from '../src/config'
import { openStorage } from '../src/db'
import { DATABASE_FILE, openDatabase } from '../src/db/sqlite/client'
import type { PgStorage, PgTx, Storage, Tx } from '../src/db/storage'
import { DEFER_INDEX_WORK_AFTER } from '../src/features/catalogue/import/file'
import { openPostgres } from '../src/db/postgres/client'
import { pgCatalogueStore } from '../src/features/catalogue/store.pg'
import { uuidV5 } from '../src/features/catalogue/text'
import { json, makeTestApp, processEnv, TEST_ENGINE, type TestApp, tempDir } from './support/app'
import { freshDatabaseUrl } from './support/postgres'
import { countRows } from './support/catalogue'
import { cli, cliAsync, startServer } from './support/process'
import { sqlNumber, sqlRows, withStorage } from './support/sql'

const FIXTURES = join(import.meta.dir, 'fixtures')
const fx = (name: string) => join(FIXTURES, name)

const importPaths = (t: TestApp, paths: string[], opts: { category?: string } = {}) => t.services.catalogue.importPaths(paths, opts)

/** Every prompt and skill is in the search index (SQLite: FTS5's own check; PostgreSQL: every search row and vector written). */
async function searchIndexIntact(storage: Storage): Promise<void> {
  if (storage.engine === 'sqlite') {
    await storage.write((db) => {
      db.$client.run("INSERT INTO prompts_fts(prompts_fts, rank) VALUES('integrity-check', 1)")
      db.$client.run("INSERT INTO prompts_head_fts(prompts_head_fts, rank) VALUES('integrity-check', 1)")
      db.$client.run("INSERT INTO skills_fts(skills_fts, rank) VALUES('integrity-check', 1)")
    })
    return
  }
  expect(await sqlNumber(storage, 'SELECT count(*) FROM prompts p WHERE NOT EXISTS (SELECT 1 FROM prompt_search s WHERE s.prompt_seq = p.seq)')).toBe(
    0,
  )
  expect(await sqlNumber(storage, 'SELECT count(*) FROM skills WHERE search IS NULL')).toBe(0)
}

const searchTotal = async (t: TestApp, q: string) => (await json(await t.request(`/api/search?q=${encodeURIComponent(q)}`))).total as number

/** A storage on the database a process environment (processEnv) names. */
const storageOf = async (env: Record<string, string>) => (await openStorage(loadConfig(env))).storage

describe('JSON catalogue', async () => {
  test('imports categories, subcategories, prompts and skills; a second run changes nothing', async () => {
    const t = await makeTestApp()
    const [first] = await importPaths(t, [fx('catalogue-good.json')])
    expect(first!.errors).toEqual([])
    expect(first).toMatchObject({ kind: 'json', created: 6, updated: 0, unchanged: 0 })
    expect(await countRows(t, 'prompts')).toBe(3)
    expect(await countRows(t, 'subcategories')).toBe(3)
    expect(await countRows(t, 'skills')).toBe(1)
    const [tags] = await sqlRows<{ tags: string }>(t.storage, 'SELECT tags FROM prompts WHERE id = $1', ['11111111-1111-4111-8111-111111111111'])
    expect(tags!.tags).toBe('onboarding email-marketing')
    const [again] = await importPaths(t, [fx('catalogue-good.json')])
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 6 })
    expect(await countRows(t, 'prompts')).toBe(3)
    await searchIndexIntact(t.storage)
  })

  test('a changed record is updated in place and re-indexed', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    expect(await searchTotal(t, 'correctness')).toBe(1)
    const data = JSON.parse(readFileSync(fx('catalogue-good.json'), 'utf8'))
    data.prompts[2].content = 'Review this merge request for zanzibar-grade security.'
    const file = join(t.dataDir, 'changed.json')
    writeFileSync(file, JSON.stringify(data))
    const [r] = await importPaths(t, [file])
    expect(r).toMatchObject({ updated: 1, unchanged: 5, created: 0 })
    expect(await countRows(t, 'prompts')).toBe(3)
    await searchIndexIntact(t.storage)
    expect(await searchTotal(t, 'zanzibar')).toBe(1)
    expect(await searchTotal(t, 'correctness')).toBe(0)
  })

  test('a bad record is refused alone: the rest of the file is imported, each problem reported with its line', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    const [r] = await importPaths(t, [fx('catalogue-bad.json')])
    expect(r).toMatchObject({ refused: false, failed: 2, updated: 1, created: 0 })
    const text = readFileSync(fx('catalogue-bad.json'), 'utf8') as string
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) // the record's "{" is one line above
    expect(r!.errors).toContainEqual({
      file: fx('catalogue-bad.json'),
      line: lineOf('"id": "not-a-uuid"'),
      message: expect.stringContaining('"id" must be a UUID'),
    })
    expect(r!.errors).toContainEqual(
      expect.objectContaining({ line: lineOf('"id": "not-a-uuid"'), message: expect.stringContaining('"title" must not be empty') }),
    )
    expect(r!.errors).toContainEqual(
      expect.objectContaining({ line: lineOf('44444444-4444'), message: expect.stringContaining('unknown category "no-such-category"') }),
    )
    expect(r!.warnings).toContainEqual(expect.objectContaining({ message: expect.stringContaining('unknown field "colour"') }))
    const [row] = await sqlRows<{ title: string }>(t.storage, 'SELECT title FROM prompts WHERE id = $1', ['11111111-1111-4111-8111-111111111111'])
    expect(row!.title).toBe('Welcome email sequence (changed)')
    expect(await countRows(t, 'prompts')).toBe(3)
  })

  test('a syntax error midway refuses the whole file: nothing of it is written, even the records before it', async () => {
    const t = await makeTestApp()
    const good = JSON.parse(readFileSync(fx('catalogue-good.json'), 'utf8'))
    const text = `${JSON.stringify(good, null, 2).replace(/\n\s*\]\s*\}\s*$/, '')},\n    {"title": oops}\n  ]\n}\n`
    const file = join(t.dataDir, 'broken-late.json')
    writeFileSync(file, text)
    const [r] = await importPaths(t, [file])
    expect(r).toMatchObject({ refused: true, created: 0, updated: 0, unchanged: 0, failed: 0 })
    expect(r!.errors).toEqual([{ file, line: text.split('\n').length - 3, message: 'not valid JSON: column 15: expected a value, found "o"' }])
    expect(await countRows(t, 'prompts')).toBe(0)
    expect(await countRows(t, 'categories')).toBe(0)
  })

  test('prompts may come before the categories they name; duplicate ids refuse the later record', async () => {
    const t = await makeTestApp()
    const text = [
      '{"format": "promptlib-catalogue", "version": 1,',
      '"prompts": [',
      '  {"id": "abcdef00-0000-4000-8000-000000000001", "title": "Early", "category": "later", "subcategory": "sub", "content": "x"},',
      '  {"id": "abcdef00-0000-4000-8000-000000000002", "title": "Lost", "category": "nowhere", "content": "x"},',
      '  {"id": "ABCDEF00-0000-4000-8000-000000000001", "title": "Again", "category": "later", "content": "x"}',
      '],',
      '"categories": [{"id": "later", "name": "Later", "subcategories": [{"id": "sub", "name": "Sub"}]}]}',
    ].join('\n')
    const file = join(t.dataDir, 'order.json')
    writeFileSync(file, text)
    const [r] = await importPaths(t, [file])
    expect(r).toMatchObject({ created: 2, failed: 2 })
    expect(r!.errors).toEqual([
      { file, line: 5, message: 'prompts[2]: duplicate prompt id "abcdef00-0000-4000-8000-000000000001" in this file (first on line 3)' },
      { file, line: 4, message: 'prompts[1]: prompt abcdef00-0000-4000-8000-000000000002: unknown category "nowhere" (define it in "categories")' },
    ])
    expect(await sqlRows(t.storage, 'SELECT title, category_id, subcategory_id FROM prompts')).toEqual([
      { title: 'Early', category_id: 'later', subcategory_id: 'sub' },
    ])
  })

  // It was read again once its category was known, and its warnings were reported again.
  test('a prompt that comes before its category has its warnings reported once', async () => {
    const t = await makeTestApp()
    const file = join(t.dataDir, 'warned.json')
    writeFileSync(
      file,
      '{"format":"promptlib-catalogue","version":1,"prompts":[{"id":"abcdef00-0000-4000-8000-00000000000a","title":"P","category":"k","content":"c","extra":1}],"categories":[{"id":"k","name":"K"}]}',
    )
    const [r] = await importPaths(t, [file])
    expect(r).toMatchObject({ created: 2, failed: 0 })
    expect(r!.warnings.map((w) => w.message)).toEqual(['prompts[0]: unknown field "extra" ignored'])
  })

  test('a dry run reports what the import would do and writes nothing', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    const before = await sqlRows(t.storage, 'SELECT id, title, updated_at FROM prompts ORDER BY id')
    const [r] = await t.services.catalogue.importPaths([fx('catalogue-bad.json')], { dryRun: true })
    expect(r).toMatchObject({ refused: false, failed: 2, updated: 1 })
    expect(await sqlRows(t.storage, 'SELECT id, title, updated_at FROM prompts ORDER BY id')).toEqual(before)
    expect(await countRows(t, 'skills')).toBe(1)
  })

  test('prompts may use categories and subcategories stored earlier, not unknown subcategories', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    const prompt = (id: string, subcategory: string) => ({ id, title: `Later ${subcategory}`, category: 'marketing', subcategory, content: 'x' })
    const ok = await t.services.catalogue.importCatalogueData(
      { format: 'promptlib-catalogue', version: 1, prompts: [prompt('aaaaaaaa-1111-4111-8111-000000000001', 'social')] },
      { file: 'ok' },
    )
    expect(ok).toMatchObject({ created: 1, errors: [] })
    // The file re-describes the category without the stored subcategory: the stored one still counts.
    const redescribed = await t.services.catalogue.importCatalogueData(
      {
        format: 'promptlib-catalogue',
        version: 1,
        categories: [{ id: 'marketing', name: 'Marketing', order: 1, subcategories: [{ id: 'ads', name: 'Ads' }] }],
        prompts: [prompt('aaaaaaaa-1111-4111-8111-000000000002', 'email'), prompt('aaaaaaaa-1111-4111-8111-000000000003', 'ads')],
      },
      { file: 'redescribed' },
    )
    expect(redescribed.errors).toEqual([])
    const bad = await t.services.catalogue.importCatalogueData(
      { format: 'promptlib-catalogue', version: 1, prompts: [prompt('aaaaaaaa-1111-4111-8111-000000000004', 'nope')] },
      { file: 'bad' },
    )
    expect(bad.errors.map((e) => e.message)).toEqual([expect.stringContaining('category "marketing" has no subcategory "nope"')])
  })

  test('timestamps are compared on their own: new ones alone update the record; none keep the stored ones', async () => {
    const t = await makeTestApp()
    const id = 'abcdef00-1111-4111-8111-000000000001'
    const catalogue = (times: Record<string, string>) => ({
      categories: [{ id: 'times', name: 'Times', ...times }],
      prompts: [{ id, title: 'Dated', category: 'times', content: 'x', ...times }],
    })
    const importData = (data: object) =>
      t.services.catalogue.importCatalogueData({ format: 'promptlib-catalogue', version: 1, ...data }, { file: 'f' })
    const times = { created_at: '2024-01-02T03:04:05.678Z', updated_at: '2024-02-03T04:05:06.789Z' }
    expect(await importData(catalogue(times))).toMatchObject({ created: 2, errors: [] })
    expect(await importData(catalogue(times))).toMatchObject({ unchanged: 2 })
    expect(await importData(catalogue({}))).toMatchObject({ unchanged: 2 })
    const later = { created_at: '2024-01-02T03:04:05.678Z', updated_at: '2025-05-05T05:05:05.555Z' }
    expect(await importData(catalogue(later))).toMatchObject({ updated: 2, unchanged: 0 })
    const stored = async (table: string) =>
      (await sqlRows<{ c: number | Date; u: number | Date }>(t.storage, `SELECT created_at AS c, updated_at AS u FROM ${table}`)).map((r) => [
        new Date(r.c).toISOString(),
        new Date(r.u).toISOString(),
      ])
    expect(await stored('prompts')).toEqual([[later.created_at, later.updated_at]])
    expect(await stored('categories')).toEqual([[later.created_at, later.updated_at]])
  })

  // PostgreSQL cannot read JavaScript's ISO string for year 0 or past 9999: such a file failed whole
  // there, with the failing statement and its rows on the terminal, and was stored on SQLite.
  test('a time outside years 1 to 9999 (in UTC) fails just its record, naming the field, on JSON and CSV files', async () => {
    const t = await makeTestApp()
    const dir = tempDir('promptlib-import-times-')
    const id = (n: number) => `abcdef00-2222-4222-8222-00000000000${n}`
    const prompt = (n: number, created_at: string) => ({ id: id(n), title: `Time ${n}`, category: 'times', content: 'x', created_at })
    const jsonFile = join(dir, 'times.json')
    writeFileSync(
      jsonFile,
      JSON.stringify({
        format: 'promptlib-catalogue',
        version: 1,
        categories: [{ id: 'times', name: 'Times' }],
        prompts: [
          prompt(1, '9999-12-31T23:00:00-05:00'),
          prompt(2, '0000-01-01T00:00:00Z'),
          prompt(3, '9999-12-31T23:59:59.999Z'),
          prompt(4, '0001-01-01T00:00:00Z'),
        ],
      }),
    )
    const csvFile = join(dir, 'times.csv')
    writeFileSync(
      csvFile,
      `act,prompt,id,category,created_at\nLate,x,${id(5)},times,9999-12-31T23:00:00-05:00\nFine,y,${id(6)},times,2020-01-01T00:00:00Z\n`,
    )
    const [fromJson, fromCsv] = await importPaths(t, [jsonFile, csvFile])
    expect(fromJson).toMatchObject({ created: 3, failed: 2 })
    expect(fromJson!.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('"created_at" must fall in the years 1 to 9999 (in UTC)'),
      expect.stringContaining('"created_at" must fall in the years 1 to 9999 (in UTC)'),
    ])
    expect(fromCsv).toMatchObject({ created: 1, failed: 1 })
    expect(fromCsv!.errors).toEqual([
      expect.objectContaining({ line: 2, message: expect.stringContaining('"created_at" must fall in the years 1 to 9999') }),
    ])
    const stored = await sqlRows<{ id: string; c: number | Date }>(
      t.storage,
      "SELECT id, created_at AS c FROM prompts WHERE category_id = 'times' ORDER BY id",
    )
    expect(stored.map((r) => [r.id, new Date(r.c).toISOString()])).toEqual([
      [id(3), '9999-12-31T23:59:59.999Z'],
      [id(4), '0001-01-01T00:00:00.000Z'],
      [id(6), '2020-01-01T00:00:00.000Z'],
    ])
  })

  // PostgreSQL writes a timestamptz as "0042-03-04 05:06:07.89+00", which JavaScript read as 1942;
  // in a database whose time zone is Paris, 1850 came with "+00:09:21", which it did not read at all.
  test('old times are served exactly as imported, whatever the database’s time zone', async () => {
    const url = await freshDatabaseUrl()
    if (url) {
      const database = new URL(url).pathname.slice(1)
      const admin = postgres(url, { max: 1, onnotice: () => {} })
      await admin.unsafe(`ALTER DATABASE "${database}" SET timezone TO 'Europe/Paris'`)
      await admin.end()
    }
    const t = await makeTestApp({}, url ? { databaseUrl: url } : {})
    const times = ['0001-01-01T00:00:00.000Z', '0042-03-04T05:06:07.890Z', '1850-01-01T00:00:00.000Z', '2024-06-30T22:30:00.001Z']
    const report = await t.services.catalogue.importCatalogueData(
      {
        format: 'promptlib-catalogue',
        version: 1,
        categories: [{ id: 'old', name: 'Old' }],
        prompts: times.map((created_at, i) => ({
          id: `abcdef00-3333-4333-8333-00000000000${i}`,
          title: `Old ${i}`,
          category: 'old',
          content: 'x',
          created_at,
        })),
      },
      { file: 'old.json' },
    )
    expect(report).toMatchObject({ created: 5, errors: [] })
    const page = await json(await t.request('/api/categories/old/prompts?sort=title'))
    expect(page.items.map((p: { created_at: string }) => p.created_at)).toEqual(times)
    if (t.storage.engine === 'postgres') {
      expect([...(await t.storage.db.$client`SELECT current_setting('TimeZone') AS zone`)]).toEqual([{ zone: 'UTC' }])
    }
  })

  test('a hash stored under an earlier rule: the same text is unchanged, and only the hash is written again', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    const before = await sqlRows(t.storage, 'SELECT id, updated_at FROM prompts ORDER BY id')
    await sqlRows(t.storage, "UPDATE prompts SET source_hash = 'from-an-older-rule'")
    const [again] = await importPaths(t, [fx('catalogue-good.json')])
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 6 })
    expect(await sqlRows(t.storage, 'SELECT id, updated_at FROM prompts ORDER BY id')).toEqual(before)
    expect(await sqlNumber(t.storage, "SELECT count(*) FROM prompts WHERE source_hash = 'from-an-older-rule'")).toBe(0)
  })

  test('not JSON, or not our format, is one clear error', async () => {
    const t = await makeTestApp()
    writeFileSync(join(t.dataDir, 'broken.json'), '{"format": "promptlib-catalogue", ')
    writeFileSync(join(t.dataDir, 'other.json'), '{"hello": "world"}')
    const [broken, other] = await importPaths(t, [join(t.dataDir, 'broken.json'), join(t.dataDir, 'other.json')])
    expect(broken!.errors[0]!.message).toContain('not valid JSON')
    expect(other!.errors[0]!.message).toContain('not a promptlib catalogue')
  })
})

describe('prompts.csv', async () => {
  test('BOM, CRLF, quoted commas, doubled quotes and line breaks; categories by for_devs; the type column as the type', async () => {
    const t = await makeTestApp()
    const [r] = await importPaths(t, [fx('prompts.csv')])
    expect(r!.errors).toEqual([])
    expect(r).toMatchObject({ kind: 'csv', created: 3 })
    const rows = await sqlRows<Record<string, string>>(t.storage, 'SELECT id, title, content, category_id, tags, type FROM prompts ORDER BY title')
    expect(rows.map((x) => [x.title, x.category_id, x.tags, x.type])).toEqual([
      ['Linux Terminal', 'coding', '', 'text'],
      ['Storyteller, Kind', 'general', '', 'text'],
      ['Travel Guide', 'general', '', 'structured'],
    ])
    expect(rows[1]!.content).toBe('I want you to act as a storyteller.\r\nCome up with "entertaining" stories, short and engaging.')
    expect(rows[2]!.content).toBe('I want you to act as a travel guide, suggesting places near {{location}}.')
    expect(rows[0]!.id).toBe(uuidV5('coding\nLinux Terminal'))
    expect(await countRows(t, 'categories')).toBe(2)
    const [again] = await importPaths(t, [fx('prompts.csv')])
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 3 })
    await searchIndexIntact(t.storage)
  })

  test('--category puts every row there (created when missing)', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('prompts.csv')], { category: 'roleplay' })
    expect(await sqlRows(t.storage, 'SELECT DISTINCT category_id FROM prompts')).toEqual([{ category_id: 'roleplay' }])
    expect((await json(await t.request('/api/categories'))).items).toEqual([
      { id: 'roleplay', name: 'Roleplay', description: '', icon: '📁', prompt_count: 3, subcategories: [] },
    ])
  })

  test('lengths count characters as people do: a title of 200 emoji fits, 201 do not (JSON and CSV alike)', async () => {
    const t = await makeTestApp()
    const emoji = (n: number) => '😀'.repeat(n)
    const csv = join(t.dataDir, 'emoji.csv')
    writeFileSync(csv, `act,prompt\n${emoji(200)},fits\n${emoji(201)},too long\n`)
    const [fromCsv] = await importPaths(t, [csv], { category: 'emoji' })
    expect(fromCsv).toMatchObject({ created: 1, failed: 1 })
    expect(fromCsv!.errors.map((e) => [e.line, e.message])).toEqual([[3, '"act" is longer than 200 characters']])
    const file = join(t.dataDir, 'emoji.json')
    const prompt = (n: number, title: string) => ({ id: `eeeeeeee-0000-4000-8000-00000000000${n}`, title, category: 'emoji', content: 'x' })
    writeFileSync(file, JSON.stringify({ format: 'promptlib-catalogue', version: 1, prompts: [prompt(1, emoji(200)), prompt(2, `${emoji(200)}a`)] }))
    const [fromJson] = await importPaths(t, [file])
    expect(fromJson).toMatchObject({ created: 1, failed: 1 })
    expect(fromJson!.errors[0]!.message).toContain('"title" is longer than 200 characters')
    const titles = (await sqlRows<{ title: string }>(t.storage, 'SELECT title FROM prompts ORDER BY title')).map((r) => r.title)
    expect(titles).toEqual([emoji(200), emoji(200)])
  })

  test('a bad row is refused alone, with its line; the other rows are imported', async () => {
    const t = await makeTestApp()
    const [r] = await importPaths(t, [fx('prompts-bad.csv')])
    expect(r!.errors).toEqual([
      { file: fx('prompts-bad.csv'), line: 6, message: 'expected 5 fields, found 2' },
      { file: fx('prompts-bad.csv'), line: 7, message: '"prompt" (the content) is empty' },
    ])
    expect(r).toMatchObject({ created: 3, failed: 2, refused: false })
    expect(await countRows(t, 'prompts')).toBe(3)
  })

  test('a wrong header, or a quote that never closes, refuses the whole file', async () => {
    const t = await makeTestApp()
    const header = join(t.dataDir, 'header.csv')
    writeFileSync(header, 'title,text\n"A","B"\n')
    const open = join(t.dataDir, 'open.csv')
    writeFileSync(open, 'act,prompt\n"Fine","row"\n"Open","never closed\nNext,row\n')
    const [h, o] = await importPaths(t, [header, open])
    expect(h).toMatchObject({
      refused: true,
      errors: [{ file: header, line: 1, message: 'the header must name the columns "act" and "prompt" (found: title, text)' }],
    })
    expect(o).toMatchObject({ refused: true, created: 0, errors: [{ file: open, line: 3, message: 'a quoted field is never closed (missing ")' }] })
    expect(await countRows(t, 'prompts')).toBe(0)
  })

  test('the columns an export writes: id, description, category, subcategory, tags, type and timestamps, kept exactly', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    const file = join(t.dataDir, 'export.csv')
    writeFileSync(
      file,
      'act,prompt,type,id,description,category,subcategory,tags,created_at,updated_at\n' +
        '"  Spaced title ","  body kept  ",IMAGE,abcdef00-0000-4000-8000-0000000000c1," exact ",marketing,email,"a-tag,other",2024-01-01T00:00:00.000Z,2024-02-01T00:00:00.000Z\n' +
        'Plain,Body,,,,,,,,\n',
    )
    const [r] = await importPaths(t, [file])
    expect(r).toMatchObject({ created: 2, failed: 0, errors: [] })
    const rows = await sqlRows<Record<string, unknown>>(
      t.storage,
      "SELECT id, title, content, description, category_id, subcategory_id, tags, type, created_at, updated_at FROM prompts WHERE title IN ('  Spaced title ', 'Plain') ORDER BY title",
    )
    const iso = (value: unknown) => new Date(value as number).toISOString()
    expect(rows.map((row): Record<string, unknown> => ({ ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) }))).toEqual([
      {
        id: 'abcdef00-0000-4000-8000-0000000000c1',
        title: '  Spaced title ',
        content: '  body kept  ',
        description: ' exact ',
        category_id: 'marketing',
        subcategory_id: 'email',
        tags: 'a-tag other',
        type: 'image',
        created_at: '2024-01-01T00:00:00.000Z',
        updated_at: '2024-02-01T00:00:00.000Z',
      },
      {
        id: uuidV5('general\nPlain'),
        title: 'Plain',
        content: 'Body',
        description: '',
        category_id: 'general',
        subcategory_id: null,
        tags: '',
        type: 'text',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ])
  })

  test('more rows than one write step: every one stored, searchable and counted', async () => {
    const t = await makeTestApp()
    const file = join(t.dataDir, 'many.csv')
    writeFileSync(file, `act,prompt\n${Array.from({ length: 2500 }, (_, i) => `"Act ${i}","Write about okapi number ${i}"`).join('\n')}\n`)
    const progress: number[] = []
    const [r] = await t.services.catalogue.importPaths([file], { onProgress: (_, { records }) => progress.push(records) })
    expect(r).toMatchObject({ created: 2500, errors: [] })
    // Progress record by record, up to the end.
    expect(progress).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1))
    expect(await searchTotal(t, 'okapi')).toBe(1000)
    expect((await json(await t.request('/api/categories/general'))).prompt_count).toBe(2500)
    await searchIndexIntact(t.storage)
  })
})

const PG_INDEXES_AND_KEYS = `
  SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename IN ('prompts', 'prompt_tags', 'prompt_search')
  UNION ALL
  SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN ('prompts', 'prompt_tags', 'prompt_search')
  ORDER BY name`

describe.if(TEST_ENGINE === 'postgres')('PostgreSQL: a large import sets indexes and keys aside only where that is safe', () => {
  type Row = { name: string; definition: string }
  const inTx = async (tx: Tx) => [...((await (tx.db as PgTx).execute(sql.raw(PG_INDEXES_AND_KEYS))) as unknown as Row[])]
  const names = (rows: Row[]) => rows.map((r) => r.name)

  test('alone on an empty catalogue: dropped in the transaction, built again exactly by the undo', async () => {
    const t = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const store = pgCatalogueStore(t.storage as PgStorage)
    const before = [...(await sqlRows<Row>(t.storage, PG_INDEXES_AND_KEYS))]
    expect(names(before)).toEqual(expect.arrayContaining(['prompt_search_words', 'prompts_popular', 'prompt_tags_prompt_seq_prompts_seq_fk']))
    await t.storage.transaction(async (tx) => {
      const undo = await store.deferIndexes(tx, DEFER_INDEX_WORK_AFTER)
      // what the import's own statements need stays: the keys that make ids unique
      expect(names(await inTx(tx))).toEqual(['prompt_search_pkey', 'prompt_tags_tag_prompt_seq_pk', 'prompts_id_unique', 'prompts_pkey'])
      // a timeout meant for requests does not stop the builds
      await (tx.db as PgTx).execute(sql`SET LOCAL statement_timeout = 1`)
      await undo()
      expect(await inTx(tx)).toEqual(before)
    })
    expect([...(await sqlRows(t.storage, PG_INDEXES_AND_KEYS))]).toEqual(before)
  })

  test('with another process on the database (a server), or a catalogue larger than the file, nothing is dropped', async () => {
    const t = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const store = pgCatalogueStore(t.storage as PgStorage)
    const before = [...(await sqlRows<Row>(t.storage, PG_INDEXES_AND_KEYS))]
    const other = postgres(t.config.databaseUrl!, { max: 1, onnotice: () => {} })
    try {
      await other`SELECT 1`
      await t.storage.transaction(async (tx) => {
        await (await store.deferIndexes(tx, DEFER_INDEX_WORK_AFTER))()
        expect(await inTx(tx)).toEqual(before)
      })
    } finally {
      await other.end({ timeout: 5 })
    }
    await importPaths(t, [fx('catalogue-good.json')])
    await t.storage.transaction(async (tx) => {
      await store.deferIndexes(tx, 1)
      expect(await inTx(tx)).toEqual(before)
    })
  })

  test('an import by a role that may write rows but does not own the tables: nothing is dropped, nothing fails', async () => {
    const t = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const before = [...(await sqlRows<Row>(t.storage, PG_INDEXES_AND_KEYS))]
    const role = `plib_writer_${process.pid}`
    await sqlRows(t.storage, `DROP ROLE IF EXISTS ${role}`)
    await sqlRows(t.storage, `CREATE ROLE ${role} LOGIN`)
    try {
      await sqlRows(t.storage, `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`)
      await sqlRows(t.storage, `GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`)
      const url = new URL(t.config.databaseUrl!)
      url.username = role
      const writer = openPostgres(url.toString(), { max: 2 })
      try {
        await writer.transaction(async (tx) => {
          await (await pgCatalogueStore(writer).deferIndexes(tx, DEFER_INDEX_WORK_AFTER))()
          expect(await inTx(tx)).toEqual(before)
        })
      } finally {
        await writer.close()
      }
    } finally {
      await sqlRows(t.storage, `DROP OWNED BY ${role}`)
      await sqlRows(t.storage, `DROP ROLE ${role}`)
    }
  })
})

describe('a large file into an empty catalogue', async () => {
  // More prompts than DEFER_INDEX_WORK_AFTER: inside the file's transaction, SQLite drops the listing
  // indexes and PostgreSQL every secondary index and foreign key of the prompt tables (alone on the
  // database, as a test app is), to build them again at its end (CatalogueStore.deferIndexes).
  const count = DEFER_INDEX_WORK_AFTER + 500
  const id = (i: number) => `dededede-0000-4000-8000-${String(i).padStart(12, '0')}`
  const catalogue = JSON.stringify({
    format: 'promptlib-catalogue',
    version: 1,
    categories: [
      { id: 'even', name: 'Even', subcategories: [{ id: 'tens', name: 'Tens' }] },
      { id: 'odd', name: 'Odd' },
    ],
    prompts: Array.from({ length: count }, (_, i) => ({
      id: id(i),
      title: `Title ${String((i * 7919) % count).padStart(6, '0')}`,
      category: i % 2 ? 'odd' : 'even',
      ...(i % 10 === 0 ? { subcategory: 'tens' } : {}),
      content: `Body ${i} about the wombat`,
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    })),
    skills: [],
  })
  const indexes = (t: TestApp) =>
    t.storage.engine === 'sqlite'
      ? sqlRows(t.storage, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('prompts', 'prompt_tags') ORDER BY name")
      : sqlRows(t.storage, PG_INDEXES_AND_KEYS)
  const page = async (t: TestApp, query: string) =>
    (await json(await t.request(`/api/categories/even/prompts?${query}`))) as { total: number; items: { id: string; title: string }[] }

  test('a dry run, and a file refused at its very end, leave every index as it was; the import then builds them all again, exactly', async () => {
    const t = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    const before = await indexes(t)
    expect(before.length).toBeGreaterThanOrEqual(5)
    const file = join(t.dataDir, 'large.json')
    writeFileSync(file, catalogue)
    const broken = join(t.dataDir, 'large-broken.json')
    writeFileSync(broken, catalogue.replace(/\],"skills":\[\]\}$/, ',{"title": oops}]}'))

    const [dry] = await t.services.catalogue.importPaths([file], { dryRun: true })
    expect(dry).toMatchObject({ refused: false, created: count + 2, failed: 0 })
    const [refused] = await importPaths(t, [broken])
    expect(refused).toMatchObject({ refused: true, created: 0 })
    expect(await countRows(t, 'prompts')).toBe(0)
    expect(await indexes(t)).toEqual(before)
    // The search words were set aside for the refused file's end (SQLite), and that went with its rollback:
    // a small file's words are listed as it writes them.
    const small = join(t.dataDir, 'small.json')
    writeFileSync(
      small,
      JSON.stringify({
        format: 'promptlib-catalogue',
        version: 1,
        categories: [{ id: 'aside', name: 'Aside' }],
        prompts: [{ id: id(count + 1), title: 'Small', category: 'aside', content: 'the quollish word' }],
      }),
    )
    expect((await importPaths(t, [small]))[0]).toMatchObject({ refused: false, created: 2 })
    expect(await sqlNumber(t.storage, "SELECT count(*) FROM prompt_words WHERE word IN ('quollish', 'wombat')")).toBe(1)

    const [r] = await importPaths(t, [file])
    expect(r).toMatchObject({ refused: false, created: count + 2, failed: 0 })
    expect(await indexes(t)).toEqual(before)
    if (t.storage.engine === 'sqlite') expect(await sqlRows(t.storage, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }])
    await searchIndexIntact(t.storage)
    // Its content's words complete an unfinished word (read from the whole index at its end on SQLite).
    expect(await sqlNumber(t.storage, "SELECT count(*) FROM prompt_words WHERE word IN ('quollish', 'wombat')")).toBe(2)
    expect((await json(await t.request('/api/search?q=womba'))).total).toBe(1000)

    // Each listing order and filter reads what was imported.
    const evens = Math.ceil(count / 2)
    const newest = await page(t, 'sort=newest&limit=3')
    expect(newest.total).toBe(evens)
    const lastEven = count % 2 ? count - 1 : count - 2
    expect(newest.items.map((p) => p.id)).toEqual([id(lastEven), id(lastEven - 2), id(lastEven - 4)])
    const byTitle = (await page(t, 'sort=title&limit=100')).items.map((p) => p.title)
    expect(byTitle).toEqual([...byTitle].sort())
    expect((await page(t, 'sort=popular&limit=1')).items[0]!.id).toBe(id(lastEven))
    expect((await page(t, 'subcategory=tens&limit=1')).total).toBe(Math.ceil(count / 10))
    expect(await searchTotal(t, 'wombat')).toBe(1000)
  }, 60_000)
})

describe('Agent Skills folders', async () => {
  test('a folder of skills: block-scalar description, files listed, warnings kept, the broken one refused alone', async () => {
    const t = await makeTestApp()
    const reports = await importPaths(t, [fx('skills')])
    const by = (name: string) => reports.find((r) => r.file.includes(`/${name}/`))!
    expect(by('pdf-tools')).toMatchObject({ created: 1, errors: [], warnings: [] })
    expect(by('loose-rules')).toMatchObject({ created: 1, errors: [] })
    expect(by('loose-rules').warnings.map((w) => w.message)).toEqual([
      'unknown field "homepage" ignored',
      expect.stringContaining('the limit is 1024'),
    ])
    expect(by('broken-skill').created).toBe(0)
    expect(by('broken-skill').errors.map((e) => [e.line, e.message])).toEqual([
      [2, expect.stringContaining('"name" must be kebab-case')],
      [1, expect.stringContaining('"description" is required')],
    ])
    const [pdf] = await sqlRows<Record<'description' | 'files' | 'allowed_tools' | 'category' | 'tags' | 'license' | 'instructions', string>>(
      t.storage,
      'SELECT * FROM skills WHERE id = $1',
      ['pdf-tools'],
    )
    expect(pdf!.description).toBe(
      'Extracts text and tables from PDF files, fills PDF forms and merges documents. Use when the user works with PDF files.',
    )
    expect(JSON.parse(pdf!.files)).toEqual(['assets/template.pdf', 'references/forms.md', 'scripts/extract.py'])
    expect(JSON.parse(pdf!.allowed_tools)).toEqual(['Read', 'Bash(python scripts/extract.py:*)'])
    expect(pdf!.category).toBe('coding')
    expect(pdf!.tags).toBe('pdf documents')
    expect(pdf!.license).toBe('Apache-2.0')
    expect(pdf!.instructions.startsWith('# PDF tools')).toBe(true)
    expect(await countRows(t, 'skills')).toBe(2)
    // Re-import: the name is the key.
    const again = await importPaths(t, [fx('skills/pdf-tools')])
    expect(again[0]).toMatchObject({ unchanged: 1 })
    await searchIndexIntact(t.storage)
  })

  test('links to skill folders are followed; a skill without a body is a warning, and its JSON export imports again', async () => {
    const t = await makeTestApp()
    const dir = join(t.dataDir, 'linked')
    mkdirSync(join(t.dataDir, 'elsewhere', 'empty-body'), { recursive: true })
    writeFileSync(join(t.dataDir, 'elsewhere', 'empty-body', 'SKILL.md'), '---\nname: empty-body\ndescription: Nothing yet. Use never.\n---\n\n')
    mkdirSync(dir)
    symlinkSync(join(t.dataDir, 'elsewhere', 'empty-body'), join(dir, 'empty-body'))
    symlinkSync(join(t.dataDir, 'nowhere'), join(dir, 'dangling'))
    const [report] = await importPaths(t, [dir])
    expect(report).toMatchObject({ created: 1, errors: [] })
    expect(report!.warnings.map((w) => w.message)).toEqual([expect.stringContaining('the instructions (the body after the front matter) are empty')])
    const out = join(t.dataDir, 'export.json')
    const chunks: string[] = []
    await t.services.catalogue.exportCatalogue({ format: 'json' }, (text) => void chunks.push(text))
    writeFileSync(out, chunks.join(''))
    const copy = await makeTestApp()
    const [again] = await importPaths(copy, [out])
    expect(again).toMatchObject({ created: 1, failed: 0, errors: [] })
    expect(again!.warnings.map((w) => w.message)).toEqual([expect.stringContaining('"instructions" is empty')])
    const skill = async (app: TestApp) => (await sqlRows(app.storage, 'SELECT id, description, instructions FROM skills'))[0]
    expect(await skill(copy)).toEqual(await skill(t))
  })

  // The later folder replaced the earlier one's skill on every import, and a re-import was never unchanged.
  test('two folders with one skill name: the first is imported, the second refused naming the first; a re-import changes nothing', async () => {
    const t = await makeTestApp()
    const dir = join(t.dataDir, 'twins')
    for (const [folder, description] of [
      ['a-twin', 'The first. Use first.'],
      ['b-twin', 'The second. Use second.'],
    ]) {
      mkdirSync(join(dir, folder!), { recursive: true })
      writeFileSync(join(dir, folder!, 'SKILL.md'), `---\nname: twin\ndescription: ${description}\n---\nBody\n`)
    }
    const reports = await importPaths(t, [dir])
    expect(reports.map((r) => [r.created, r.updated, r.failed])).toEqual([
      [1, 0, 0],
      [0, 0, 1],
    ])
    expect(reports[1]!.errors.map((e) => e.message)).toEqual(['duplicate skill name "twin": a-twin has it too, and only the first is imported'])
    expect(await sqlRows(t.storage, 'SELECT description FROM skills')).toEqual([{ description: 'The first. Use first.' }])
    const again = await importPaths(t, [dir])
    expect(again.map((r) => [r.created, r.updated, r.unchanged, r.failed])).toEqual([
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ])
  })

  test('a name that differs from its folder is a warning; malformed YAML an error with its line', async () => {
    const t = await makeTestApp()
    const dir = t.dataDir
    mkdirSync(join(dir, 'folder-name'))
    writeFileSync(join(dir, 'folder-name', 'SKILL.md'), '---\nname: other-name\ndescription: Does things. Use when needed.\n---\nBody\n')
    mkdirSync(join(dir, 'bad-yaml'))
    writeFileSync(join(dir, 'bad-yaml', 'SKILL.md'), '---\nname: bad-yaml\ndescription: "unterminated\n---\nBody\n')
    const [renamed] = await importPaths(t, [join(dir, 'folder-name')])
    expect(renamed!.created).toBe(1)
    expect(renamed!.warnings[0]!.message).toContain('differs from the folder name')
    const [bad] = await importPaths(t, [join(dir, 'bad-yaml')])
    expect(bad!.errors[0]!.message).toContain('not valid YAML')
  })
})

describe('promptlib import (a real process)', async () => {
  test('prints problems as file:line, one summary line per path, and exits 1 when any record or file had errors', async () => {
    const env = await processEnv({ LOG_LEVEL: 'error' })
    const ok = cli(['import', fx('catalogue-good.json'), fx('prompts.csv')], env)
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
    expect(ok.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^\S+catalogue-good\.json: 6 added, 0 updated, 0 unchanged, 0 failed \(\d+\.\d s, \d+\.\d MB\/s\)$/),
      expect.stringMatching(/^\S+prompts\.csv: 3 added, 0 updated, 0 unchanged, 0 failed \(/),
    ])
    const bad = cli(['import', fx('prompts-bad.csv'), fx('catalogue-good.json')], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(`${fx('prompts-bad.csv')}:6: error: expected 5 fields, found 2`)
    expect(bad.stdout).toContain(`${fx('prompts-bad.csv')}: 0 added, 0 updated, 3 unchanged, 2 failed (`)
    expect(bad.stdout).toContain(`${fx('catalogue-good.json')}: 0 added, 0 updated, 6 unchanged, 0 failed (`)
    const header = join(env.DATA_DIR!, 'header.csv')
    writeFileSync(header, 'title,text\n')
    const refused = cli(['import', header], env)
    expect(refused.code).toBe(1)
    expect(refused.stdout.trim()).toBe(`${header}: refused, nothing changed (see the error above)`)
    const dry = cli(['import', '--dry-run', fx('catalogue-bad.json')], env)
    expect(dry.code).toBe(1)
    expect(dry.stdout).toContain(`${fx('catalogue-bad.json')}: dry run, nothing written: 0 added, 1 updated, 5 unchanged, 2 failed; 1 warning (`)
    expect(cli(['import', fx('catalogue-bad.json'), '--dry-run'], env).stdout).toContain('dry run')
    const [welcome] = await withStorage(env, (storage) =>
      sqlRows<{ title: string }>(storage, 'SELECT title FROM prompts WHERE id = $1', ['11111111-1111-4111-8111-111111111111']),
    )
    expect(welcome!.title).toBe('Welcome email sequence')
    expect(cli(['import'], env).code).toBe(2)
    expect(cli(['import', fx('prompts.csv'), '--category', 'Not A Slug'], env).code).toBe(2)
  })

  // Each file was dry-run in a transaction of its own: a CSV whose subcategory a catalogue before
  // it defines was reported failing, where the real import succeeded.
  test('a dry run of several paths reports what the import would do: each file sees the ones before it, a refused one undone alone', async () => {
    const env = await processEnv()
    const dir = tempDir()
    const cats = join(dir, 'cats.json')
    writeFileSync(
      cats,
      JSON.stringify({
        format: 'promptlib-catalogue',
        version: 1,
        categories: [{ id: 'c1', name: 'C1', subcategories: [{ id: 's1', name: 'S1' }] }],
      }),
    )
    const broken = join(dir, 'broken.json')
    writeFileSync(
      broken,
      '{"format": "promptlib-catalogue", "version": 1, "categories": [{"id": "c2", "name": "C2", "subcategories": [{"id": "s2", "name": "S2"}]}], "prompts": [',
    )
    const csv = join(dir, 'p.csv')
    writeFileSync(
      csv,
      'id,act,prompt,category,subcategory\n"3f1c2b4e-8d7a-4c1e-9b2f-0a1b2c3d4e5f","t","p","c1","s1"\n"3f1c2b4e-8d7a-4c1e-9b2f-0a1b2c3d4e60","u","q","c2","s2"\n',
    )
    const dry = cli(['import', '--dry-run', cats, broken, csv], env)
    const real = cli(['import', cats, broken, csv], env)
    const summaries = (out: string) => out.replace(/dry run, nothing written: /g, '').replace(/ \([\d.]+ s[^)]*\)/g, '')
    expect(summaries(dry.stdout)).toBe(summaries(real.stdout))
    expect(dry.stdout).toContain(`${csv}: dry run, nothing written: 1 added, 0 updated, 0 unchanged, 1 failed`)
    expect(dry.stderr.replace(/ \([\d.]+ s[^)]*\)/g, '')).toBe(real.stderr.replace(/ \([\d.]+ s[^)]*\)/g, ''))
    expect([dry.code, real.code]).toEqual([1, 1])
    expect(cli(['import', join(env.DATA_DIR!, 'missing.json')], env).stderr).toContain('no such file or folder')
  })

  test('beside a running server, and the server sees it', async () => {
    const env = await processEnv({ DEMO_CATALOGUE: 'false' })
    const server = await startServer(env)
    try {
      // The server has its category tree before the import (an empty one).
      expect(await json(await fetch(`${server.url}/api/categories`))).toEqual({ items: [] })
      const res = cli(['import', fx('catalogue-good.json')], { ...env, LOG_LEVEL: 'error' })
      expect(res.code).toBe(0)
      // Every instance re-validates its tree within a second at most.
      const deadline = Date.now() + 1500
      let items: unknown[] = []
      while (items.length === 0 && Date.now() < deadline) {
        items = (await json(await fetch(`${server.url}/api/categories`))).items
        if (items.length === 0) await Bun.sleep(20)
      }
      expect(items.length).toBe(2)
      expect((await json(await fetch(`${server.url}/api/search?q=welcome`))).total).toBe(1)
    } finally {
      server.kill()
      await server.exited
    }
  })
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('import modes (SQLite only: a rollback journal alone on the database)', async () => {
  test('alone on the database (rollback journal for speed), the database is left in WAL mode and searchable', () => {
    const dir = tempDir()
    expect(cli(['import', fx('catalogue-good.json')], { DATA_DIR: dir, LOG_LEVEL: 'error' }).code).toBe(0)
    const db = openDatabase(join(dir, DATABASE_FILE))
    expect(db.$client.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    const n = db.$client.query("SELECT count(*) AS n FROM prompts_head_fts WHERE prompts_head_fts MATCH 'welcome AND email'").get() as { n: number }
    expect(n.n).toBe(1)
    db.$client.close()
  })
})

describe('demo catalogue', async () => {
  test('loaded on a fresh start, once; skipped with DEMO_CATALOGUE=false', async () => {
    const env = await processEnv()
    const server = await startServer(env)
    try {
      const body = await json(await fetch(`${server.url}/api/categories`))
      expect(body.items.length).toBeGreaterThanOrEqual(8)
    } finally {
      server.kill()
      await server.exited
    }
    const storage = await storageOf(env)
    expect(await countRows({ storage }, 'prompts')).toBeGreaterThanOrEqual(60)
    expect(await countRows({ storage }, 'skills')).toBeGreaterThanOrEqual(8)
    await searchIndexIntact(storage)
    await storage.close()

    const empty = await startServer(await processEnv({ DEMO_CATALOGUE: 'false' }))
    try {
      expect(await json(await fetch(`${empty.url}/api/categories`))).toEqual({ items: [] })
    } finally {
      empty.kill()
      await empty.exited
    }
  })

  test('not loaded when the catalogue already has content', async () => {
    const t = await makeTestApp()
    await importPaths(t, [fx('catalogue-good.json')])
    expect(await t.services.catalogue.loadDemoIfEmpty(t.log)).toBe(false)
    expect(await countRows(t, 'prompts')).toBe(3)
  })

  // On PostgreSQL the loader saw an empty catalogue while an import had not committed yet, and
  // loaded the demo on top of it once it had.
  test('a server that starts during an import leaves the demo out', async () => {
    const env = await processEnv()
    expect(cli(['migrate'], env).code).toBe(0)
    const file = join(tempDir(), 'during.json')
    const prompts = Array.from({ length: 4000 }, (_, i) => ({
      id: uuidV5(`during-${i}`),
      title: `Imported while a server starts ${i}`,
      category: 'mine',
      content: `Body ${i} `.repeat(40),
    }))
    writeFileSync(file, JSON.stringify({ format: 'promptlib-catalogue', version: 1, categories: [{ id: 'mine', name: 'Mine' }], prompts }))
    const importing = cliAsync(['import', file], env)
    await Bun.sleep(300)
    const server = await startServer(env)
    try {
      expect((await importing).code).toBe(0)
      const { items } = await json(await fetch(`${server.url}/api/categories`))
      expect(items.map((c: { id: string }) => c.id)).toEqual(['mine'])
      expect(server.output()).not.toContain('demo catalogue loaded')
    } finally {
      server.kill()
      await server.exited
    }
  }, 60_000)

  test('servers starting together on one fresh database load it once', async () => {
    const env = await processEnv()
    const servers = await Promise.all([1, 2, 3].map(() => startServer(env)))
    try {
      const demo = JSON.parse(readFileSync(join(import.meta.dir, '..', 'src/features/catalogue/demo/demo-catalogue.json'), 'utf8'))
      for (const server of servers) {
        const { items } = await json(await fetch(`${server.url}/api/categories`))
        expect(items.reduce((n: number, c: { prompt_count: number }) => n + c.prompt_count, 0)).toBe(demo.prompts.length)
      }
      const loaded = servers.map((s) => s.output()).filter((out) => out.includes('demo catalogue loaded'))
      expect(loaded).toHaveLength(1)
    } finally {
      for (const server of servers) server.kill()
      await Promise.all(servers.map((s) => s.exited))
    }
    const storage = await storageOf(env)
    const demoSkills = JSON.parse(readFileSync(join(import.meta.dir, '..', 'src/features/catalogue/demo/demo-catalogue.json'), 'utf8')).skills.length
    expect(await countRows({ storage }, 'skills')).toBe(demoSkills)
    await storage.close()
  })
})
