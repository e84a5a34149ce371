// Unit tests of the catalogue's tricky pure logic: CSV parsing, template variables, previews,
// search query building, snippets, record line numbers, allowed-tools lists, UUID v5, UTF-8
// decoding that keeps bad bytes visible, JSON syntax error positions.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { runMigrations } from '../src/db/sqlite/migrate'
import { CsvParser, parseCsv } from '../src/features/catalogue/import/csv-parse'
import { JsonSyntaxError, readCatalogue, UnreadableField } from '../src/features/catalogue/import/json-stream'
import { memorySource } from '../src/features/catalogue/import/source'
import { UuidSet } from '../src/features/catalogue/import/uuid-set'
import { asyncRevisionCache } from '../src/features/catalogue/revision-cache'
import { findJsonSyntaxError } from '../src/features/catalogue/import/json-syntax'
import { decodeUtf8, invalidBytes } from '../src/features/catalogue/import/utf8'
import { splitAllowedTools } from '../src/features/catalogue/import/skills-folder'
import { parseVariables, previewOf, uuidV5 } from '../src/features/catalogue/text'
import { ftsExpression } from '../src/lib/search/fts5'
import { snippet, snippetOfStart } from '../src/lib/search/snippet'
import { indexWords, searchTerms } from '../src/lib/search/terms'
import { tsquery, weightedVector, wordSet } from '../src/lib/search/tsquery'
import { normaliseTags, slugify, unstorable } from '../src/lib/text'
import { tempDir } from './support/app'

describe('parseCsv (RFC 4180)', () => {
  test('quoted commas, doubled quotes, line breaks inside quotes, CRLF, BOM; records and fields carry their first line', () => {
    const { records, errors } = parseCsv('\ufeffa,b\r\n"x, y","say ""hi"""\r\n"multi\r\nline",z\r\nlast,row')
    expect(errors).toEqual([])
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'], fieldLines: [1, 1] },
      { line: 2, fields: ['x, y', 'say "hi"'], fieldLines: [2, 2] },
      { line: 3, fields: ['multi\r\nline', 'z'], fieldLines: [3, 4] },
      { line: 5, fields: ['last', 'row'], fieldLines: [5, 5] },
    ])
  })

  test('LF endings, empty fields, a trailing comma, a final newline', () => {
    expect(parseCsv('a,,c,\n\n1,2,3,4\n').records).toEqual([
      { line: 1, fields: ['a', '', 'c', ''], fieldLines: [1, 1, 1, 1] },
      { line: 2, fields: [''], fieldLines: [2] },
      { line: 3, fields: ['1', '2', '3', '4'], fieldLines: [3, 3, 3, 3] },
    ])
  })

  test('an unterminated quote and text after a closing quote are errors with the line', () => {
    expect(parseCsv('a,b\n"open,x\ny,z').errors).toEqual([{ line: 2, message: 'a quoted field is never closed (missing ")' }])
    const r = parseCsv('a,b\n"x"junk,y\nc,d')
    expect(r.errors[0]!.line).toBe(2)
    expect(r.records.map((x) => x.line)).toEqual([1, 3])
  })

  test('a quote inside an unquoted field is kept as text', () => {
    expect(parseCsv('5" screen,ok').records[0]!.fields).toEqual(['5" screen', 'ok'])
  })
})

describe('parseVariables', () => {
  test('plain, default, options; first appearance order; duplicates skipped', () => {
    expect(parseVariables('{{a}} {{ b : hello world }} {{c:x|y| z}} {{a:ignored}} {{d:}} {{bad name}} {{ }}')).toEqual([
      { name: 'a', default: null, options: null },
      { name: 'b', default: 'hello world', options: null },
      { name: 'c', default: null, options: ['x', 'y', 'z'] },
      { name: 'd', default: null, options: null },
    ])
  })

  test('a 200,000-character content is fine', () => {
    expect(parseVariables(`${'word '.repeat(40_000)}{{late}}`)).toEqual([{ name: 'late', default: null, options: null }])
  })
})

