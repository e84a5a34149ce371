// scripts/benchmarks.ts reads the targets from what each script prints: the reading, checked on
// the shapes the scripts print.
import { describe, expect, test } from 'bun:test'
import { briefOf, parseFigures, svgChart } from '../scripts/benchmarks/report'

describe('benchmark report', () => {
  test('a figure per target: its value, the target, the direction and the verdict', () => {
    const figures = parseFigures(
      [
        '  p50 5.20 ms (target <= 2)  MISSED   p90 17.39 ms   p99 9.18 ms (target <= 10)  ok   max 68.04 ms',
        'binary idle RSS: 78.1 MB (target <= 80 MB)  ok',
        'health                  50000   1.20        42000   1.50     0.84   >= 0.8 x baseline  ok',
        '  median: server 3,075 deliveries/s (target >= 2,000/s, every one applied) ok; baseline 9,000/s, ratio 0.34',
        '  added at p50: 1.2 ms (target ≤ 10 ms) ok',
        'a line without a verdict: 5 ms (target <= 10)',
        'all targets met',
      ].join('\n'),
    )
    expect(figures.map((f) => [f.label, f.measured, f.target, f.atLeast, f.ok])).toEqual([
      ['p50', 5.2, 2, false, false],
      ['p99', 9.18, 10, false, true],
      ['binary idle RSS', 78.1, 80, false, true],
      ['health ratio', 0.84, 0.8, true, true],
      ['median: server', 3075, 2000, true, true],
      ['added at p50', 1.2, 10, false, true],
    ])
  })

  test('a label ends at the value, keeps its brackets closed, and reads as a brief with the target', () => {
    const figures = parseFigures('data: import of 100,000 prompts (250 MB of JSON): 8.9 s (target ≤ 8 s: MISSED), peak RSS 197 MB (target ≤ 300: ok)')
    expect(figures.map((f) => [f.label, f.measured, f.target, f.ok])).toEqual([
      ['data: import of 100,000 prompts (250 MB of JSON)', 8.9, 8, false],
      ['peak RSS', 197, 300, true],
    ])
    expect(figures.map(briefOf)).toEqual(['data: import of 100,000 prompts (250 MB of JSON) 8.9 (≤ 8)', 'peak RSS 197 (≤ 300)'])
    expect(briefOf(parseFigures('ok   PRAGMA integrity_check: ok')[0]!)).toBe('PRAGMA integrity_check')
    // bench-data.ts's backup line: the p99 during the backup, not the count of seconds before it
    const backup = parseFigures(
      'data: backup of a 480 MB database: 4.2 s (4.3 s with the load), 472 MB written; reads by 200 connections: p99 18.2 ms before, the worst of 4 seconds during it 23.5 ms (target ≤ 50: ok), 20758 req/s, 0 errors',
    )
    expect(backup.map((f) => [f.measured, f.target, f.ok])).toEqual([[23.5, 50, true]])
  })

  test('a proof script’s checks are figures without a value', () => {
    const figures = parseFigures('checks\n  ok   no errors other than the expected 429s: 0 errors\n  FAIL PRAGMA integrity_check: corrupt')
    expect(figures.map((f) => [f.label, f.measured, f.target, f.ok])).toEqual([
      ['no errors other than the expected 429s', null, null, true],
      ['PRAGMA integrity_check', null, null, false],
    ])
  })

  test('the chart draws a bar per figure with a value, in the colour of its verdict', () => {
    const svg = svgChart('x', parseFigures('a: 5 ms (target <= 2) MISSED\nb: 0.9 (target >= 0.5) ok'))
    expect(svg.match(/<rect x=/g)).toHaveLength(2)
    expect(svg).toContain('fill="#c62828"')
    expect(svg).toContain('fill="#2e7d32"')
    expect(svg).toContain('5 (≤ 2)')
  })
})
