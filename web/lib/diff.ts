// A side-by-side diff of the optimizer's input and output: Myers' O(ND) algorithm over lines, then
// over words inside lines that changed. Pure (no DOM); the optimizer page renders the rows.

export type Op = 'equal' | 'delete' | 'insert'

export interface Edit<T> {
  op: Op
  /** the token: from `a` for equal and delete, from `b` for insert */
  value: T
}

/**
 * The shortest edit script turning `a` into `b` (Myers 1986). `maxCost` bounds the work and the
 * memory (each step keeps a frontier of 2 × maxCost numbers): past that many insertions plus
 * deletions the texts are treated as replaced wholesale (all of `a` deleted, all of `b` inserted),
 * which keeps a 20,000-character rewrite of a different text fast.
 */
export function diff<T>(a: readonly T[], b: readonly T[], maxCost = 1000): Edit<T>[] {
  // Common head and tail first: most of a rewrite that keeps the prompt is equal there.
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const edits: Edit<T>[] = a.slice(0, head).map((value) => ({ op: 'equal', value }))
  edits.push(...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxCost))
  for (const value of a.slice(a.length - tail)) edits.push({ op: 'equal', value })
  return edits
}

function middle<T>(a: readonly T[], b: readonly T[], maxCost: number): Edit<T>[] {
  const n = a.length
  const m = b.length
  if (n === 0) return b.map((value) => ({ op: 'insert', value }))
  if (m === 0) return a.map((value) => ({ op: 'delete', value }))
  const max = Math.min(n + m, maxCost)
  const offset = max + 1
  let v = new Int32Array(2 * max + 3)
  const trace: Int32Array[] = []
  let found = -1
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice())
    const next = v.slice()
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      next[offset + k] = x
      if (x >= n && y >= m) {
        found = d
        break
      }
    }
    v = next
  }
  if (found < 0) return [...a.map((value): Edit<T> => ({ op: 'delete', value })), ...b.map((value): Edit<T> => ({ op: 'insert', value }))]
  // Walk back through the saved frontiers, from the end to the start: each round d made one
  // move (down = an insertion, right = a deletion) and then followed a snake of equal tokens.
  const reversed: Edit<T>[] = []
  let x = n
  let y = m
  for (let d = found; d > 0; d--) {
    const prev = trace[d]!
    const k = x - y
    const down = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!)
    const prevK = down ? k + 1 : k - 1
    const prevX = prev[offset + prevK]!
    const startX = down ? prevX : prevX + 1
    while (x > startX) {
      reversed.push({ op: 'equal', value: a[--x]! })
      y--
    }
    if (down) reversed.push({ op: 'insert', value: b[--y]! })
    else reversed.push({ op: 'delete', value: a[--x]! })
  }
  while (x > 0) {
    reversed.push({ op: 'equal', value: a[--x]! })
    y--
  }
  return reversed.reverse()
}

/** A piece of a line on one side: unchanged, or changed (removed on the left, added on the right). */
export interface Piece {
  text: string
  changed: boolean
}

/** One row of the side-by-side view: the original line on the left, the result's on the right; null where a side has none. */
export interface Row {
  kind: 'equal' | 'changed' | 'deleted' | 'inserted'
  left: Piece[] | null
  right: Piece[] | null
}

/** Words and the blanks between them, so joining the tokens gives the line back exactly. */
export const words = (line: string): string[] => line.match(/\s+|[^\s]+/g) ?? []

function wordPieces(before: string, after: string): { left: Piece[]; right: Piece[] } {
  const left: Piece[] = []
  const right: Piece[] = []
  const push = (side: Piece[], text: string, changed: boolean) => {
    const last = side[side.length - 1]
    if (last && last.changed === changed) last.text += text
    else side.push({ text, changed })
  }
  for (const edit of diff(words(before), words(after), 500)) {
    if (edit.op !== 'insert') push(left, edit.value, edit.op === 'delete')
    if (edit.op !== 'delete') push(right, edit.value, edit.op === 'insert')
  }
  return { left, right }
}

/**
 * The rows of a side-by-side view of two texts. Lines deleted next to lines inserted are paired
 * up as changed rows, with the changed words marked; the rest stand alone.
 */
export function sideBySide(before: string, after: string): Row[] {
  const rows: Row[] = []
  const edits = diff(before.split('\n'), after.split('\n'))
  for (let i = 0; i < edits.length; ) {
    const edit = edits[i]!
    if (edit.op === 'equal') {
      rows.push({ kind: 'equal', left: [{ text: edit.value, changed: false }], right: [{ text: edit.value, changed: false }] })
      i++
      continue
    }
    const deleted: string[] = []
    const inserted: string[] = []
    while (i < edits.length && edits[i]!.op !== 'equal') {
      const e = edits[i++]!
      ;(e.op === 'delete' ? deleted : inserted).push(e.value)
    }
    for (let j = 0; j < Math.max(deleted.length, inserted.length); j++) {
      const l = deleted[j]
      const r = inserted[j]
      if (l !== undefined && r !== undefined) rows.push({ kind: 'changed', ...wordPieces(l, r) })
      else if (l !== undefined) rows.push({ kind: 'deleted', left: [{ text: l, changed: true }], right: null })
      else rows.push({ kind: 'inserted', left: null, right: [{ text: r!, changed: true }] })
    }
  }
  return rows
}

/** How much changed, for a one-line summary above the view. */
export function summary(rows: readonly Row[]): { added: number; removed: number; changed: number } {
  let added = 0
  let removed = 0
  let changed = 0
  for (const row of rows) {
    if (row.kind === 'inserted') added++
    else if (row.kind === 'deleted') removed++
    else if (row.kind === 'changed') changed++
  }
  return { added, removed, changed }
}