describe('previewOf', () => {
  test('short text unchanged (whitespace folded); long text cut at a word boundary with …', () => {
    expect(previewOf('  Hello\n\nworld  ')).toBe('Hello world')
    const p = previewOf('alpha '.repeat(100))
    expect(p.endsWith('alpha…')).toBe(true)
    expect(p.length).toBeLessThanOrEqual(201)
  })
  test('from the very start of a text, what comes before its first word is shown, not cut without a "…"', () => {
    expect(snippet(['"Hello" said the quokka'], searchTerms('quokka')!)).toBe('&quot;Hello&quot; said the <mark>quokka</mark>')
    expect(snippet(['  <b>bold</b> quokka'], searchTerms('quokka')!)).toBe('&lt;b&gt;bold&lt;/b&gt; <mark>quokka</mark>')
    expect(snippet(['«quokka»'], searchTerms('quokka')!)).toBe('«<mark>quokka</mark>»')
  })

  test('control characters between words show as a space', () => {
    expect(previewOf('\u001FFILE:a.md\u001E# A\u0007\u0085b\u007f')).toBe('FILE:a.md # A b')
  })
  test('never splits a surrogate pair', () => {
    const p = previewOf('🙂'.repeat(300))
    expect(p.endsWith('…')).toBe(true)
    expect(/[\ud800-\udbff]…$/.test(p)).toBe(false)
  })
  test('white space that folds the first 400 characters below 200 still yields the text after it; trailing punctuation is dropped', () => {
    // previewOf folds the first 400 characters when they suffice, else the first 800.
    expect(previewOf(`${' '.repeat(350)}${'word '.repeat(60)}`)).toBe(`${'word '.repeat(39)}word…`)
    expect(previewOf(`${'a'.repeat(150)} ${'\u001f'.repeat(300)}${'b, '.repeat(200)}`)).toBe(`${'a'.repeat(150)} ${'b, '.repeat(15)}b…`)
    expect(previewOf(`${'x'.repeat(195)} -–—,;:. ${'y'.repeat(300)}`)).toBe(`${'x'.repeat(195)}…`)
  })
})

describe('tags and slugs', () => {
  test('normalised to slugs, unique, any script', () => {
    expect(normaliseTags(['Email Marketing', 'email-marketing', ' Café ', '日本語', '!!!', 'C++'])).toEqual([
      'email-marketing',
      'cafe',
      '日本語',
      'c',
    ])
    expect(slugify('  Hello, World!  ')).toBe('hello-world')
  })

  test('a long tag is cut at 64 units on a character: never half a surrogate pair, never a letter without its marks', () => {
    expect(normaliseTags([`a${'𠀀'.repeat(40)}`])[0]!.isWellFormed()).toBe(true)
    expect(normaliseTags([`${'क'.repeat(63)}कि`])).toEqual(['क'.repeat(63)])
  })
})

