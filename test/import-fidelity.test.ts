// Imports keep text exactly (docs/catalogue-format.md, "Text is kept exactly"): a prompt's title,
// description and content, a skill's description and instructions are stored and served as in the
// file, control characters included (prompts.chat's CSV joins a multi-file skill's files with
// U+001F and U+001E). NUL, lone surrogates and bytes that are not UTF-8 cannot be stored: they
// refuse their record alone, with file, line and field; the rest of the file is imported.
import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { uuidV5 } from '../src/features/catalogue/text'
import { json, makeTestApp, tempDir } from './support/app'
import { countRows } from './support/catalogue'
import { sqlRows } from './support/sql'

const t = await makeTestApp()
const dir = tempDir()
let files = 0
/** Writes `content` to a fresh file with this extension; returns its path. */
function file(extension: string, content: string | Buffer): string {
  const path = join(dir, `file-${++files}.${extension}`)
  writeFileSync(path, content)
  return path
}
const importOne = async (path: string) => (await t.services.catalogue.importPaths([path]))[0]!
const promptCount = () => countRows(t, 'prompts')
const served = async (id: string) => {
  const res = await t.request(`/api/prompts/${id}`)
  expect(res.status).toBe(200)
  return json(res)
}

/** prompts.chat's CSV stores a multi-file skill as one prompt: `\u001FFILE:path\u001E` before each file. */
const MULTI_FILE =
  '# Deploy helper\nRun the script.\u001FFILE:scripts/deploy.sh\u001E#!/bin/sh\necho deploy\u001FFILE:README.md\u001ESee SKILL.md.\u001E'

const catalogue = (prompts: unknown[]) =>
  JSON.stringify({ format: 'promptlib-catalogue', version: 1, categories: [{ id: 'fidelity', name: 'Fidelity' }], prompts }, null, 2)

describe('prompts.csv', async () => {
  test('control characters (U+0007, U+001E, U+001F) are kept; only the contract’s trim applies', async () => {
    const path = file('csv', `act,prompt\n"Bell\u0007 ringer  ","  ${MULTI_FILE}  "\n"\u001FStarts with a separator","\u001Econtent\u001F"\n`)
    const report = await importOne(path)
    expect(report.errors).toEqual([])
    expect(report.created).toBe(2)
    const multi = await served(uuidV5('general\nBell\u0007 ringer'))
    expect(multi.title).toBe('Bell\u0007 ringer')
    expect(multi.content).toBe(MULTI_FILE)
    const separator = await served(uuidV5('general\n\u001FStarts with a separator'))
    expect(separator.title).toBe('\u001FStarts with a separator')
    expect(separator.content).toBe('\u001Econtent\u001F')
    // The same file again: nothing to change.
    expect(await importOne(path)).toMatchObject({ created: 0, updated: 0, unchanged: 2 })
  })

  test('NUL refuses its row alone, with file, line and field; the other rows are imported', async () => {
    const before = await promptCount()
    const path = file(
      'csv',
      'act,prompt\n"Fine","A fine row."\n"Has NUL","before\u0000after"\n"Multi-line","first line\nsecond \u0000 line"\n"Also \u0000 fine","ok"\n',
    )
    const report = await importOne(path)
    expect(report.errors).toEqual([
      { file: path, line: 3, message: expect.stringMatching(/^"prompt" contains NUL \(U\+0000\)/) },
      { file: path, line: 5, message: expect.stringMatching(/^"prompt" contains NUL/) },
      { file: path, line: 6, message: expect.stringMatching(/^"act" contains NUL/) },
    ])
    expect(report).toMatchObject({ created: 1, failed: 3 })
    expect(await promptCount()).toBe(before + 1)
    expect((await served(uuidV5('general\nFine'))).content).toBe('A fine row.')
  })

  test('bytes that are not UTF-8 refuse their row with file, line and field (never silently U+FFFD)', async () => {
    const before = await promptCount()
    const path = file(
      'csv',
      Buffer.concat([Buffer.from('act,prompt\n"Good","fine"\n"Latin-1","caf'), Buffer.from([0xe9]), Buffer.from(' au lait"\n')]),
    )
    const report = await importOne(path)
    expect(report.errors).toEqual([{ file: path, line: 3, message: expect.stringMatching(/^"prompt" contains bytes that are not valid UTF-8/) }])
    expect(report).toMatchObject({ created: 1, failed: 1 })
    expect(await promptCount()).toBe(before + 1)
    // A real U+FFFD in the file is text like any other and is kept.
    const replacement = file('csv', 'act,prompt\n"Replacement char","keeps \uFFFD as is"\n')
    expect((await importOne(replacement)).errors).toEqual([])
    const [row] = await sqlRows<{ content: string }>(t.storage, 'SELECT content FROM prompts WHERE id = $1', [uuidV5('general\nReplacement char')])
    expect(row!.content).toBe('keeps \uFFFD as is')
  })
})

