// Pure helpers of the web app: search snippets read back into text and marks (never innerHTML),
// the Server-Sent Events parser of the optimizer stream, and the daily-reset arithmetic.
import { describe, expect, test } from 'bun:test'
import { decodeEntities, parseSnippet } from '../web/lib/snippet'
import { SseParser } from '../web/lib/sse'
import { duration, secondsToUtcMidnight } from '../web/lib/time'

describe('snippets', () => {
  test('marks become marked pieces; entities are decoded back to the characters', () => {
    expect(parseSnippet('Say &quot;no&quot; to an <mark>email</mark> &amp; <mark>keep</mark> it…')).toEqual([
      { text: 'Say "no" to an ', marked: false },
      { text: 'email', marked: true },
      { text: ' & ', marked: false },
      { text: 'keep', marked: true },
      { text: ' it…', marked: false },
    ])
  })

  test('escaped markup in the catalogue stays text; a tag other than mark is shown as written', () => {
    expect(parseSnippet('&lt;script&gt;alert(1)&lt;/script&gt; <mark>x</mark>')).toEqual([
      { text: '<script>alert(1)</script> ', marked: false },
      { text: 'x', marked: true },
    ])
    expect(parseSnippet('<b>bold</b>')).toEqual([{ text: '<b>bold</b>', marked: false }])
  })

  test('numeric entities; unknown or invalid ones are left alone', () => {
    expect(decodeEntities('&#39;&#x27;&#8230;&apos;&nbsp;&#0;&#xD800;&#99999999;')).toBe("''…'&nbsp;&#0;&#xD800;&#99999999;")
  })
})

describe('SSE parser', () => {
  test('events split anywhere across chunks; comments ignored; multi-line data joined', () => {
    const stream =
      'event: start\ndata: {"id":"x"}\n\n: ping\n\nevent: delta\ndata: {"text":"a\\nb"}\n\nevent: delta\ndata: one\ndata: two\n\nevent: done\ndata: {}\n\n'
    for (const size of [1, 2, 3, 7, stream.length]) {
      const parser = new SseParser()
      const events = []
      for (let i = 0; i < stream.length; i += size) events.push(...parser.push(stream.slice(i, i + size)))
      expect(events).toEqual([
        { event: 'start', data: '{"id":"x"}' },
        { event: 'delta', data: '{"text":"a\\nb"}' },
        { event: 'delta', data: 'one\ntwo' },
        { event: 'done', data: '{}' },
      ])
    }
  })

  test('CRLF and CR line endings, a CRLF split between chunks', () => {
    const parser = new SseParser()
    expect(parser.push('event: delta\r\ndata: x\r')).toEqual([])
    expect(parser.push('\n\r\nevent: done\rdata: y\r\r')).toEqual([{ event: 'delta', data: 'x' }])
    // the last \r may still be the first half of \r\n: it ends its line only once the next character comes
    expect(parser.push('event: next')).toEqual([{ event: 'done', data: 'y' }])
  })
})

describe('time', () => {
  test('the next 00:00 UTC', () => {
    expect(secondsToUtcMidnight(new Date('2026-11-24T23:59:30.000Z'))).toBe(30)
    expect(secondsToUtcMidnight(new Date('2026-11-24T00:00:00.000Z'))).toBe(86_400)
  })

  test('durations', () => {
    expect(duration(30)).toBe('under a minute')
    expect(duration(45 * 60)).toBe('45 min')
    expect(duration(3 * 3600)).toBe('3 h')
    expect(duration(5 * 3600 + 12 * 60 + 9)).toBe('5 h 12 min')
  })
})