describe('uuidV5', () => {
  test('deterministic, version 5, RFC 4122 variant', () => {
    const id = uuidV5('general\nLinux Terminal')
    expect(id).toBe(uuidV5('general\nLinux Terminal'))
    expect(id).not.toBe(uuidV5('coding\nLinux Terminal'))
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})

describe('search query building', () => {
  test('words are quoted; the last is a prefix from 4 letters; stopwords dropped unless alone', () => {
    expect(searchTerms('How to write a Blog post')).toEqual({ words: ['write', 'blog', 'post'], typed: ['write', 'Blog', 'post'], prefix: true })
    expect(searchTerms('blog pos')).toEqual({ words: ['blog', 'pos'], typed: ['blog', 'pos'], prefix: false })
    expect(searchTerms('the')).toEqual({ words: ['the'], typed: ['the'], prefix: false })
    expect(searchTerms('go')).toEqual({ words: ['go'], typed: ['go'], prefix: false })
    expect(searchTerms('!!! 🙂 ---')).toBeNull()
    expect(ftsExpression(searchTerms('NEAR(x "y" OR zulu*')!, ['c61'])).toBe('"NEAR" AND "x" AND "y" AND "zulu"* AND facets : "c61"')
    // words go to FTS5 as typed (it folds them itself); the same word twice counts once
    expect(searchTerms('Café CAFE Ελληνικά')).toEqual({ words: ['cafe', 'ελληνικα'], typed: ['Café', 'Ελληνικά'], prefix: true })
  })

  test('an unfinished last word stands for itself or its completions, as whole words', () => {
    const terms = searchTerms('kubernetes deploym')!
    expect(ftsExpression(terms, [], ['deployment', 'deployments'])).toBe('"kubernetes" AND ("deploym" OR "deployment" OR "deployments")')
    expect(ftsExpression(terms, [], [])).toBe('"kubernetes" AND "deploym"')
    // no completions looked up (skills): FTS5's own prefix match
    expect(ftsExpression(terms)).toBe('"kubernetes" AND "deploym"*')
    // a finished word (too short to be a prefix) is never expanded
    expect(ftsExpression(searchTerms('blog pos')!, [], ['post'])).toBe('"blog" AND "pos"')
    // a completion with a quote cannot break out of its string
    expect(ftsExpression(searchTerms('abcd')!, [], ['ab"cd'])).toBe('("abcd" OR "ab""cd")')
  })

  test('at most 16 distinct words; very long words cut', () => {
    const t = searchTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))!
    expect(t.words).toHaveLength(16)
    expect(searchTerms('x'.repeat(5000))!.words[0]).toHaveLength(100)
    // a cut never leaves half a surrogate pair
    expect(searchTerms(`${'x'.repeat(99)}𝐀𝐀`)!.typed[0]).toBe('x'.repeat(99))
  })
})

describe('PostgreSQL query and vectors (literals of folded words)', () => {
  const words = (text: string) => {
    const out: string[] = []
    indexWords(text, (w) => out.push(w))
    return out
  }

  test('stored text is cut and folded exactly as a query is', () => {
    const text = 'Ünïcödé CAFÉ, e-mail\u001Fsplit 42nd İstanbul ß "quoted" NEAR(x) 🙂 日本語'
    expect(words(text)).toEqual(['unicode', 'cafe', 'e', 'mail', 'split', '42nd', 'istanbul', 'ß', 'quoted', 'near', 'x', '日本語'])
    expect(searchTerms(text)!.words).toEqual(words(text))
  })

  test('every word must match; the last one, when it may be unfinished, as a prefix; typed syntax is only words', () => {
    expect(tsquery(searchTerms('kubernetes deploym')!)).toBe("'kubernetes' & 'deploym':*")
    expect(tsquery(searchTerms('blog pos')!)).toBe("'blog' & 'pos'")
    expect(tsquery(searchTerms("it's a 'quote' & | ! <-> :* (x)")!)).toBe("'s' & 'quote' & 'x'")
  })

  test('a ranking vector: positions across the parts, each with its weight', () => {
    const vector = weightedVector([
      { text: 'Zebra crossing', weight: 'A' },
      { text: 'road-safety', weight: 'B' },
      { text: 'A zebra.', weight: 'C' },
    ])
    expect(vector).toBe("'zebra':1A,6C 'crossing':2A 'road':3B 'safety':4B 'a':5C")
  })

  test('a matching vector: the distinct words, no positions; folded whole, the same words as one by one', () => {
    // as search.pg.ts's allVector writes them
    const wordSetVector = (texts: string[]) => [...wordSet(texts)].join(' ')
    const lexemes = (vector: string) =>
      new Set(
        vector
          .split(' ')
          .map((w) => w.replace(/^'|'$/g, ''))
          .filter(Boolean),
      )
    expect(lexemes(wordSetVector(['Zebra zebra', 'ZEBRA crossing']))).toEqual(new Set(['zebra', 'crossing']))
    expect(wordSetVector(['', ' '])).toBe('')
    // a word longer than a lexeme is kept as its first 200 characters, wherever it is
    expect(wordSet(['short', `x ${'é'.repeat(150)}${'b'.repeat(150)} y`, `${'z'.repeat(201)}`])).toEqual(
      new Set(['short', 'x', `${'e'.repeat(150)}${'b'.repeat(50)}`, 'y', 'z'.repeat(200)]),
    )
    const texts = [
      'Plain ASCII, with punctuation: e-mail, C++, 3.14 and under_score!',
      'Ünïcödé CAFÉ crème brûlée naïve',
      'ΟΔΟΣ.ΑΒ ΟΔΟΣ ΣΟΦΙΑ', // a Greek final sigma is decided within its word
      'x-\u0301y a\u0308b İstanbul ß ẞ ﬁ Ǆ',
      '日本語のテキスト 中文 한국어 🙂🦓 emoji\u200dzwj',
      '\u001FFILE:notes.md\u001E#Notes \u0007bell',
      'mixed 42nd ١٢٣ ⅷ ²',
    ]
    for (const text of texts) {
      const oneByOne = new Set<string>()
      indexWords(text, (w) => oneByOne.add(w))
      expect({ text, words: lexemes(wordSetVector([text])) }).toEqual({ text, words: oneByOne })
    }
  })

  test('vectors stay under PostgreSQL’s 1 MB: a text of too many distinct words keeps its first ones', () => {
    const huge = Array.from({ length: 200_000 }, (_, i) => `w${i.toString(36)}x`).join(' ')
    const vector = [...wordSet([huge])].join(' ')
    expect(Buffer.byteLength(vector)).toBeLessThan(1_400_000)
    expect(vector.startsWith('w0x w1x ')).toBe(true)
    expect(vector).not.toContain(` w${(199_999).toString(36)}x`)
    const ranked = weightedVector([{ text: huge, weight: 'D' }])
    expect(ranked.split(' ').length).toBeLessThan(200_000)
    // every position is at most 16,383 and a word keeps at most 256 of them
    const many = weightedVector([{ text: 'same '.repeat(20_000), weight: 'A' }])
    const positions = many.slice("'same':".length).split(',')
    expect(positions).toHaveLength(256)
    expect(weightedVector([{ text: `${'x '.repeat(17_000)}last`, weight: 'A' }])).toContain("'last':16383A")
  })
})

