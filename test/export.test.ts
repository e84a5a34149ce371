// `promptlib export` (docs/catalogue-format.md, "Export"): the catalogue in the import formats, so
// that importing an export into an empty database reproduces it exactly, ids and timestamps
// included; the same catalogue always exports to the same bytes.
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExportOptions } from '../src/features/catalogue'
import { makeTestApp, processEnv, type TestApp } from './support/app'
import { cli, MAIN } from './support/process'
import { sqlRows } from './support/sql'

/** prompts.chat's multi-file skill separators, CRLF, a tab, a bell, emoji, spaces at both ends. */
const AWKWARD = '  intro\u001FFILE:scripts/run.sh\u001E#!/bin/sh\r\necho "hi", there\u0007\tdone 🎉  '

const SOURCE = {
  format: 'promptlib-catalogue',
  version: 1,
  categories: [
    {
      id: 'writing',
      name: 'Writing',
      description: 'Words.',
      icon: '✍️',
      order: 2,
      subcategories: [
        { id: 'blog', name: 'Blog', description: 'Posts' },
        { id: 'email', name: 'Email', description: '' },
      ],
    },
    { id: 'coding', name: 'Coding', description: 'Code.', icon: '💻', order: 1, created_at: '2025-01-01T00:00:00.000Z' },
  ],
  prompts: [
    {
      id: 'aaaaaaaa-0000-4000-8000-000000000001',
      title: ' Spaced, "quoted" title ',
      description: ' exact\u001F ',
      category: 'writing',
      subcategory: 'blog',
      tags: ['Email Marketing', 'café'],
      type: 'STRUCTURED',
      content: AWKWARD,
      created_at: '2024-01-02T03:04:05.678Z',
      updated_at: '2024-02-02T03:04:05.678Z',
    },
    { id: 'aaaaaaaa-0000-4000-8000-000000000002', title: 'Plain', category: 'coding', content: 'Review {{code}}.' },
    { id: 'aaaaaaaa-0000-4000-8000-000000000003', title: 'Image', category: 'writing', type: 'image', content: 'A cat\n\non a mat' },
  ],
  skills: [
    {
      name: 'code-review',
      description: 'Reviews code.\u001E Use it for reviews.',
      category: 'coding',
      tags: ['review'],
      license: 'MIT',
      metadata: { owner: 'team' },
      allowed_tools: ['Read', 'Bash(git diff:*)'],
      files: ['scripts/a.sh'],
      instructions: '# Review\r\n\n\u001Fkeep\n',
      created_at: '2024-03-01T00:00:00.000Z',
    },
    { name: 'plain-skill', description: 'Plain.', instructions: 'Do it.' },
  ],
}

async function exported(t: TestApp, opts: ExportOptions): Promise<string> {
  const pieces: string[] = []
  await t.services.catalogue.exportCatalogue(opts, (text) => {
    pieces.push(text)
  })
  return pieces.join('')
}

async function importText(t: TestApp, name: string, text: string) {
  const file = join(t.dataDir, name)
  writeFileSync(file, text)
  const [report] = await t.services.catalogue.importPaths([file])
  return report!
}

/** Every stored column but the row number (seq), which is the database's own. */
async function rows(t: TestApp, table: string, order: string): Promise<Record<string, unknown>[]> {
  const found = await sqlRows<Record<string, unknown>>(t.storage, `SELECT * FROM ${table} ORDER BY ${order}`)
  return found.map(({ seq: _seq, search: _search, ...row }) => row)
}

async function snapshot(t: TestApp) {
  return {
    categories: await rows(t, 'categories', 'id'),
    subcategories: await rows(t, 'subcategories', 'category_id, id'),
    prompts: await rows(t, 'prompts', 'id'),
    skills: await rows(t, 'skills', 'id'),
  }
}

const source = await makeTestApp()
expect(await importText(source, 'source.json', JSON.stringify(SOURCE))).toMatchObject({ created: 7, failed: 0, errors: [] })

