// Importers: JSON catalogues, prompts.csv, Agent Skills folders; idempotent re-imports; a file
// with errors changes nothing; the CLI as a real process; the demo catalogue on first start.
import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DATABASE_FILE, openDatabase, type Db } from '../src/db/sqlite/client'
import { runMigrations } from '../src/db/sqlite/migrate'
import { importPaths } from '../src/features/catalogue/import/run'
import { uuidV5 } from '../src/features/catalogue/text'
import { json, makeTestApp, tempDir } from './support/app'
import { cli, startServer } from './support/process'

const FIXTURES = join(import.meta.dir, 'fixtures')
const fx = (name: string) => join(FIXTURES, name)

function freshDb(): { db: Db; dir: string } {
  const dir = tempDir()
  const db = openDatabase(join(dir, DATABASE_FILE))
  runMigrations(db)
  return { db, dir }
}

const countRows = (db: Db, table: string) => (db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
const ftsIntact = (db: Db) => {
  db.$client.run("INSERT INTO prompts_fts(prompts_fts, rank) VALUES('integrity-check', 1)")
  db.$client.run("INSERT INTO skills_fts(skills_fts, rank) VALUES('integrity-check', 1)")
}

describe('JSON catalogue', async () => {
  test('imports categories, subcategories, prompts and skills; a second run changes nothing', () => {
    const { db } = freshDb()
    const [first] = importPaths(db, [fx('catalogue-good.json')])
    expect(first!.errors).toEqual([])
    expect(first).toMatchObject({ kind: 'json', created: 6, updated: 0, unchanged: 0 })
    expect(countRows(db, 'prompts')).toBe(3)
    expect(countRows(db, 'subcategories')).toBe(3)
    expect(countRows(db, 'skills')).toBe(1)
    const tags = db.$client.query('SELECT tags FROM prompts WHERE id = ?').get('11111111-1111-4111-8111-111111111111') as { tags: string }
    expect(tags.tags).toBe('onboarding email-marketing')
    const [again] = importPaths(db, [fx('catalogue-good.json')])
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 6 })
    expect(countRows(db, 'prompts')).toBe(3)
    ftsIntact(db)
  })

  test('a changed record is updated in place and re-indexed', () => {
    const { db, dir } = freshDb()
    importPaths(db, [fx('catalogue-good.json')])
    const data = JSON.parse(readFileSync(fx('catalogue-good.json'), 'utf8'))
    data.prompts[2].content = 'Review this merge request for zanzibar-grade security.'
    const file = join(dir, 'changed.json')
    writeFileSync(file, JSON.stringify(data))
    const [r] = importPaths(db, [file])
    expect(r).toMatchObject({ updated: 1, unchanged: 5, created: 0 })
    expect(countRows(db, 'prompts')).toBe(3)
    ftsIntact(db)
    const hit = db.$client.query(`SELECT rowid FROM prompts_fts WHERE prompts_fts MATCH '"zanzibar"'`).all()
    expect(hit).toHaveLength(1)
    expect(db.$client.query(`SELECT rowid FROM prompts_fts WHERE prompts_fts MATCH '"correctness"'`).all()).toHaveLength(0)
  })

  test('a file with errors reports each with its line and changes nothing', () => {
    const { db } = freshDb()
    importPaths(db, [fx('catalogue-good.json')])
    const [r] = importPaths(db, [fx('catalogue-bad.json')])
    expect(r!.created + r!.updated).toBe(0)
    const text = readFileSync(fx('catalogue-bad.json'), 'utf8') as string
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) // the record's "{" is one line above
    expect(r!.errors).toContainEqual({ file: fx('catalogue-bad.json'), line: lineOf('"id": "not-a-uuid"'), message: expect.stringContaining('"id" must be a UUID') })
    expect(r!.errors).toContainEqual(expect.objectContaining({ line: lineOf('"id": "not-a-uuid"'), message: expect.stringContaining('"title" must not be empty') }))
    expect(r!.errors).toContainEqual(expect.objectContaining({ line: lineOf('44444444-4444'), message: expect.stringContaining('unknown category "no-such-category"') }))
    expect(r!.warnings).toContainEqual(expect.objectContaining({ message: expect.stringContaining('unknown field "colour"') }))
    const title = db.$client.query('SELECT title FROM prompts WHERE id = ?').get('11111111-1111-4111-8111-111111111111') as { title: string }
    expect(title.title).toBe('Welcome email sequence')
  })

  test('not JSON, or not our format, is one clear error', () => {
    const { db, dir } = freshDb()
    writeFileSync(join(dir, 'broken.json'), '{"format": "promptlib-catalogue", ')
    writeFileSync(join(dir, 'other.json'), '{"hello": "world"}')
    const [broken, other] = importPaths(db, [join(dir, 'broken.json'), join(dir, 'other.json')])
    expect(broken!.errors[0]!.message).toContain('not valid JSON')
    expect(other!.errors[0]!.message).toContain('not a promptlib catalogue')
  })
})