describe('snippet', () => {
  test('the window around the matches, escaped, matches marked, … where cut', () => {
    const terms = searchTerms('zebra cros')!
    const text = `${'lead '.repeat(30)}the <b>zebra</b> & its crossing ${'tail '.repeat(30)}`
    const s = snippet([text], terms)
    expect(s.startsWith('…')).toBe(true)
    expect(s.endsWith('…')).toBe(true)
    expect(s).toContain('&lt;b&gt;<mark>zebra</mark>&lt;/b&gt; &amp; its <mark>crossing</mark>')
  })

  test('control characters between words show as a space', () => {
    expect(snippet(['one\u001FFILE:zebra.md\u001E\u0007two\u0001'], searchTerms('zebra')!)).toBe('one FILE:<mark>zebra</mark>.md two')
  })

  test('in text with other scripts, a match is a whole word of any script: not inside éplan, plané or a Cyrillic word', () => {
    const filler = 'filler words here '.repeat(40)
    // The first whole "plan" is far in: what comes before it only looks like one to ASCII eyes.
    // ("zq", too short to be a prefix, makes "plan" a whole word to match.)
    const text = `“Quoted” éplan plané плanning ${filler} the real plan — done`
    const s = snippet([text], searchTerms('plan zq')!)
    expect(s).toContain('the real <mark>plan</mark> — done')
    expect(s).not.toContain('éplan')
    // The unfinished last word still matches the start of a longer word.
    expect(snippet([`“x” éplanning ${filler} planning ahead`], searchTerms('zz plann')!)).toContain('<mark>planning</mark> ahead')
  })

  test('falls back to the next text, then to the start of the first', () => {
    expect(snippet(['nothing here', 'a zebra'], searchTerms('zebra')!)).toBe('a <mark>zebra</mark>')
    expect(snippet(['nothing here', 'none'], searchTerms('zebra')!)).toBe('nothing here')
  })
  test('from a long text’s start: the whole text’s snippet when the start decides it, else null', () => {
    const terms = searchTerms('zebra cros')!
    const early = `${'lead '.repeat(30)}the zebra crossing ${'tail '.repeat(2000)}`
    expect(snippetOfStart(early.slice(0, 4096), ['d', 't'], terms)).toBe(snippet([early, 'd', 't'], terms))
    // The first match past the start, or too near its end for the window: the whole text is needed.
    const late = `${'lead '.repeat(2000)}the zebra crossing`
    expect(snippetOfStart(late.slice(0, 4096), ['d', 't'], terms)).toBeNull()
    const edge = `${'lead '.repeat(800)}zebra ${'tail '.repeat(200)}`
    expect(edge.indexOf('zebra')).toBe(4000)
    expect(snippetOfStart(edge.slice(0, 4096), ['d', 't'], terms)).toBeNull()
  })

  test('from a start, whatever the text: never a snippet other than the whole text’s (property)', () => {
    // Words of several scripts, marks and separators, the query's words among them, cut anywhere.
    const pieces = [
      'zebra',
      'Zebras',
      'crossing',
      'cros',
      'éplan',
      'plan',
      'плане',
      'ゼブラ',
      'e\u0301',
      ' ',
      ' ',
      '. ',
      '\u001F',
      '—',
      '🦓',
      'x1',
      'lead',
    ]
    const piece = fc.constantFrom(...pieces)
    const query = fc.constantFrom('zebra cros', 'plan', 'zebra', 'плане', 'crossing zebr', 'x1 lead')
    let decided = 0
    fc.assert(
      fc.property(fc.array(piece, { minLength: 200, maxLength: 1500 }), query, fc.integer({ min: 1, max: 3000 }), (parts, q, cut) => {
        const text = parts.join('')
        const terms = searchTerms(q)!
        const start = text.slice(0, Math.min(cut, text.length - 1))
        const drawn = snippetOfStart(start, ['a description', 'a title'], terms)
        if (drawn === null) return
        decided++
        expect(drawn).toBe(snippet([text, 'a description', 'a title'], terms))
      }),
      { numRuns: 400 },
    )
    expect(decided).toBeGreaterThan(100) // most starts decide: the property is exercised
  })
})