describe('JSON catalogue', async () => {
  test('title, description and content are kept exactly: control characters, leading and trailing spaces', async () => {
    const id = 'f1de0000-0000-4000-8000-000000000001'
    const prompt = {
      id,
      title: '  Spaced\u001F title ',
      description: '\u0007bell\u001E ',
      category: 'fidelity',
      content: `\n  ${MULTI_FILE}\u0001\u007f\u0085\ufeff\uffff\u2028  \n`,
    }
    const report = await importOne(file('json', catalogue([prompt])))
    expect(report.errors).toEqual([])
    const body = await served(id)
    expect({ title: body.title, description: body.description, content: body.content }).toEqual({
      title: prompt.title,
      description: prompt.description,
      content: prompt.content,
    })
  })

  test('emptiness is still checked on the trimmed value', async () => {
    const report = await importOne(
      file('json', catalogue([{ id: 'f1de0000-0000-4000-8000-000000000002', title: ' \t ', category: 'fidelity', content: '  \n ' }])),
    )
    expect(report.errors.map((e) => e.message)).toEqual(['prompts[0]: "title" must not be empty', 'prompts[0]: "content" must not be empty'])
  })

  // A title of zero-width characters passed trim() and showed in the web app as a link of no width.
  test('a title or content of nothing visible (zero-width and format characters) is empty too; one with a visible character is kept exactly', async () => {
    const invisible = await importOne(
      file(
        'json',
        catalogue([{ id: 'f1de0000-0000-4000-8000-000000000003', title: '\u200b\u200b\ufeff', category: 'fidelity', content: '\u200d \u2060' }]),
      ),
    )
    expect(invisible.errors.map((e) => e.message)).toEqual(['prompts[0]: "title" must not be empty', 'prompts[0]: "content" must not be empty'])
    const csv = await importOne(file('csv', 'act,prompt\n"\u200b\u200c","Some text"\n'))
    expect(csv.errors.map((e) => e.message)).toEqual([expect.stringContaining('"act" (the title) is empty')])
    const id = 'f1de0000-0000-4000-8000-000000000004'
    const kept = await importOne(file('json', catalogue([{ id, title: '\u200bA\u200b', category: 'fidelity', content: 'x' }])))
    expect(kept.errors).toEqual([])
    expect((await served(id)).title).toBe('\u200bA\u200b')
  })

  test('a lone surrogate ("\\ud800") or NUL refuses the record alone, with file, line and field', async () => {
    const before = await promptCount()
    const text = catalogue([
      { id: 'f1de0000-0000-4000-8000-000000000003', title: 'Fine', category: 'fidelity', content: 'fine' },
      { id: 'f1de0000-0000-4000-8000-000000000004', title: 'Half a pair', category: 'fidelity', content: 'x \ud800 y' },
      { id: 'f1de0000-0000-4000-8000-000000000005', title: 'Trailing half \udfff', category: 'fidelity', content: 'nul \u0000 inside' },
    ])
    expect(text).toContain('\\ud800') // JSON.stringify escapes a lone surrogate
    const path = file('json', text)
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) // the record's "{" is the line above
    const report = await importOne(path)
    expect(report.errors).toEqual([
      { file: path, line: lineOf('000000000004'), message: 'prompts[1]: "content" contains a lone surrogate (\\ud800), which cannot be stored' },
      { file: path, line: lineOf('000000000005'), message: 'prompts[2]: "title" contains a lone surrogate (\\udfff), which cannot be stored' },
      { file: path, line: lineOf('000000000005'), message: expect.stringMatching(/^prompts\[2\]: "content" contains NUL \(U\+0000\)/) },
    ])
    expect(report).toMatchObject({ created: 1, failed: 2 }) // the fine prompt
    expect(await promptCount()).toBe(before + 1)
  })

  test('a lone surrogate anywhere in a record refuses it, once: a tag, a subcategory, a label', async () => {
    const text = JSON.stringify({
      format: 'promptlib-catalogue',
      version: 1,
      categories: [{ id: 'fidelity', name: 'Fidelity', subcategories: [{ id: 'one', name: 'One \udc00' }] }],
      prompts: [{ id: 'f1de0000-0000-4000-8000-000000000007', title: 'Tagged', category: 'fidelity', tags: ['fine', 'half \ud834'], content: 'x' }],
    })
    expect((await importOne(file('json', text))).errors.map((e) => e.message)).toEqual([
      'categories[0]: "subcategories[0].name" contains a lone surrogate (\\udc00), which cannot be stored',
      'prompts[0]: "tags[1]" contains a lone surrogate (\\ud834), which cannot be stored',
    ])
  })

  test('bytes that are not UTF-8 refuse their record alone, with its line and column', async () => {
    const before = await promptCount()
    const text = catalogue([
      { id: 'f1de0000-0000-4000-8000-000000000006', title: 'Latin-1', category: 'fidelity', content: 'cafXX au lait' },
      { id: 'f1de0000-0000-4000-8000-000000000016', title: 'UTF-8', category: 'fidelity', content: 'café au lait' },
    ])
    const [head, tail] = text.split('XX') as [string, string]
    const path = file('json', Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from(tail)]))
    const line = head.split('\n').length
    const column = head.split('\n').at(-1)!.length + 1
    const report = await importOne(path)
    expect(report.errors).toEqual([
      { file: path, line, message: `prompts[0]: column ${column}: bytes that are not valid UTF-8 (the file must be UTF-8)` },
    ])
    expect(report).toMatchObject({ failed: 1 })
    expect(await promptCount()).toBe(before + 1)
    expect((await served('f1de0000-0000-4000-8000-000000000016')).content).toBe('café au lait')
    // Outside the records (a top-level field), such bytes refuse the file.
    const header = file('json', Buffer.concat([Buffer.from('{"format": "promptlib-cat'), Buffer.from([0xe9]), Buffer.from('logue", "version": 1}')]))
    expect(await importOne(header)).toMatchObject({
      refused: true,
      errors: [{ file: header, line: 1, message: 'column 26: bytes that are not valid UTF-8 (the file must be UTF-8)' }],
    })
  })

  test('a syntax error names its line and column', async () => {
    const broken = file('json', '{\n  "format": "promptlib-catalogue",\n  "version": 1,\n  "prompts": [,]\n}\n')
    expect((await importOne(broken)).errors).toEqual([{ file: broken, line: 4, message: 'not valid JSON: column 15: expected a value, found ","' }])
    const truncated = file('json', '{"format": "promptlib-catalogue", ')
    expect((await importOne(truncated)).errors).toEqual([
      { file: truncated, line: 1, message: 'not valid JSON: column 35: expected a string (a field name), found the end of the file' },
    ])
    const raw = file('json', '{"format": "promptlib-catalogue",\n "x": "tab\there"}')
    expect((await importOne(raw)).errors).toEqual([
      { file: raw, line: 2, message: 'not valid JSON: column 11: a control character (U+0009) inside a string must be escaped' },
    ])
  })
})