describe('JSON export', () => {
  test('imported into an empty database it reproduces the catalogue exactly, ids, text and times included', async () => {
    const text = await exported(source, { format: 'json' })
    const copy = await makeTestApp()
    expect(await importText(copy, 'export.json', text)).toMatchObject({ created: 7, updated: 0, failed: 0, errors: [], warnings: [] })
    const before = await snapshot(source)
    expect(before.prompts).toHaveLength(3)
    expect(before.prompts.find((p) => p.id === 'aaaaaaaa-0000-4000-8000-000000000001')?.content).toBe(AWKWARD)
    expect(await snapshot(copy)).toEqual(before)
    // …and served the same, byte for byte.
    const [a, b] = await Promise.all([source, copy].map((t) => t.request('/api/prompts/aaaaaaaa-0000-4000-8000-000000000001').then((r) => r.text())))
    expect(b).toBe(a!)
    // The copy exports to the same bytes.
    expect(await exported(copy, { format: 'json' })).toBe(text)
  })

  test('deterministic: the same bytes every time; a re-import of it changes nothing', async () => {
    const first = await exported(source, { format: 'json' })
    expect(await exported(source, { format: 'json' })).toBe(first)
    expect(await importText(source, 'again.json', first)).toMatchObject({ created: 0, updated: 0, unchanged: 7 })
    expect(await exported(source, { format: 'json' })).toBe(first)
    // No time of export inside: only the records' own timestamps.
    expect(JSON.parse(first)).toMatchObject({ format: 'promptlib-catalogue', version: 1 })
    expect(Object.keys(JSON.parse(first))).toEqual(['format', 'version', 'categories', 'prompts', 'skills'])
  })

  test('a catalogue of many pages (cut by rows and by text): every prompt once, in the order added, reproduced', async () => {
    // Pages hold at most 500 rows and 4 M characters, but always one prompt: one above that
    // (the import allows 5 M) is a page of its own.
    const big = (n: number, letter: string) => `${letter} `.repeat(n / 2)
    const prompts = Array.from({ length: 1203 }, (_, i) => ({
      id: `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`,
      title: `Prompt ${i}`,
      category: 'writing',
      content: i === 10 ? big(4_500_000, 'x') : i === 11 || i === 700 ? big(3_000_000, 'y') : `Content ${i}.`,
    }))
    const many = await makeTestApp()
    const text = JSON.stringify({ ...SOURCE, prompts, skills: [] })
    expect(await importText(many, 'many.json', text)).toMatchObject({ created: 1205, failed: 0 })
    const out = await exported(many, { format: 'json' })
    expect((JSON.parse(out) as { prompts: { id: string }[] }).prompts.map((p) => p.id)).toEqual(prompts.map((p) => p.id))
    const copy = await makeTestApp()
    expect(await importText(copy, 'export.json', out)).toMatchObject({ created: 1205, failed: 0 })
    expect(await snapshot(copy)).toEqual(await snapshot(many))
  })

  test('--category: that category, its prompts and skills only', async () => {
    const data = JSON.parse(await exported(source, { format: 'json', category: 'coding' }))
    expect(data.categories.map((c: { id: string }) => c.id)).toEqual(['coding'])
    expect(data.prompts.map((p: { title: string }) => p.title)).toEqual(['Plain'])
    expect(data.skills.map((s: { name: string }) => s.name)).toEqual(['code-review'])
  })

  test('--category of a word only skills use (a skill needs no category row): those skills', async () => {
    const t = await makeTestApp()
    const skill = { name: 'lonely-skill', description: 'Alone. Use when testing.', category: 'skills-only', instructions: '# Alone' }
    await importText(t, 'skills.json', JSON.stringify({ format: 'promptlib-catalogue', version: 1, skills: [skill] }))
    const data = JSON.parse(await exported(t, { format: 'json', category: 'skills-only' }))
    expect(data).toMatchObject({ categories: [], prompts: [], skills: [{ name: 'lonely-skill', category: 'skills-only' }] })
    await expect(exported(t, { format: 'json', category: 'no-such-thing' })).rejects.toThrow('no category "no-such-thing"')
  })
})

describe('CSV export', () => {
  test('prompts with every column; imported into an empty database, the same prompts', async () => {
    const text = await exported(source, { format: 'csv' })
    expect(text.split('\r\n')[0]).toBe('id,act,prompt,type,description,category,subcategory,tags,created_at,updated_at')
    expect(await exported(source, { format: 'csv' })).toBe(text)
    const copy = await makeTestApp()
    // The categories travel in JSON only: the copy gets them (and their subcategories) from a JSON export first.
    const categoriesOnly = JSON.parse(await exported(source, { format: 'json' }))
    await importText(copy, 'categories.json', JSON.stringify({ ...categoriesOnly, prompts: [], skills: [] }))
    expect(await importText(copy, 'export.csv', text)).toMatchObject({ created: 3, failed: 0, errors: [], warnings: [] })
    expect(await rows(copy, 'prompts', 'id')).toEqual(await rows(source, 'prompts', 'id'))
    expect(await exported(copy, { format: 'csv' })).toBe(text)
  })
})

