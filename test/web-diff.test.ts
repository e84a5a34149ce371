// The optimizer's side-by-side diff (web/lib/diff.ts): a shortest edit script over tokens, lines
// paired into rows with the changed words marked.
import { describe, expect, test } from 'bun:test'
import { diff, type Edit, sideBySide, summary, words } from '../web/lib/diff'

const apply = <T>(edits: Edit<T>[]) => ({
  a: edits.filter((e) => e.op !== 'insert').map((e) => e.value),
  b: edits.filter((e) => e.op !== 'delete').map((e) => e.value),
})
const cost = <T>(edits: Edit<T>[]) => edits.filter((e) => e.op !== 'equal').length

describe('diff', () => {
  test('the classic example: a shortest script (5 edits) that rebuilds both sides', () => {
    const a = [...'abcabba']
    const b = [...'cbabac']
    const edits = diff(a, b)
    expect(apply(edits)).toEqual({ a, b })
    expect(cost(edits)).toBe(5)
  })

  test('equal, empty and one-sided inputs', () => {
    expect(diff([1, 2], [1, 2]).every((e) => e.op === 'equal')).toBe(true)
    expect(diff([], [])).toEqual([])
    expect(diff([], ['x'])).toEqual([{ op: 'insert', value: 'x' }])
    expect(diff(['x'], [])).toEqual([{ op: 'delete', value: 'x' }])
  })

  test('random sequences: always rebuilds both sides, never costs more than replacing everything', () => {
    let seed = 7
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31)
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: Math.floor(random() * 30) }, () => Math.floor(random() * 4))
      const b = Array.from({ length: Math.floor(random() * 30) }, () => Math.floor(random() * 4))
      const edits = diff(a, b)
      expect(apply(edits)).toEqual({ a, b })
      expect(cost(edits)).toBeLessThanOrEqual(a.length + b.length)
      // an LCS bound: cost = |a| + |b| - 2 × equal, and the equal tokens are a common subsequence
      expect(cost(edits)).toBe(a.length + b.length - 2 * edits.filter((e) => e.op === 'equal').length)
    }
  })

  test('minimal against a brute-force LCS on small inputs', () => {
    const lcs = (a: string, b: string): number => {
      const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++) t[i]![j] = a[i - 1] === b[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!)
      return t[a.length]![b.length]!
    }
    for (const [a, b] of [
      ['kitten', 'sitting'],
      ['abcdef', 'fedcba'],
      ['aaaa', 'aa'],
      ['xyz', 'abc'],
      ['prompt', 'promptly'],
    ] as const) {
      expect(cost(diff([...a], [...b]))).toBe(a.length + b.length - 2 * lcs(a, b))
    }
  })

  test('past the cost bound the texts count as replaced wholesale, still rebuilding both', () => {
    const a = Array.from({ length: 300 }, (_, i) => `a${i}`)
    const b = Array.from({ length: 300 }, (_, i) => `b${i}`)
    const edits = diff(a, b, 50)
    expect(apply(edits)).toEqual({ a, b })
  })

  test('a 20,000-character rewrite is fast', () => {
    const line = (i: number) => `Line ${i}: keep every sentence verbatim and add only what the prompt implies.`
    const before = Array.from({ length: 260 }, (_, i) => line(i)).join('\n')
    const after = `## Role\nYou are careful.\n\n${before.replaceAll('verbatim', 'exactly')}\n\n## Output format\n- bullets`
    const started = performance.now()
    const rows = sideBySide(before, after)
    expect(performance.now() - started).toBeLessThan(500)
    expect(summary(rows).changed).toBe(260)
  })
})

describe('side by side', () => {
  test('unchanged, added, removed and changed lines; changed words marked on each side', () => {
    const rows = sideBySide('one\ntwo three\nfour\ngone', 'zero\none\ntwo 3\nfour')
    expect(rows.map((r) => r.kind)).toEqual(['inserted', 'equal', 'changed', 'equal', 'deleted'])
    expect(rows[0]).toEqual({ kind: 'inserted', left: null, right: [{ text: 'zero', changed: true }] })
    expect(rows[2]).toEqual({
      kind: 'changed',
      left: [
        { text: 'two ', changed: false },
        { text: 'three', changed: true },
      ],
      right: [
        { text: 'two ', changed: false },
        { text: '3', changed: true },
      ],
    })
    expect(rows[4]).toEqual({ kind: 'deleted', left: [{ text: 'gone', changed: true }], right: null })
    expect(summary(rows)).toEqual({ added: 1, removed: 1, changed: 1 })
  })

  test('each side joined back is exactly its text, blanks and empty lines included', () => {
    const before = 'Summarize  the notes.\n\n{{notes}}\n'
    const after = 'Task: Summarize the notes in 5 bullets.\n\nContext:\n{{notes}}\n'
    const rows = sideBySide(before, after)
    const side = (key: 'left' | 'right') =>
      rows
        .filter((r) => r[key] !== null)
        .map((r) => r[key]!.map((p) => p.text).join(''))
        .join('\n')
    expect(side('left')).toBe(before)
    expect(side('right')).toBe(after)
  })

  test('words keep their blanks', () => {
    expect(words(' a  b\tc ')).toEqual([' ', 'a', '  ', 'b', '\t', 'c', ' '])
    expect(words('').join('')).toBe('')
  })
})
