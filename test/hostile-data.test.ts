// Hostile and unusual files in and out (docs/catalogue-format.md): a file that is deeply nested,
// not UTF-8, a YAML alias bomb, megabytes of doubled quotes on one line, a header naming a column
// twice, rows repeating a title, an unreadable folder. Each ends in a clear `file:line` message or
// an exact import, never a stack trace or a record altered on the way; an export read back in
// reproduces the catalogue, subcategory orders and every storable character included.
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExportOptions } from '../src/features/catalogue'
import { uuidV5 } from '../src/features/catalogue/text'
import { json, makeTestApp, processEnv, type TestApp, tempDir } from './support/app'
import { countRows } from './support/catalogue'
import { cli, ROOT } from './support/process'
import { sqlRows } from './support/sql'

const HEAD = { format: 'promptlib-catalogue', version: 1 }
let files = 0
/** Writes `content` under `dir` as a fresh file named `name` (or file-N.ext); returns its path. */
function write(dir: string, name: string, content: string | Uint8Array): string {
  const path = join(dir, name.startsWith('.') ? `file-${++files}${name}` : name)
  writeFileSync(path, content)
  return path
}
const importPaths = (t: TestApp, paths: string[], opts: { category?: string; dryRun?: boolean } = {}) => t.services.catalogue.importPaths(paths, opts)
const importOne = async (t: TestApp, path: string, opts: { category?: string; dryRun?: boolean } = {}) => (await importPaths(t, [path], opts))[0]!

async function exported(t: TestApp, opts: ExportOptions): Promise<string> {
  const pieces: string[] = []
  await t.services.catalogue.exportCatalogue(opts, (text) => {
    pieces.push(text)
  })
  return pieces.join('')
}