describe('promptlib export (a real process)', () => {
  test('to a file or standard output; the format from --format or the extension; bad arguments are clear', async () => {
    const env = await processEnv()
    const file = join(env.DATA_DIR!, 'in.json')
    writeFileSync(file, JSON.stringify(SOURCE))
    expect(cli(['import', file], env).code).toBe(0)

    const out = join(env.DATA_DIR!, 'out.csv')
    const toFile = cli(['export', out], env)
    expect(toFile).toMatchObject({ code: 0, stderr: '' })
    expect(toFile.stdout).toMatch(/^exported 3 prompts to .*out\.csv \(csv, [\d.]+ s\)\n$/)
    expect(readFileSync(out, 'utf8').startsWith('id,act,prompt,')).toBe(true)

    const toStdout = cli(['export', '--format', 'json', '--category=writing', '-'], env)
    expect(toStdout.code).toBe(0)
    expect(JSON.parse(toStdout.stdout).prompts).toHaveLength(2)
    expect(toStdout.stderr).toMatch(/^exported 1 categories, 2 prompts, 0 skills to standard output/)

    expect(cli(['export', '--category', 'nope', join(env.DATA_DIR!, 'x.json')], env)).toMatchObject({
      code: 1,
      stderr: 'promptlib: no category "nope"; nothing exported\n',
    })
    expect(cli(['export', '--format', 'xml'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--format is json or csv') })
    // A flag without its value is a mistake, not "everything".
    for (const flag of ['--category', '--format'])
      expect(cli(['export', join(env.DATA_DIR!, 'y.json'), flag], env)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`${flag} needs a value`),
      })
    expect(existsSync(join(env.DATA_DIR!, 'y.json'))).toBe(false)
  }, 30_000)

  // An export to the database's own name (backup meant, a typo made) wrote JSON over every account.
  test('never over the data directory’s own files: the database, what SQLite keeps beside it, the JWT secret', async () => {
    const env = await processEnv()
    expect(cli(['user', 'list'], env).code).toBe(0) // creates the database
    writeFileSync(join(env.DATA_DIR!, 'jwt-secret'), 'a-secret-of-at-least-thirty-two-bytes-0123456789')
    for (const name of ['promptlib.db', 'promptlib.db-wal', 'promptlib.db-journal', 'jwt-secret', './promptlib.db']) {
      const before = existsSync(join(env.DATA_DIR!, name)) ? readFileSync(join(env.DATA_DIR!, name)) : null
      const refused = cli(['export', join(env.DATA_DIR!, name)], env)
      expect(refused).toMatchObject({ code: 2, stdout: '' })
      expect(refused.stderr).toMatch(/is the database itself|a file SQLite keeps beside the database|is the JWT secret/)
      expect(existsSync(join(env.DATA_DIR!, name)) ? readFileSync(join(env.DATA_DIR!, name)) : null).toEqual(before)
    }
    expect(cli(['user', 'list'], env).code).toBe(0)
  }, 30_000)

  test('standard output read only in part (`export - | head`): stops quietly, as a tool killed by SIGPIPE (141)', async () => {
    const env = await processEnv()
    const file = join(env.DATA_DIR!, 'big.json')
    // More than the pipe holds and more than one write (~1 MB): the export is still writing when the reader leaves.
    const prompts = Array.from({ length: 600 }, (_, i) => ({
      ...SOURCE.prompts[0]!,
      id: crypto.randomUUID(),
      title: `Prompt ${i}`,
      content: 'x'.repeat(5000),
    }))
    writeFileSync(file, JSON.stringify({ ...SOURCE, prompts }))
    expect(cli(['import', file], env).code).toBe(0)
    const r = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" export - | head -c 100 > /dev/null', process.execPath, MAIN], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    })
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 141, stderr: '' })
  }, 30_000)
})
