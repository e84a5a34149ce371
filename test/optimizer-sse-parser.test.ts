// The incremental event-stream parser behind the OpenAI-compatible engine.
import { describe, expect, test } from 'bun:test'
import { type SseEvent, SseParseError, SseParser } from '../src/features/optimizer/engines/sse-parser'

function parseAll(chunks: string[]): SseEvent[] {
  const parser = new SseParser()
  const events = chunks.flatMap((chunk) => parser.push(chunk))
  return [...events, ...parser.end()]
}

const ev = (data: string, event = 'message', id?: string): SseEvent => ({ event, data, id })

/** A stream in the shape OpenAI-compatible servers send, with every awkward feature. */
const STREAM = [
  ': keep-alive comment\r\n',
  'data: {"choices":[{"delta":{"content":"Hel"}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"content":"lo 😀 wörld"}}]}\n\n',
  'event: custom\rdata: line one\rdata: line two\r\r',
  'id: 7\ndata:no-space\ndata:  two spaces\n\n',
  'data\n\n',
  'retry: 1000\nunknown: field\n\n',
  'data: [DONE]\n\n',
].join('')

const EXPECTED = [
  ev('{"choices":[{"delta":{"content":"Hel"}}]}'),
  ev('{"choices":[{"delta":{"content":"lo 😀 wörld"}}]}'),
  ev('line one\nline two', 'custom'),
  ev('no-space\n two spaces', 'message', '7'),
  ev('', 'message', '7'),
  ev('[DONE]', 'message', '7'),
]

describe('SseParser', () => {
  test('data lines, multi-line data, comments, event names, ids, CRLF, CR and LF', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED)
  })

  test('the same events whatever the chunk boundaries: split at every position', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(EXPECTED)
    }
  })

  test('the same events when fed one character at a time, or in random pieces', () => {
    expect(parseAll([...STREAM])).toEqual(EXPECTED)
    let seed = 42
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 200; round++) {
      const chunks: string[] = []
      for (let at = 0; at < STREAM.length; ) {
        const size = Math.floor(random() * 12)
        chunks.push(STREAM.slice(at, at + size))
        at += size
      }
      expect(parseAll(chunks)).toEqual(EXPECTED)
    }
  })

  test('a CRLF split across chunks is one line end, not two', () => {
    // Were the CR and the LF counted twice, the blank line would dispatch "a" on its own.
    expect(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([ev('a\nb')])
  })

  test('events are returned as soon as their blank line arrives', () => {
    const parser = new SseParser()
    expect(parser.push('data: one\n')).toEqual([])
    expect(parser.push('\ndata: tw')).toEqual([ev('one')])
    expect(parser.push('o\n\n')).toEqual([ev('two')])
  })

  test('a leading byte-order mark is ignored, once', () => {
    expect(parseAll(['\ufeffdata: x\n\n'])).toEqual([ev('x')])
    expect(parseAll(['\ufeff', 'data: x\n\n'])).toEqual([ev('x')])
  })

  test('events without data are not dispatched; comments never are', () => {
    expect(parseAll(['event: ping\n\n: comment\n\nid: 3\n\n'])).toEqual([])
  })

  test('an unterminated last event is dispatched at the end (lenient)', () => {
    expect(parseAll(['data: [DONE]'])).toEqual([ev('[DONE]')])
    expect(parseAll(['data: a\ndata: b\n'])).toEqual([ev('a\nb')])
  })

  test('an id with NUL is ignored; the last id carries over to later events', () => {
    expect(parseAll(['id: 1\ndata: a\n\nid: x\0y\ndata: b\n\n'])).toEqual([ev('a', 'message', '1'), ev('b', 'message', '1')])
  })

  test('a line or an event larger than the bound is refused, not buffered', () => {
    const parser = new SseParser(100)
    expect(() => parser.push('data: ' + 'x'.repeat(200))).toThrow(SseParseError)
    const events = new SseParser(100)
    expect(() => events.push('data: 0123456789\n'.repeat(20))).toThrow(SseParseError)
  })
})
