// The prompt page's variable form: which variables a template has, what the form starts with, and
// the template filled live (web/lib/template.ts, the same syntax as the server's parser).
import { describe, expect, test } from 'bun:test'
import { parseVariables } from '../src/features/catalogue/text'
import { emptyVariables, fillSegments, fillTemplate, humanize, initialValues } from '../web/lib/template'

describe('initial values', () => {
  test('a default, the first option, or empty', () => {
    const variables = parseVariables('{{topic}} in a {{tone:friendly}} tone as a {{format:list|table}}')
    expect(initialValues(variables)).toEqual({ topic: '', tone: 'friendly', format: 'list' })
  })
})

describe('filling', () => {
  const content = 'Write about {{topic}} in a {{ tone : friendly }} tone.\nFormat: {{format:list|table}}. Again: {{topic}}.'

  test('every occurrence of a variable takes its value, whatever its spacing and spec', () => {
    expect(fillTemplate(content, { topic: 'tides', tone: 'dry', format: 'table' })).toBe(
      'Write about tides in a dry tone.\nFormat: table. Again: tides.',
    )
  })

  test('an empty (or blank) value leaves the placeholder written as {{name}}', () => {
    expect(fillTemplate(content, { topic: '  ', tone: 'dry', format: 'list' })).toBe(
      'Write about {{topic}} in a dry tone.\nFormat: list. Again: {{topic}}.',
    )
    expect(emptyVariables(parseVariables(content), { topic: ' ', tone: 'dry', format: '' })).toEqual(['topic', 'format'])
  })

  test('values are used as written: braces, dollar signs and regex characters are not special', () => {
    expect(fillTemplate('a {{x}} b', { x: '$& {{y}} $1 \\n' })).toBe('a $& {{y}} $1 \\n b')
  })

  test('segments tell text, filled values and empty placeholders apart, in order', () => {
    expect(fillSegments('Hi {{name}}, see {{place:here}}!', { name: 'Ada', place: '' })).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'value', name: 'name', text: 'Ada' },
      { kind: 'text', text: ', see ' },
      { kind: 'empty', name: 'place', text: '{{place}}' },
      { kind: 'text', text: '!' },
    ])
  })

  test('text that only looks like a variable stays as it is', () => {
    const text = 'JSON: {"a": {{1}}}, {{ }}, {{-x}}, {single}'
    expect(fillTemplate(text, {})).toBe(text)
    expect(parseVariables(text)).toEqual([])
  })

  test('the client finds the same variables as the server, Unicode names included', () => {
    const text = '{{thème}} {{_x.y-z:1}} {{ña:a|b}} {{thème}}'
    const names = fillSegments(text, {})
      .filter((s) => s.kind !== 'text')
      .map((s) => (s as { name: string }).name)
    expect([...new Set(names)]).toEqual(parseVariables(text).map((v) => v.name))
    expect(fillTemplate(text, { thème: 'A', '_x.y-z': 'B', ña: 'C' })).toBe('A B C A')
  })
})

test('labels people read', () => {
  expect(humanize('product_name')).toBe('Product name')
  expect(humanize('targetAudience')).toBe('Target audience')
  expect(humanize('number-of.emails')).toBe('Number of emails')
})