describe('SKILL.md', async () => {
  const skill = (name: string, content: string | Buffer) => {
    const folder = join(dir, name)
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, 'SKILL.md'), content)
    return folder
  }
  const stored = async (name: string) =>
    (
      await sqlRows<{ description: string; instructions: string }>(t.storage, 'SELECT description, instructions FROM skills WHERE id = $1', [name])
    )[0] ?? null

  test('the body (instructions) and the description are kept exactly', async () => {
    const body = `\n# Separated\u001Ffiles\n${MULTI_FILE}\n\n`
    const folder = skill('separators', `---\nname: separators\ndescription: "  Splits\\x1Ffiles. Use when needed. "\n---\n${body}`)
    expect((await importOne(folder)).errors).toEqual([])
    expect(await stored('separators')).toEqual({ description: '  Splits\u001Ffiles. Use when needed. ', instructions: body })
  })

  test('NUL refuses the skill with its line and field', async () => {
    const folder = skill('nul-body', '---\nname: nul-body\ndescription: Fine. Use when needed.\n---\n# Title\n\nText \u0000 here\n')
    expect((await importOne(folder)).errors).toEqual([
      { file: join(folder, 'SKILL.md'), line: 7, message: expect.stringMatching(/^"instructions" contains NUL/) },
    ])
    expect(await stored('nul-body')).toBeNull()
  })

  test('bytes that are not UTF-8 refuse the skill with their line', async () => {
    const folder = skill(
      'latin-1',
      Buffer.concat([Buffer.from('---\nname: latin-1\ndescription: Fine. Use when needed.\n---\n# Caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    )
    expect((await importOne(folder)).errors).toEqual([
      { file: join(folder, 'SKILL.md'), line: 5, message: 'column 6: bytes that are not valid UTF-8 (the file must be UTF-8)' },
    ])
    expect(await stored('latin-1')).toBeNull()
  })
})

describe('search', async () => {
  test('finds a word next to U+001F; the snippet is well-formed HTML text without control characters', async () => {
    const id = 'f1de0000-0000-4000-8000-000000000010'
    const content = `Intro.\u001FFILE:zanzibarian.md\u001E# Zanzibarian notes\u0007<b>bold</b>\u001FFILE:b.md\u001Eend`
    expect((await importOne(file('json', catalogue([{ id, title: 'Separated files', category: 'fidelity', content }])))).errors).toEqual([])
    const res = await t.request('/api/search?q=zanzibarian')
    expect(res.status).toBe(200)
    const { items } = await json(res)
    const hit = items.find((item: { id: string }) => item.id === id)
    expect(hit).toBeDefined()
    expect(hit.snippet).toContain('<mark>zanzibarian</mark>')
    expect(hit.snippet).toContain('&lt;b&gt;bold&lt;/b&gt;')
    expect(hit.snippet).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/)
    expect((await served(id)).content).toBe(content)
  })
})
