// Reads a promptlib catalogue file (one JSON object; `categories`, `prompts` and `skills` are
// arrays of records) as a stream of its records, each with the line it starts on, holding only a
// window of the file. The structure between records is checked here; each record's bytes are
// decoded (UTF-8, strictly) and parsed on their own with JSON.parse. Any syntax error, wherever
// it is, stops the file: past it, where records begin and end cannot be known.
import { findJsonSyntaxError } from './json-syntax'
import { type ByteSource, Window } from './source'
import { firstInvalidByte, lenientUtf8, strictUtf8 } from './utf8'

export const SECTIONS = ['categories', 'prompts', 'skills'] as const
export type Section = (typeof SECTIONS)[number]

/**
 * The largest record read: a prompt's content is at most 5,000,000 characters, which JSON escapes
 * can make six times as many bytes. A record that runs on past this has a bracket or a quote that
 * never closes.
 */
export const MAX_RECORD_BYTES = 64 << 20

export type CatalogueEvent =
  /** a top-level field other than a section's array (`format`, `version`, an unknown one, a section that is not an array) */
  | { kind: 'field'; key: string; value: unknown; line: number }
  /** one element of a section's array; `start`/`end` are its byte offsets in the file (to read it again) */
  | { kind: 'record'; section: Section; index: number; line: number; value: unknown; start: number; end: number }
  /** an element whose bytes are not UTF-8: refused, named by its line and column */
  | { kind: 'unreadable'; section: Section; index: number; line: number; column: number }

/** Where the file stops being a catalogue's JSON; the file is refused. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`not valid JSON: column ${column}: ${detail}`)
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const LBRACE = 0x7b
const RBRACE = 0x7d
const LBRACKET = 0x5b
const RBRACKET = 0x5d
const NEWLINE = 0x0a
const isSpace = (c: number) => c === 0x20 || c === NEWLINE || c === 0x0d || c === 0x09

/** The end (exclusive) of the string whose opening quote is at `i`, or -1 when the bytes end first. */
function stringEnd(b: Uint8Array, i: number): number {
  for (let k = i + 1; ; ) {
    const q = b.indexOf(QUOTE, k)
    if (q === -1) return -1
    let backslashes = 0
    for (let j = q - 1; j > i && b[j] === BACKSLASH; j--) backslashes++
    if (backslashes % 2 === 0) return q + 1
    k = q + 1
  }
}

/**
 * The end (exclusive) of the JSON value that starts at `i`, or -1 when the bytes end first. Only
 * strings and brackets are followed here; JSON.parse checks the rest.
 */
function valueEnd(b: Uint8Array, i: number, eof: boolean): number {
  const first = b[i]
  if (first === QUOTE) return stringEnd(b, i)
  if (first === LBRACE || first === LBRACKET) {
    let depth = 0
    for (let k = i; k < b.length; k++) {
      const c = b[k]!
      if (c === QUOTE) {
        const end = stringEnd(b, k)
        if (end === -1) return -1
        k = end - 1
      } else if (c === LBRACE || c === LBRACKET) depth++
      else if ((c === RBRACE || c === RBRACKET) && --depth === 0) return k + 1
    }
    return -1
  }
  for (let k = i; k < b.length; k++) {
    const c = b[k]!
    if (c === COMMA || c === RBRACE || c === RBRACKET || isSpace(c)) return k
  }
  return eof ? b.length : -1
}

const countNewlines = (b: Uint8Array, from: number, to: number) => {
  let n = 0
  for (let k = b.indexOf(NEWLINE, from); k !== -1 && k < to; k = b.indexOf(NEWLINE, k + 1)) n++
  return n
}

/** A value read from the file: its bytes and where it starts. */
interface Value {
  bytes: Uint8Array
  start: number
  end: number
  line: number
  /** file offset where the value's first line starts */
  lineStart: number
}