describe('readCatalogue (a catalogue file as a stream of records)', () => {
  const events = async (text: string | Uint8Array, chunk?: number) => {
    const out: unknown[] = []
    const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text
    for await (const e of readCatalogue(memorySource(bytes, chunk))) out.push(e.kind === 'record' ? { ...e, start: undefined, end: undefined } : e)
    return out
  }
  const error = async (text: string | Uint8Array, chunk?: number) => {
    try {
      await events(text, chunk)
      return null
    } catch (e) {
      return e instanceof JsonSyntaxError || e instanceof UnreadableField ? { line: e.line, message: e.message } : String(e)
    }
  }

  test('each record with the line it starts on; fields; the same whatever the size of the pieces read', async () => {
    const text =
      '\ufeff{\n  "format": "x",\n  "prompts": [\n    {"title": "a [b] {c} \\" ]"},\n\n    {\n      "x": "\\\\"\n    }\n  ],\n  "skills": [{"é": "🙂"}], "n": -1.5e3}'
    const whole = await events(text)
    expect(whole).toEqual([
      { kind: 'field', key: 'format', value: 'x', line: 2 },
      { kind: 'record', section: 'prompts', index: 0, line: 4, value: { title: 'a [b] {c} " ]' } },
      { kind: 'record', section: 'prompts', index: 1, line: 6, value: { x: '\\' } },
      { kind: 'record', section: 'skills', index: 0, line: 10, value: { é: '🙂' } },
      { kind: 'field', key: 'n', value: -1500, line: 10 },
    ])
    for (const chunk of [1, 2, 3, 7, 64]) expect(await events(text, chunk)).toEqual(whole)
  })

  test('a record can be read again from its offsets', async () => {
    const text = '{"prompts": [ {"a": 1} ,\n {"b": "ü"} ]}'
    const bytes = new TextEncoder().encode(text)
    const found: string[] = []
    for await (const e of readCatalogue(memorySource(bytes, 5)))
      if (e.kind === 'record') found.push(new TextDecoder().decode(bytes.slice(e.start, e.end)))
    expect(found).toEqual(['{"a": 1}', '{"b": "ü"}'])
  })

  test('a syntax error anywhere stops the file, with its line and column', async () => {
    expect(await error('{\n  "format": "promptlib-catalogue",\n  "version": 1,\n  "prompts": [,]\n}\n')).toEqual({
      line: 4,
      message: 'not valid JSON: column 15: expected a value, found ","',
    })
    expect(await error('{"format": "x", ')).toEqual({
      line: 1,
      message: 'not valid JSON: column 17: expected a string (a field name), found the end of the file',
    })
    expect(await error('{"prompts": [\n {"a": 1,\n  "b": tru}\n]}')).toEqual({
      line: 3,
      message: 'not valid JSON: column 8: expected a value, found "t"',
    })
    expect(await error('{"prompts": [{"a": 1} {"b": 2}]}')).toEqual({ line: 1, message: 'not valid JSON: column 23: expected "," or "]", found "{"' })
    expect(await error('{"prompts": [{"a": "never closed}]}')).toEqual({
      line: 1,
      message: 'not valid JSON: column 36: the file ends inside a value (a bracket or a quote is never closed)',
    })
    expect(await error('{"a": 1} x')).toEqual({ line: 1, message: 'not valid JSON: column 10: unexpected "x" after the end of the JSON value' })
    expect(await error('[1, 2]')).toEqual({ line: 1, message: 'not valid JSON: column 1: expected "{" (a catalogue is one JSON object), found "["' })
    // columns count characters, not bytes
    expect(await error('{"é🙂": x}')).toEqual({ line: 1, message: 'not valid JSON: column 8: expected a value, found "x"' })
  })

  test('bytes that are not UTF-8: a record is refused alone (its line and column); elsewhere, the file', async () => {
    const bad = (before: string, after: string) => new Uint8Array([...new TextEncoder().encode(before), 0xe9, ...new TextEncoder().encode(after)])
    expect(await events(bad('{"prompts": [{"a": 1},\n {"b": "caf', '"}, {"c": 3}]}'), 4)).toEqual([
      { kind: 'record', section: 'prompts', index: 0, line: 1, value: { a: 1 } },
      { kind: 'unreadable', section: 'prompts', index: 1, line: 2, column: 12 },
      { kind: 'record', section: 'prompts', index: 2, line: 2, value: { c: 3 } },
    ])
    expect(await error(bad('{"format": "x', '"}'))).toEqual({
      line: 1,
      message: 'column 14: bytes that are not valid UTF-8 (the file must be UTF-8)',
    })
  })
})