describe('prompts.csv', async () => {
  test('BOM, CRLF, quoted commas, doubled quotes and line breaks; categories by for_devs; type as a tag', () => {
    const { db } = freshDb()
    const [r] = importPaths(db, [fx('prompts.csv')])
    expect(r!.errors).toEqual([])
    expect(r).toMatchObject({ kind: 'csv', created: 3 })
    const rows = db.$client.query('SELECT id, title, content, category_id, tags FROM prompts ORDER BY title').all() as Record<string, string>[]
    expect(rows.map((x) => [x.title, x.category_id, x.tags])).toEqual([
      ['Linux Terminal', 'coding', 'text'],
      ['Storyteller, Kind', 'general', 'text'],
      ['Travel Guide', 'general', 'structured'],
    ])
    expect(rows[1]!.content).toBe('I want you to act as a storyteller.\r\nCome up with "entertaining" stories, short and engaging.')
    expect(rows[2]!.content).toBe('I want you to act as a travel guide, suggesting places near {{location}}.')
    expect(rows[0]!.id).toBe(uuidV5('coding\nLinux Terminal'))
    expect(countRows(db, 'categories')).toBe(2)
    const [again] = importPaths(db, [fx('prompts.csv')])
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 3 })
  })

  test('--category puts every row there (created when missing)', () => {
    const { db } = freshDb()
    importPaths(db, [fx('prompts.csv')], { category: 'roleplay' })
    expect(db.$client.query('SELECT DISTINCT category_id FROM prompts').all()).toEqual([{ category_id: 'roleplay' }])
  })

  test('a bad row is reported with its line and the file changes nothing', () => {
    const { db } = freshDb()
    const [r] = importPaths(db, [fx('prompts-bad.csv')])
    expect(r!.errors).toEqual([
      { file: fx('prompts-bad.csv'), line: 6, message: 'expected 5 fields, found 2' },
      { file: fx('prompts-bad.csv'), line: 7, message: '"prompt" (the content) is empty' },
    ])
    expect(countRows(db, 'prompts')).toBe(0)
    expect(countRows(db, 'categories')).toBe(0)
  })
})

describe('Agent Skills folders', async () => {
  test('a folder of skills: block-scalar description, files listed, warnings kept, the broken one refused alone', () => {
    const { db } = freshDb()
    const reports = importPaths(db, [fx('skills')])
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
    const pdf = db.$client.query('SELECT * FROM skills WHERE id = ?').get('pdf-tools') as Record<'description' | 'files' | 'allowed_tools' | 'category' | 'tags' | 'license' | 'instructions', string>
    expect(pdf.description).toBe('Extracts text and tables from PDF files, fills PDF forms and merges documents. Use when the user works with PDF files.')
    expect(JSON.parse(pdf.files)).toEqual(['assets/template.pdf', 'references/forms.md', 'scripts/extract.py'])
    expect(JSON.parse(pdf.allowed_tools)).toEqual(['Read', 'Bash(python scripts/extract.py:*)'])
    expect(pdf.category).toBe('coding')
    expect(pdf.tags).toBe('pdf documents')
    expect(pdf.license).toBe('Apache-2.0')
    expect(pdf.instructions.startsWith('# PDF tools')).toBe(true)
    expect(countRows(db, 'skills')).toBe(2)
    // Re-import: the name is the key.
    const again = importPaths(db, [fx('skills/pdf-tools')])
    expect(again[0]).toMatchObject({ unchanged: 1 })
    ftsIntact(db)
  })

  test('a name that differs from its folder is a warning; malformed YAML an error with its line', () => {
    const { db, dir } = freshDb()
    mkdirSync(join(dir, 'folder-name'))
    writeFileSync(join(dir, 'folder-name', 'SKILL.md'), '---\nname: other-name\ndescription: Does things. Use when needed.\n---\nBody\n')
    mkdirSync(join(dir, 'bad-yaml'))
    writeFileSync(join(dir, 'bad-yaml', 'SKILL.md'), '---\nname: bad-yaml\ndescription: "unterminated\n---\nBody\n')
    const [renamed] = importPaths(db, [join(dir, 'folder-name')])
    expect(renamed!.created).toBe(1)
    expect(renamed!.warnings[0]!.message).toContain('differs from the folder name')
    const [bad] = importPaths(db, [join(dir, 'bad-yaml')])
    expect(bad!.errors[0]!.message).toContain('not valid YAML')
  })
})