export async function* readCatalogue(source: ByteSource): AsyncGenerator<CatalogueEvent> {
  const w = new Window(source)
  let at = 0 // file offset of the next byte to read
  let line = 1
  let lineStart = 0 // file offset where the line of `at` starts

  /** Line and column of a file offset: inside `within` (a value read), else on the current line. */
  const position = async (offset: number, within?: Value): Promise<[number, number]> => {
    if (!within) return [line, await columnOf(source, lineStart, offset)]
    const before = within.bytes.subarray(0, offset - within.start)
    const last = before.lastIndexOf(NEWLINE)
    const from = last === -1 ? within.lineStart : within.start + last + 1
    return [within.line + countNewlines(before, 0, before.length), await columnOf(source, from, offset)]
  }
  const fail = async (offset: number, detail: string, within?: Value): Promise<never> => {
    throw new JsonSyntaxError(...(await position(offset, within)), detail)
  }
  /** The byte at the reading position, reading on when needed; null at the end of the file. */
  const peek = async (): Promise<number | null> => {
    while (at - w.base >= w.bytes.length) if (!(await w.fill())) return null
    return w.bytes[at - w.base]!
  }
  const skipSpace = async (): Promise<number | null> => {
    for (;;) {
      const c = await peek()
      if (c === null || !isSpace(c)) return c
      if (c === NEWLINE) {
        line++
        lineStart = at + 1
      }
      at++
    }
  }
  /**
   * The byte `c` at the reading position, for a message: the character it starts (a byte past
   * ASCII is not a character of its own: 0xFF is not "ÿ"), or what is wrong with the bytes there.
   */
  const describe = async (c: number | null): Promise<string> => {
    if (c === null) return 'the end of the file'
    if (c < 0x80) return JSON.stringify(String.fromCharCode(c))
    while (w.end - at < 4 && (await w.fill()));
    const bytes = w.bytes.subarray(at - w.base, at - w.base + 4)
    if (at === 0 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)))
      return 'a UTF-16 byte-order mark (the file must be UTF-8)'
    if (firstInvalidByte(bytes) === 0) return 'bytes that are not valid UTF-8 (the file must be UTF-8)'
    const code = lenientUtf8(bytes).codePointAt(0)!
    return code <= 0x9f || code === 0xa0 || code === 0xfeff
      ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
      : JSON.stringify(String.fromCodePoint(code))
  }
  const expect = async (byte: number, what: string) => {
    const c = await skipSpace()
    if (c !== byte) await fail(at, `expected ${what}, found ${await describe(c)}`)
    at++
  }
  /** The value at the reading position (after white space); moves past it. */
  const value = async (): Promise<Value> => {
    const c = await skipSpace()
    if (c === null) await fail(at, 'expected a value, found the end of the file')
    if (c === COMMA || c === COLON || c === RBRACE || c === RBRACKET) await fail(at, `expected a value, found ${await describe(c)}`)
    const start = at
    const first = { line, lineStart }
    for (;;) {
      const end = valueEnd(w.bytes.subarray(start - w.base), 0, w.eof)
      if (end !== -1) {
        const bytes = w.bytes.subarray(start - w.base, start - w.base + end)
        const newlines = countNewlines(bytes, 0, bytes.length)
        if (newlines > 0) {
          line += newlines
          lineStart = start + bytes.lastIndexOf(NEWLINE) + 1
        }
        at = start + end
        return { bytes, start, end: at, ...first }
      }
      if (w.end - start > MAX_RECORD_BYTES)
        await fail(start, `a value runs on for more than ${MAX_RECORD_BYTES >> 20} MB: a bracket or a quote is never closed`)
      if (!(await w.fill())) {
        at = w.end
        // Where the file ends: the value's lines counted (it may span many), not its first line's.
        const unfinished = { bytes: w.bytes.subarray(start - w.base), start, end: w.end, ...first }
        await fail(w.end, 'the file ends inside a value (a bracket or a quote is never closed)', unfinished)
      }
    }
  }
  /** Parses a value's text, or stops the file at its first syntax error. */
  const parse = async (v: Value, text: string): Promise<unknown> => {
    try {
      return JSON.parse(text)
    } catch (error) {
      const syntax = findJsonSyntaxError(text)
      if (!syntax) return fail(v.start, (error as Error).message, v)
      return fail(v.start + new TextEncoder().encode(text.slice(0, syntax.index)).length, syntax.message, v)
    }
  }
  /** The value's text, or null when its bytes are not UTF-8 (with where the first bad byte is). */
  const decode = async (v: Value): Promise<{ text: string } | { line: number; column: number }> => {
    const text = strictUtf8(v.bytes)
    if (text !== null) return { text }
    const [badLine, column] = await position(v.start + firstInvalidByte(v.bytes), v)
    return { line: badLine, column }
  }

  // A byte-order mark is skipped.
  while (w.bytes.length < 3 && (await w.fill()));
  if (w.bytes[0] === 0xef && w.bytes[1] === 0xbb && w.bytes[2] === 0xbf) at = lineStart = 3
  await expect(LBRACE, '"{" (a catalogue is one JSON object)')
  for (let first = true; ; first = false) {
    w.drop(at)
    let c = await skipSpace()
    if (first && c === RBRACE) {
      at++
      break
    }
    if (c !== QUOTE) await fail(at, `expected a string (a field name), found ${await describe(c)}`)
    const keyValue = await value()
    const keyText = await decode(keyValue)
    if (!('text' in keyText)) throw new UnreadableField(keyText.line, keyText.column)
    const key = (await parse(keyValue, keyText.text)) as string
    await expect(COLON, '":" after the field name')
    c = await skipSpace()
    const section = (SECTIONS as readonly string[]).includes(key) ? (key as Section) : null
    if (section !== null && c === LBRACKET) {
      at++
      for (let index = 0; ; index++) {
        w.drop(at)
        c = await skipSpace()
        if (index === 0 && c === RBRACKET) {
          at++
          break
        }
        const v = await value()
        const decoded = await decode(v)
        if ('text' in decoded) yield { kind: 'record', section, index, line: v.line, value: await parse(v, decoded.text), start: v.start, end: v.end }
        else yield { kind: 'unreadable', section, index, ...decoded }
        c = await skipSpace()
        if (c === COMMA) at++
        else if (c === RBRACKET) {
          at++
          break
        } else await fail(at, `expected "," or "]", found ${await describe(c)}`)
      }
    } else {
      const v = await value()
      const decoded = await decode(v)
      if (!('text' in decoded)) throw new UnreadableField(decoded.line, decoded.column)
      yield { kind: 'field', key, value: await parse(v, decoded.text), line: v.line }
    }
    c = await skipSpace()
    if (c === COMMA) at++
    else if (c === RBRACE) {
      at++
      break
    } else await fail(at, `expected "," or "}", found ${await describe(c)}`)
  }
  const rest = await skipSpace()
  if (rest !== null) await fail(at, `unexpected ${await describe(rest)} after the end of the JSON value`)
}

/** A top-level field (outside the records) whose bytes are not UTF-8: the file is refused. */
export class UnreadableField extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
  ) {
    super(`column ${column}: bytes that are not valid UTF-8 (the file must be UTF-8)`)
  }
}

/** The column (1-based, in characters) of `offset` on the line that starts at `lineStart`, read piece by piece. */
async function columnOf(source: ByteSource, lineStart: number, offset: number): Promise<number> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let characters = 0
  for (let from = lineStart; from < offset; from += 1 << 20) {
    const text = decoder.decode(await source.range(from, Math.min(offset, from + (1 << 20))), { stream: true })
    for (const _ of text) characters++
  }
  return characters + 1
}
