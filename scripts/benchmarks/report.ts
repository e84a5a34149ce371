// What scripts/benchmarks.ts reads from a script's output, and the chart it draws of it.
// A figure is a line naming a target (`<= N`, `>= N`) with its verdict (ok / MISSED); the measured
// value is the last number before the target. A line may carry several (p50 and p99).

export interface Figure {
  /** the line as printed, trimmed */
  text: string
  /** what was measured: the line up to its value */
  label: string
  measured: number | null
  /** null for a pass/fail check (`ok   name: detail` / `FAIL name: detail`) */
  target: number | null
  /** true for "at least" targets */
  atLeast: boolean
  ok: boolean
}

const TARGET = /(<=|>=|≤|≥)\s*([\d][\d,]*(?:\.\d+)?)/g
const NUMBER = /(?<![\w.])(\d[\d,]*(?:\.\d+)?)/g
const VERDICT = /\b(ok|MISSED)\b/
/** a pass/fail check as the proof scripts print them (scripts/storm/harness.ts Checks) */
const CHECK = /^(ok|FAIL)\s+(\S.*)$/

export function parseFigures(output: string): Figure[] {
  const figures: Figure[] = []
  for (const raw of output.split('\n')) {
    const line = raw.trim()
    const check = CHECK.exec(line)
    if (check) {
      figures.push({ text: line, label: check[2]!.split(':')[0]!, measured: null, target: null, atLeast: true, ok: check[1] === 'ok' })
      continue
    }
    if (!VERDICT.test(line) || !/target|>=|<=|≥|≤/.test(line)) continue
    let from = 0
    for (const m of line.matchAll(TARGET)) {
      const before = line.slice(from, m.index).replace(/\(?\s*target\s*(ratio)?\s*$/i, '')
      const numbers = [...before.matchAll(NUMBER)]
      const last = numbers.at(-1)
      const verdict = VERDICT.exec(line.slice(m.index))
      if (!verdict) continue
      figures.push({
        text: line,
        label: labelOf(line, before, last?.index, numbers.length),
        measured: last ? Number(last[1]!.replaceAll(',', '')) : null,
        target: Number(m[2]!.replaceAll(',', '')),
        atLeast: m[1] === '>=' || m[1] === '≥',
        ok: verdict[1] === 'ok',
      })
      from = m.index! + m[0].length
    }
  }
  return figures
}

/**
 * The words naming a value: in a table row (a name, then columns of numbers) the row's first word, else
 * what precedes the value since the previous figure.
 */
function labelOf(line: string, before: string, valueAt: number | undefined, numbers: number): string {
  if (numbers > 2 && /^[\w-]+\s{2,}[\d,]/.test(line)) return `${line.split(/\s+/)[0]} ratio`
  // The last piece with a word in it: "import of 100,000 prompts (250 MB of JSON): 8.9 s" ends in ": ".
  const pieces = (valueAt === undefined ? before : before.slice(0, valueAt)).split(/\s{2,}|\)|\b(?:ok|MISSED)\b/)
  const head = pieces.findLast((piece) => /[a-z]/i.test(piece)) ?? ''
  const label = head
    .replace(/[\s:(;,]+$/, '')
    .replace(/^[\s:;,]+/, '')
    .trim()
  if (!label) return line.slice(0, 40)
  return label.split('(').length > label.split(')').length ? `${label})` : label
}

/** A figure in a few words: what, the value and the target ("p50 5.76 (≤ 5)"), or a check's name. */
export function briefOf(f: Figure): string {
  if (f.target === null || f.measured === null) return f.label
  return `${f.label} ${f.measured} (${f.atLeast ? '≥' : '≤'} ${f.target})`
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * One bar per figure: how far it is from its target as a factor (measured ÷ target for "at least",
 * target ÷ measured for "at most"), so every bar past the line at 1 × met its target. Log scale, 0.1–10 ×.
 */
export function svgChart(title: string, figures: Figure[]): string {
  const rows = figures.filter((f) => f.measured !== null && f.measured > 0 && f.target !== null && f.target > 0)
  const width = 760
  const left = 330
  const barArea = width - left - 90
  const rowHeight = 24
  const height = 44 + rows.length * rowHeight + 24
  const x = (factor: number) => left + ((Math.log10(Math.min(10, Math.max(0.1, factor))) + 1) / 2) * barArea
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${escape(title)}: measured against target (log scale; right of the line = met)</text>`,
  ]
  rows.forEach((f, i) => {
    const y = 36 + i * rowHeight
    const factor = f.atLeast ? f.measured! / f.target! : f.target! / f.measured!
    const label = f.label.length > 52 ? `${f.label.slice(0, 51)}…` : f.label
    parts.push(
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${escape(label)}</text>`,
      `<rect x="${left}" y="${y + 4}" width="${Math.max(1, x(factor) - left).toFixed(1)}" height="${rowHeight - 8}" fill="${f.ok ? '#2e7d32' : '#c62828'}"/>`,
      `<text x="${(x(factor) + 4).toFixed(1)}" y="${y + 15}">${f.measured} (${f.atLeast ? '≥' : '≤'} ${f.target})</text>`,
    )
  })
  const bottom = 36 + rows.length * rowHeight
  for (const tick of [0.1, 0.5, 1, 2, 10]) {
    parts.push(
      `<line x1="${x(tick).toFixed(1)}" y1="32" x2="${x(tick).toFixed(1)}" y2="${bottom}" stroke="${tick === 1 ? '#000' : '#ccc'}" stroke-width="${tick === 1 ? 1.5 : 1}"/>`,
      `<text x="${x(tick).toFixed(1)}" y="${bottom + 14}" text-anchor="middle" fill="#555">${tick} ×</text>`,
    )
  }
  parts.push('</svg>')
  return parts.join('\n')
}
