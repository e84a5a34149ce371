// Reading import files as UTF-8 without losing a byte. A plain decode turns every byte that is not
// UTF-8 into U+FFFD, and an import would store that silently. Here each such byte becomes a lone
// surrogate U+DC80–U+DCFF instead (Python's "surrogateescape"): valid UTF-8 never decodes to one,
// so the importers find them like any other unstorable character and refuse the record (or file)
// holding it, with its line.
import { readFileSync } from 'node:fs'

// ignoreBOM keeps a leading byte-order mark in the text, as readFileSync does; the parsers skip it.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const lenient = new TextDecoder('utf-8', { ignoreBOM: true })

export function readUtf8File(path: string): string {
  return decodeUtf8(readFileSync(path))
}

export function decodeUtf8(bytes: Uint8Array): string {
  return strictUtf8(bytes) ?? lenientUtf8(bytes)
}

/** The text of bytes that are all UTF-8, or null. */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes)
  } catch {
    return null
  }
}

/** Index of the first byte that is not part of well-formed UTF-8, or -1. */
export function firstInvalidByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i)
    if (length === 0) return i
    i += length
  }
  return -1
}

/** Bytes [0, n) of which end with a whole UTF-8 sequence: what may be decoded before more bytes come. */
export function completeSequences(bytes: Uint8Array): number {
  // A sequence is at most 4 bytes: look back for the last lead byte and see whether it is whole.
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!
    if (b < 0x80) return bytes.length // ASCII: whole
    if (b >= 0xc0) {
      const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2
      return needed > back ? bytes.length - back : bytes.length
    }
  }
  return bytes.length
}

/** decodeUtf8 for bytes known not to be all UTF-8. */
export function lenientUtf8(bytes: Uint8Array): string {
  let out = ''
  let run = 0 // start of the current run of valid UTF-8
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i)
    if (length > 0) {
      i += length
      continue
    }
    out += lenient.decode(bytes.subarray(run, i)) + String.fromCharCode(0xdc00 + bytes[i]!)
    run = ++i
  }
  return out + lenient.decode(bytes.subarray(run))
}

/** The length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), or 0. */
function sequenceLength(b: Uint8Array, i: number): number {
  const first = b[i]!
  if (first < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi
  if (first >= 0xc2 && first <= 0xdf) return cont(1) ? 2 : 0
  if (first >= 0xe0 && first <= 0xef) {
    // E0 needs A0–BF next (no overlong forms), ED 80–9F (no surrogates)
    const ok = first === 0xe0 ? cont(1, 0xa0) : first === 0xed ? cont(1, 0x80, 0x9f) : cont(1)
    return ok && cont(2) ? 3 : 0
  }
  if (first >= 0xf0 && first <= 0xf4) {
    // F0 needs 90–BF next (no overlong forms), F4 80–8F (nothing above U+10FFFF)
    const ok = first === 0xf0 ? cont(1, 0x90) : first === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1)
    return ok && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}

/** 1-based line and column (in characters) of a position in a text. */
export function lineAndColumn(text: string, index: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
    line++
    lineStart = at + 1
  }
  return { line, column: [...text.slice(lineStart, index)].length + 1 }
}

/**
 * Where the text holds bytes that were not UTF-8 (lone surrogates from decodeUtf8): the first
 * one of each line, as line and column, on at most `max` lines.
 */
export function invalidBytes(text: string, max = 10): { line: number; column: number }[] {
  if (text.isWellFormed()) return []
  const found: { line: number; column: number }[] = []
  const pattern = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
  for (let m = pattern.exec(text); m !== null && found.length < max; m = pattern.exec(text)) {
    const at = lineAndColumn(text, m.index)
    if (found.at(-1)?.line !== at.line) found.push(at)
  }
  return found
}