describe('promptlib import (a real process)', async () => {
  test('prints problems as file:line, a summary, and exits 1 when a file had errors', () => {
    const dir = tempDir()
    const env = { DATA_DIR: dir, LOG_LEVEL: 'error' }
    const ok = cli(['import', fx('catalogue-good.json'), fx('prompts.csv')], env)
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/catalogue-good\.json\s+ok\s+6\s+0\s+0\s+0\s+0/)
    expect(ok.stdout).toContain('2 file(s) in')
    const bad = cli(['import', fx('prompts-bad.csv'), fx('catalogue-good.json')], env)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(`${fx('prompts-bad.csv')}:6: error: expected 5 fields, found 2`)
    expect(bad.stdout).toMatch(/prompts-bad\.csv\s+FAILED \(nothing changed\)/)
    expect(bad.stdout).toMatch(/catalogue-good\.json\s+ok\s+0\s+0\s+6/)
    expect(cli(['import'], env).code).toBe(2)
    expect(cli(['import', fx('prompts.csv'), '--category', 'Not A Slug'], env).code).toBe(2)
    expect(cli(['import', join(dir, 'missing.json')], env).stderr).toContain('no such file or folder')
  })
})

describe('import modes', async () => {
  test('alone on the database (rollback journal for speed), the database is left in WAL mode and searchable', () => {
    const dir = tempDir()
    expect(cli(['import', fx('catalogue-good.json')], { DATA_DIR: dir, LOG_LEVEL: 'error' }).code).toBe(0)
    const db = openDatabase(join(dir, DATABASE_FILE))
    expect(db.$client.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    const n = db.$client.query("SELECT count(*) AS n FROM prompts_head_fts WHERE prompts_head_fts MATCH 'welcome AND email'").get() as { n: number }
    expect(n.n).toBe(1)
    db.$client.close()
  })

  test('beside a running server (the database open elsewhere) it imports in WAL mode, and the server sees it', async () => {
    const dir = tempDir()
    const server = await startServer({ DATA_DIR: dir, DEMO_CATALOGUE: 'false' })
    try {
      const res = cli(['import', fx('catalogue-good.json')], { DATA_DIR: dir, LOG_LEVEL: 'error' })
      expect(res.code).toBe(0)
      await Bun.sleep(150) // the category tree re-validates every 100 ms
      const body = await json(await fetch(`${server.url}/api/categories`))
      expect(body.items.length).toBeGreaterThan(0)
    } finally {
      server.kill()
      await server.exited
    }
  })
})

describe('demo catalogue', async () => {
  test('loaded on a fresh start, once; skipped with DEMO_CATALOGUE=false', async () => {
    const dir = tempDir()
    const server = await startServer({ DATA_DIR: dir })
    try {
      const body = await json(await fetch(`${server.url}/api/categories`))
      expect(body.items.length).toBeGreaterThanOrEqual(8)
    } finally {
      server.kill()
      await server.exited
    }
    const db = openDatabase(join(dir, DATABASE_FILE))
    expect(countRows(db, 'prompts')).toBeGreaterThanOrEqual(60)
    expect(countRows(db, 'skills')).toBeGreaterThanOrEqual(8)
    db.$client.close()

    const empty = await startServer({ DATA_DIR: tempDir(), DEMO_CATALOGUE: 'false' })
    try {
      expect(await json(await fetch(`${empty.url}/api/categories`))).toEqual({ items: [] })
    } finally {
      empty.kill()
      await empty.exited
    }
  })

  test('not loaded when the catalogue already has content', async () => {
    const t = await makeTestApp()
    importPaths(t.services.catalogue.db, [fx('catalogue-good.json')])
    const { loadDemoCatalogueIfEmpty } = await import('../src/features/catalogue/demo')
    expect(await loadDemoCatalogueIfEmpty(t.services.catalogue.db, t.log)).toBe(false)
    expect(countRows(t.services.catalogue.db, 'prompts')).toBe(3)
  })
})