/** A JSON array nested `depth` deep: JSON.parse reads it; anything walking it by recursion overflows the stack. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('JSON catalogue', async () => {
  const t = await makeTestApp()

  test('a value nested 100,000 deep is a warning (unknown field) or refuses its record alone, never a crash', async () => {
    const text =
      `{"format":"promptlib-catalogue","version":1,"categories":[{"id":"deep","name":"Deep"}],"prompts":[\n` +
      `{"id":"de000000-0000-4000-8000-000000000001","title":"Extra","category":"deep","content":"x","extra":${nested(100_000)}},\n` +
      `{"id":"de000000-0000-4000-8000-000000000002","title":"Tags","category":"deep","content":"x","tags":${nested(100_000)}},\n` +
      `{"id":"de000000-0000-4000-8000-000000000003","title":"Object","category":"deep","content":"x","extra":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}\n]}`
    const path = write(t.dataDir, '.json', text)
    const report = await importOne(t, path)
    expect(report.errors).toEqual([{ file: path, line: 3, message: 'prompts[1]: "tags" must be an array of strings' }])
    expect(report.warnings.map((w) => [w.line, w.message])).toEqual([
      [2, 'prompts[0]: unknown field "extra" ignored'],
      [4, 'prompts[2]: unknown field "extra" ignored'],
    ])
    expect(report).toMatchObject({ created: 3, failed: 1, refused: false })
  })

  test('bytes that are not UTF-8 between records, or a UTF-16 file: refused whole, the message says UTF-8 with line and column', async () => {
    const before = await countRows(t, 'categories')
    const between = write(
      t.dataDir,
      '.json',
      Buffer.concat([
        Buffer.from('{"format":"promptlib-catalogue","version":1,\n"categories":[{"id":"latin","name":"L"}'),
        Buffer.from([0xff]),
        Buffer.from(']}'),
      ]),
    )
    expect((await importOne(t, between)).errors).toEqual([
      {
        file: between,
        line: 2,
        message: 'not valid JSON: column 40: expected "," or "]", found bytes that are not valid UTF-8 (the file must be UTF-8)',
      },
    ])
    // A character past ASCII where JSON has none is named as itself, not as its first byte ("Â").
    const nbsp = write(t.dataDir, '.json', '{"format":"promptlib-catalogue","version":1,\n"categories":[]\u00a0}')
    expect((await importOne(t, nbsp)).errors[0]!.message).toBe('not valid JSON: column 16: expected "," or "}", found U+00A0')
    const utf16 = write(t.dataDir, '.json', Buffer.from(`\ufeff${JSON.stringify({ ...HEAD, categories: [{ id: 'wide', name: 'W' }] })}`, 'utf16le'))
    expect((await importOne(t, utf16)).errors).toEqual([
      {
        file: utf16,
        line: 1,
        message: 'not valid JSON: column 1: expected "{" (a catalogue is one JSON object), found a UTF-16 byte-order mark (the file must be UTF-8)',
      },
    ])
    expect(await countRows(t, 'categories')).toBe(before)
  })

  test('a file cut inside a record of many lines names the line and column where it ends; nothing of it is stored', async () => {
    const before = await countRows(t, 'categories')
    const whole =
      '{"format":"promptlib-catalogue","version":1,"categories":[{"id":"kept","name":"K"},\n{"id":"cut",\n"name":"C",\n"description":"ab€"}]}'
    const cut = Buffer.from(whole).subarray(0, Buffer.from(whole).indexOf('€') + 2) // inside the three bytes of "€"
    const path = write(t.dataDir, '.json', cut)
    expect((await importOne(t, path)).errors).toEqual([
      { file: path, line: 4, message: 'not valid JSON: column 18: the file ends inside a value (a bracket or a quote is never closed)' },
    ])
    expect(await countRows(t, 'categories')).toBe(before)
  })
})

describe('prompts.csv', async () => {
  const t = await makeTestApp()

  test('a one-line field of 1.6 MB full of doubled quotes imports quickly, exactly', async () => {
    // Line counting once searched on to the next line feed for every doubled quote: this took ~5 s.
    const content = 'say ""hi"" '.repeat(150_000)
    const path = write(t.dataDir, '.csv', `act,prompt\n"Quotes","${content}"\n"After","x"\n`)
    const started = performance.now()
    const report = await importOne(t, path)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(report).toMatchObject({ created: 2, failed: 0, errors: [] })
    const [row] = await sqlRows<{ content: string }>(t.storage, 'SELECT content FROM prompts WHERE id = $1', [uuidV5('general\nQuotes')])
    expect(row!.content).toBe(content.replaceAll('""', '"').trim())
  })

  test("an export's category column wins over --category, which takes the rows without one", async () => {
    const path = write(t.dataDir, '.csv', 'act,prompt,category\n"In its column","x",from-column\n"Without","y",\n')
    expect(await importOne(t, path, { category: 'from-option' })).toMatchObject({ created: 2, errors: [] })
    const rows = await sqlRows<{ title: string; category_id: string }>(
      t.storage,
      "SELECT title, category_id FROM prompts WHERE title IN ('In its column', 'Without') ORDER BY title",
    )
    expect(rows).toEqual([
      { title: 'In its column', category_id: 'from-column' },
      { title: 'Without', category_id: 'from-option' },
    ])
  })

  test('a header naming a column twice is refused whole: which one holds the title cannot be known', async () => {
    const before = await countRows(t, 'prompts')
    const path = write(t.dataDir, '.csv', 'act,prompt,ACT\n"First act","x","Second act"\n')
    const report = await importOne(t, path)
    expect(report).toMatchObject({ refused: true, created: 0 })
    expect(report.errors).toEqual([{ file: path, line: 1, message: 'the header names the column "act" twice (columns 1 and 3)' }])
    expect(await countRows(t, 'prompts')).toBe(before)
  })

  test('rows repeating a title: the later wins; a dry run reports what the import does; the file again is all unchanged, nothing written', async () => {
    const path = write(t.dataDir, '.csv', 'act,prompt\n"Twice","first"\n"Other","o"\n"Twice","second"\n')
    const counts = (r: Awaited<ReturnType<typeof importOne>>) => ({
      created: r.created,
      updated: r.updated,
      unchanged: r.unchanged,
      failed: r.failed,
      warnings: r.warnings,
    })
    const dry = await importOne(t, path, { dryRun: true })
    const real = await importOne(t, path)
    expect(counts(dry)).toEqual(counts(real))
    expect(counts(real)).toMatchObject({ created: 2, updated: 0, unchanged: 0, failed: 0 })
    expect(real.warnings).toEqual([{ file: path, line: 4, message: 'the title "Twice" already appears on line 2; this row replaces it' }])
    const stored = () =>
      sqlRows<{ content: string; updated_at: unknown }>(t.storage, 'SELECT content, updated_at FROM prompts WHERE id = $1', [
        uuidV5('general\nTwice'),
      ])
    const first = await stored()
    expect(first[0]!.content).toBe('second')
    await Bun.sleep(5)
    expect(counts(await importOne(t, path))).toMatchObject({ created: 0, updated: 0, unchanged: 2, failed: 0 })
    expect(await stored()).toEqual(first)
  })
})

describe('Agent Skills folders', async () => {
  const t = await makeTestApp()

  test('a YAML alias bomb refuses its skill alone, with its file; a duplicate key names its own line', async () => {
    const dir = join(t.dataDir, 'hostile-skills')
    const skill = (name: string, front: string) => {
      mkdirSync(join(dir, name), { recursive: true })
      return write(join(dir, name), 'SKILL.md', `---\nname: ${name}\ndescription: Does ${name}.\n${front}---\nBody of ${name}\n`)
    }
    // Each level repeats the one before nine times: 9^10 strings once expanded.
    let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n'
    for (let i = 1; i <= 10; i++)
      bomb += `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`
    const bombFile = skill('bomb', bomb)
    const twiceFile = skill('twice', 'license: MIT\ndescription: again\n')
    skill('fine', '')
    const reports = await importPaths(t, [dir])
    expect(reports.map((r) => [r.file, r.created, r.failed, r.errors])).toEqual([
      [bombFile, 0, 1, [{ file: bombFile, line: 2, message: expect.stringMatching(/^front matter cannot be read: .*alias/i) }]],
      [join(dir, 'fine', 'SKILL.md'), 1, 0, []],
      [twiceFile, 0, 1, [{ file: twiceFile, line: 5, message: expect.stringMatching(/^front matter is not valid YAML: .*unique/) }]],
    ])
  })
})

describe('export', async () => {
  test('subcategory orders given in a file survive import(export(db)); one added later sorts the same in both', async () => {
    const source = await makeTestApp()
    const copy = await makeTestApp()
    const file = (t: TestApp, categories: unknown[]) => write(t.dataDir, '.json', JSON.stringify({ ...HEAD, categories }))
    const subs = [
      { id: 'late', name: 'Late', order: 20 },
      { id: 'early', name: 'Early', order: 10 },
    ]
    expect(await importOne(source, file(source, [{ id: 'ordered', name: 'Ordered', subcategories: subs }]))).toMatchObject({ errors: [] })
    expect(await importOne(copy, write(copy.dataDir, '.json', await exported(source, { format: 'json' })))).toMatchObject({ errors: [] })
    const rows = (t: TestApp) => sqlRows(t.storage, 'SELECT * FROM subcategories ORDER BY category_id, id')
    expect(await rows(copy)).toEqual(await rows(source))
    for (const t of [source, copy]) {
      await importOne(t, file(t, [{ id: 'ordered', name: 'Ordered', subcategories: [{ id: 'middle', name: 'Middle', order: 15 }] }]))
      const body = await json(await t.request('/api/categories/ordered'))
      expect(body.subcategories.map((s: { id: string }) => s.id)).toEqual(['early', 'middle', 'late'])
    }
  })

  test('CSV: every C0 control but NUL, DEL, C1, a lone CR at either end, a BOM, noncharacters: read back exactly', async () => {
    const source = await makeTestApp()
    const copy = await makeTestApp()
    const controls = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('')
    const text = `\r\ufeff "${controls}\u007f\u0080\u009f\u2028\u2029\ufffe\uffff\ufdd0",😀\r`
    const categories = [{ id: 'raw', name: 'Raw' }]
    const prompts = [{ id: 'c5000000-0000-4000-8000-000000000001', title: `T${text}`, description: text, category: 'raw', content: text }]
    expect(await importOne(source, write(source.dataDir, '.json', JSON.stringify({ ...HEAD, categories, prompts })))).toMatchObject({
      created: 2,
      errors: [],
    })
    const body = await json(await source.request(`/api/prompts/${prompts[0]!.id}`))
    expect([body.title, body.description, body.content]).toEqual([`T${text}`, text, text])
    const csv = await exported(source, { format: 'csv' })
    await importOne(copy, write(copy.dataDir, '.json', JSON.stringify({ ...HEAD, categories })))
    expect(await importOne(copy, write(copy.dataDir, '.csv', csv))).toMatchObject({ created: 1, failed: 0, errors: [], warnings: [] })
    const row = (t: TestApp) => sqlRows(t.storage, 'SELECT id, title, description, content, created_at, updated_at FROM prompts')
    expect(await row(copy)).toEqual(await row(source))
    expect(await exported(copy, { format: 'csv' })).toBe(csv)
  })
})

describe('promptlib import (a real process)', () => {
  test('hostile files end in file:line messages and exit 1, never a stack trace; the paths after them are imported', async () => {
    const env = await processEnv({ LOG_LEVEL: 'error', DEMO_CATALOGUE: 'false' })
    const dir = env.DATA_DIR!
    const deep = write(dir, 'deep.json', JSON.stringify({ ...HEAD, categories: [{ id: 'c', name: 'C', x: 0 }] }).replace('0', nested(100_000)))
    mkdirSync(join(dir, 'skills', 'bomb'), { recursive: true })
    let bomb = '---\nname: bomb\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x]\n'
    for (let i = 1; i <= 10; i++)
      bomb += `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`
    write(join(dir, 'skills', 'bomb'), 'SKILL.md', `${bomb}---\nbody\n`)
    const utf16 = write(dir, 'wide.csv', Buffer.from('\ufeffact,prompt\nA,B\n', 'utf16le'))
    const good = write(dir, 'good.csv', 'act,prompt\n"Good","row"\n')
    const r = cli(['import', deep, join(dir, 'skills'), utf16, good], env)
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain('unexpected error')
    expect(r.stderr.trim().split('\n')).toEqual([
      `${deep}:1: warning: categories[0]: unknown field "x" ignored`,
      `${join(dir, 'skills', 'bomb', 'SKILL.md')}:2: error: front matter cannot be read: Excessive alias count indicates a resource exhaustion attack`,
      `${utf16}:1: error: the header row contains NUL or bytes that are not valid UTF-8`,
    ])
    expect(r.stdout).toContain(`${good}: 1 added, 0 updated, 0 unchanged, 0 failed (`)
  })

  // Root, with runuser, and a checkout and a Bun that nobody may use (a clone under /root is not).
  const asNobody = (...command: string[]) => spawnSync('runuser', ['-u', 'nobody', '--', ...command]).status === 0
  const root = process.getuid?.() === 0 && asNobody('test', '-r', join(ROOT, 'src', 'main.ts')) && asNobody(process.execPath, '--version')
  test.skipIf(!root)(
    'an unreadable folder of skills, or a skill with an unreadable subfolder, is that path’s error; the next paths run',
    async () => {
      // Run as nobody: root reads every folder.
      const env = await processEnv({ LOG_LEVEL: 'error', DEMO_CATALOGUE: 'false', HOME: tempDir() })
      chownSync(env.DATA_DIR!, 65534, 65534)
      const dir = tempDir()
      chmodSync(dir, 0o755)
      mkdirSync(join(dir, 'locked'))
      chmodSync(join(dir, 'locked'), 0)
      mkdirSync(join(dir, 'skills', 'one', 'scripts'), { recursive: true })
      write(join(dir, 'skills', 'one'), 'SKILL.md', '---\nname: one\ndescription: d\n---\nbody\n')
      chmodSync(join(dir, 'skills', 'one', 'scripts'), 0)
      const good = write(dir, 'good.csv', 'act,prompt\n"Good","row"\n')
      const r = spawnSync(
        'runuser',
        ['-u', 'nobody', '--', process.execPath, join(ROOT, 'src', 'main.ts'), 'import', join(dir, 'locked'), join(dir, 'skills'), good],
        {
          env: { ...process.env, ...env },
          encoding: 'utf8',
          cwd: ROOT,
        },
      )
      expect(r.status).toBe(1)
      expect(r.stderr.trim().split('\n')).toEqual([
        `${join(dir, 'locked')}: error: cannot read: EACCES: permission denied, scandir '${join(dir, 'locked')}'`,
        `${join(dir, 'skills', 'one', 'SKILL.md')}: error: cannot list the skill's files: EACCES: permission denied, scandir '${join(dir, 'skills', 'one', 'scripts')}'`,
      ])
      expect(r.stdout).toContain(`${good}: 1 added, 0 updated, 0 unchanged, 0 failed (`)
      chmodSync(join(dir, 'locked'), 0o755)
      chmodSync(join(dir, 'skills', 'one', 'scripts'), 0o755)
    },
  )
})