describe('CsvParser (fed piece by piece)', () => {
  test('the same records and errors whatever the pieces', () => {
    const text = '\ufeffa,b\r\n"x, y","say ""hi"""\r\n"multi\r\nline",z\n"x"junk,y\n5" screen,ok\nlast,row'
    const whole = new CsvParser().push(text, true)
    expect(whole.map((r) => ('message' in r ? r.line : r.fields))).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
      ['multi\r\nline', 'z'],
      5,
      ['5" screen', 'ok'],
      ['last', 'row'],
    ])
    for (const size of [1, 2, 3, 5, 11]) {
      const parser = new CsvParser()
      const out = []
      for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)))
      out.push(...parser.push('', true))
      expect(out).toEqual(whole)
    }
  })

  test('a quote that never closes is fatal: the file cannot be read past it', () => {
    expect(new CsvParser().push('a,b\n"open,x\ny,z', true)).toEqual([
      { line: 1, fields: ['a', 'b'], fieldLines: [1, 1] },
      { line: 2, message: 'a quoted field is never closed (missing ")', fatal: true },
    ])
  })
})

describe('UuidSet', () => {
  test('finds every duplicate with the line first seen, through many growths', () => {
    const set = new UuidSet()
    const id = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-${(i * 7919).toString(16).padStart(12, '0')}`
    for (let i = 0; i < 50_000; i++) expect(set.add(id(i), i + 1)).toBeNull()
    expect(set.size).toBe(50_000)
    for (let i = 0; i < 50_000; i += 997) expect(set.add(id(i), 999_999)).toBe(i + 1)
    expect(set.add('ffffffff-ffff-4fff-bfff-ffffffffffff', 3)).toBeNull()
    expect(set.size).toBe(50_001)
  })
})

describe('splitAllowedTools', () => {
  test('spaces or commas, never inside parentheses', () => {
    expect(splitAllowedTools('Read, Grep Bash(git diff:*) Bash(npm run test:*)')).toEqual([
      'Read',
      'Grep',
      'Bash(git diff:*)',
      'Bash(npm run test:*)',
    ])
  })
})

describe('decodeUtf8', () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Uint8Array.from(p))))

  test('valid UTF-8 as is, a byte-order mark and a real U+FFFD kept', () => {
    const text = '\ufeffaé€😀\ufffd\u001f'
    expect(decodeUtf8(Buffer.from(text))).toBe(text)
  })

  test('every byte that is not UTF-8 becomes one lone surrogate U+DC80–U+DCFF, nothing else changes', () => {
    const cases: [Buffer, string][] = [
      [bytes('caf', [0xe9], ' ok'), 'caf\udce9 ok'], // Latin-1
      [bytes('a', [0xc0, 0xaf], 'b'), 'a\udcc0\udcafb'], // overlong "/"
      [bytes([0xed, 0xa0, 0x80]), '\udced\udca0\udc80'], // an encoded surrogate
      [bytes([0xf4, 0x90, 0x80, 0x80]), '\udcf4\udc90\udc80\udc80'], // above U+10FFFF
      [bytes('x', [0xe2, 0x82]), 'x\udce2\udc82'], // cut short at the end
      [bytes([0xe2, 0x82], 'y€'), '\udce2\udc82y€'], // cut short before valid text
    ]
    for (const [input, expected] of cases) expect(decodeUtf8(input)).toBe(expected)
  })

  test('invalidBytes: the first bad byte of each line, with line and column', () => {
    const text = decodeUtf8(bytes('ok\nab', [0xff, 0xfe], '\n\n😀', [0x80]))
    expect(invalidBytes(text)).toEqual([
      { line: 2, column: 3 },
      { line: 4, column: 2 },
    ])
    expect(invalidBytes('fine 😀')).toEqual([])
  })
})

describe('unstorable', () => {
  test('NUL and lone surrogates, named; control characters and U+FFFD are storable', () => {
    expect(unstorable('a\u0000b')).toEqual({ index: 1, problem: 'contains NUL (U+0000), which cannot be stored' })
    expect(unstorable('a\u0000b', { nul: false })).toBeNull()
    expect(unstorable('😀 \ud800')!.problem).toBe('contains a lone surrogate (\\ud800), which cannot be stored')
    expect(unstorable('x\udce9', { fromBytes: true })).toEqual({
      index: 1,
      problem: 'contains bytes that are not valid UTF-8 (the file must be UTF-8)',
    })
    expect(unstorable('\u0001\u001f\u007f\ufffd😀')).toBeNull()
  })
})

describe('findJsonSyntaxError', () => {
  const at = (text: string) => {
    const error = findJsonSyntaxError(text)
    return error && { at: text.slice(error.index, error.index + 3), message: error.message }
  }

  test('valid JSON has none', () => {
    for (const text of ['{}', ' [1, -2.5e+3, "a\\u00e9\\n", true, false, null, {"k": []}] ', '"\ud800"', '0'])
      expect(findJsonSyntaxError(text)).toBeNull()
  })

  test('the first error, where it is', () => {
    expect(at('{"a": 1,}')).toEqual({ at: '}', message: 'expected a string (a field name), found "}"' })
    expect(at('{"a" 1}')).toEqual({ at: '1}', message: 'expected ":" after the field name, found "1"' })
    expect(at('[1 2]')).toEqual({ at: '2]', message: 'expected "," or "]", found "2"' })
    expect(at('{"a": tru}')).toEqual({ at: 'tru', message: 'expected a value, found "t"' })
    expect(at('["ab')).toEqual({ at: '"ab', message: 'a string is never closed (missing ")' })
    expect(at('["a\\x"]')).toEqual({ at: '\\x"', message: 'invalid escape inside a string: a backslash followed by "x"' })
    expect(at('{} {}')).toEqual({ at: '{}', message: 'unexpected "{" after the end of the JSON value' })
    expect(at('[01]')).toEqual({ at: '1]', message: 'expected "," or "]", found "1"' })
    expect(at('')).toEqual({ at: '', message: 'expected a value, found the end of the file' })
  })

  test('every text JSON.parse refuses has an error found, and none it accepts', () => {
    const samples = [
      '{"a":[1,{"b":null}]}',
      '{"a":[1,{"b":nul}]}',
      '[1,]',
      '[-]',
      '[1.]',
      '[.5]',
      '"\t"',
      '"\\u12"',
      '{"a":1}}',
      '[[[]]',
      'NaN',
      '[1e5, -0, 0.1E-2]',
    ]
    for (const text of samples) {
      let parses = true
      try {
        JSON.parse(text)
      } catch {
        parses = false
      }
      expect(findJsonSyntaxError(text) === null, text).toBe(parses)
    }
  })
})

describe('SQLite: every word is one FTS5 token', () => {
  // The whole-prompt index has no positions (detail=column): a word FTS5 cut in two would be a
  // phrase, which it refuses. Every letter, digit and mark of Unicode, inside and at the end of
  // a word, against the real migrated tables.
  test('no code point turns a word into a phrase', () => {
    const db = openDatabase(join(tempDir(), 'tokens.db'))
    runMigrations(db)
    const count = db.$client.prepare('SELECT count(*) AS n FROM prompts_fts WHERE prompts_fts MATCH ?')
    const head = db.$client.prepare('SELECT count(*) AS n FROM prompts_head_fts WHERE prompts_head_fts MATCH ?')
    const refused: string[] = []
    let tried = 0
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const ch = String.fromCodePoint(cp)
      if (!/[\p{L}\p{N}\p{M}]/u.test(ch)) continue
      const terms = searchTerms(`a${ch}b x${ch}`)
      if (!terms) continue
      const match = ftsExpression(terms, ['c61'])
      tried++
      try {
        count.get(match)
        head.get(match)
      } catch (error) {
        if (refused.length < 10) refused.push(`U+${cp.toString(16)}: ${error}`)
      }
    }
    expect(tried).toBeGreaterThan(100_000)
    expect(refused).toEqual([])
    db.$client.close()
  })
})

describe('asyncRevisionCache', () => {
  test('one read per revision and key; a newer revision starts afresh, an older one is read but not kept, a failure is not kept', async () => {
    const cache = asyncRevisionCache<number>()
    let reads = 0
    const read = (value: number) => async () => {
      reads++
      return value
    }
    expect(await cache(1, 'a', read(10))).toBe(10)
    expect(await cache(1, 'a', read(99))).toBe(10)
    expect(reads).toBe(1)
    expect(await cache(2, 'a', read(20))).toBe(20)
    expect(await cache(1, 'a', read(11))).toBe(11) // behind: read, not kept
    expect(await cache(2, 'a', read(99))).toBe(20)
    await expect(cache(2, 'b', () => Promise.reject(new Error('down')))).rejects.toThrow('down')
    expect(await cache(2, 'b', read(30))).toBe(30)
    expect(reads).toBe(4)
  })
})
