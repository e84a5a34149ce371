// Low-level text helpers for the built-in optimizer. Everything here is a single linear pass:
// prompts can be 20,000 characters and the first streamed chunk must appear within milliseconds.

export interface Block {
  /** the block's text; prose blocks are trimmed, code blocks are kept byte-for-byte */
  text: string
  /** a fenced code block (``` or ~~~), including its fence lines */
  code: boolean
  /** info string of a code fence, e.g. "ts" in ```ts */
  fenceInfo: string
}

export interface Span {
  start: number
  end: number
}

export interface Token {
  /** lower-cased word with typographic apostrophes normalised */
  word: string
  start: number
  end: number
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/

/** Lines are the unit of Markdown structure; CRLF is normalised so offsets stay simple. */
export function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text
}

/**
 * Splits text into paragraphs (separated by blank lines). Fenced code is always its own block
 * and is never split, even when it contains blank lines or touches a paragraph.
 */
export function splitBlocks(text: string): Block[] {
  const blocks: Block[] = []
  let prose: string[] = []
  let fence: { marker: string; info: string; lines: string[] } | null = null

  const flushProse = () => {
    const joined = prose.join('\n').trim()
    if (joined !== '') blocks.push({ text: joined, code: false, fenceInfo: '' })
    prose = []
  }

  for (const line of normalizeNewlines(text).split('\n')) {
    if (fence) {
      fence.lines.push(line)
      if (isFenceClose(line, fence.marker)) {
        blocks.push({ text: fence.lines.join('\n'), code: true, fenceInfo: fence.info })
        fence = null
      }
      continue
    }
    const open = FENCE_OPEN.exec(line)
    if (open && isFenceOpener(line, open[1] ?? '')) {
      flushProse()
      fence = { marker: open[1] ?? '```', info: (open[2] ?? '').toLowerCase(), lines: [line] }
    } else if (line.trim() === '') {
      flushProse()
    } else {
      prose.push(line)
    }
  }
  flushProse()
  // An unclosed fence still holds user content: keep it as code rather than dropping it.
  if (fence) blocks.push({ text: fence.lines.join('\n').trimEnd(), code: true, fenceInfo: fence.info })
  return blocks
}

/** CommonMark: a backtick fence's info string has no backticks, so "```js x```" is inline code. */
function isFenceOpener(line: string, marker: string): boolean {
  return marker[0] !== '`' || !line.slice(line.indexOf(marker) + marker.length).includes('`')
}

function isFenceClose(line: string, marker: string): boolean {
  const trimmed = line.trim()
  if (trimmed.length < marker.length || trimmed[0] !== marker[0]) return false
  for (const char of trimmed) if (char !== marker[0]) return false
  return line.length - line.trimStart().length <= 3
}

const FULL_WIDTH_END = new Set(['。', '！', '？'])
const CLOSERS = new Set(['.', '!', '?', '"', "'", ')', ']', '}', '”', '’', '»'])
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'eg',
  'ie',
  'etc',
  'vs',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'no',
  'approx',
  'incl',
  'cf',
  'fig',
  'jr',
  'sr',
])

const SENTENCE_PUNCTUATION = /[.!?。！？]/g
const HAS_SENTENCE_PUNCTUATION = /[.!?。！？]/

/** Sentence spans of one line: ends at . ! ? followed by a space (or at 。！？), skipping "e.g." and "1.". */
export function splitSentences(line: string): Span[] {
  const spans: Span[] = []
  let start = 0
  if (!HAS_SENTENCE_PUNCTUATION.test(line)) {
    pushTrimmed(spans, line, 0, line.length)
    return spans
  }
  // The regex only finds candidates (native and linear); the checks below run once per candidate.
  SENTENCE_PUNCTUATION.lastIndex = 0
  for (let match = SENTENCE_PUNCTUATION.exec(line); match; match = SENTENCE_PUNCTUATION.exec(line)) {
    const i = match.index
    const char = match[0]
    let end = -1
    if (FULL_WIDTH_END.has(char)) {
      end = i + 1
    } else {
      let j = i + 1
      while (j < line.length && CLOSERS.has(line[j] ?? '')) j++
      const atBoundary = j >= line.length || line[j] === ' ' || line[j] === '\t'
      if (atBoundary && !(char === '.' && isAbbreviationOrMarker(line, start, i))) end = j
      // Continue after the whole run of closers either way, so "!!!!…a" stays linear.
      SENTENCE_PUNCTUATION.lastIndex = j
    }
    if (end === -1) continue
    pushTrimmed(spans, line, start, end)
    start = end
  }
  pushTrimmed(spans, line, start, line.length)
  return spans
}

function pushTrimmed(spans: Span[], line: string, start: number, end: number) {
  while (start < end && isSpace(line[start])) start++
  while (end > start && isSpace(line[end - 1])) end--
  if (end > start) spans.push({ start, end })
}

function isSpace(char: string | undefined): boolean {
  return char === ' ' || char === '\t' || char === '\n'
}

function isAbbreviationOrMarker(line: string, sentenceStart: number, dot: number): boolean {
  let wordStart = dot
  while (wordStart > sentenceStart && dot - wordStart < 8 && !isSpace(line[wordStart - 1])) wordStart--
  const word = line.slice(wordStart, dot).toLowerCase()
  // "1." at the start of a sentence is a list marker, not the end of a sentence.
  if (/^\d{1,3}$/.test(word) && line.slice(sentenceStart, wordStart).trim() === '') return true
  return ABBREVIATIONS.has(word)
}

// Joiners keep "don't", "800-word", "node.js" and "1,000" as one token. No nested ambiguity: linear.
const TOKEN = /[\p{L}\p{N}]+(?:(?:['’.\-+#]|,(?=\d))[\p{L}\p{N}]+)*/gu

/** Word tokens with their offsets; punctuation and whitespace are skipped. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  // Lower-casing once is faster; offsets stay valid only if no character changed length.
  const lower = text.toLowerCase()
  const source = lower.length === text.length ? lower : text
  for (const match of source.matchAll(TOKEN)) {
    const raw = source === lower ? match[0] : match[0].toLowerCase()
    const start = match.index ?? 0
    tokens.push({ word: raw.includes('’') ? raw.replaceAll('’', "'") : raw, start, end: start + match[0].length })
  }
  return tokens
}

/** Just the lower-cased words, without offsets (cheaper when positions are not needed). */
export function wordsOf(text: string): string[] {
  const words = text.toLowerCase().match(TOKEN) ?? []
  return words.map((word) => (word.includes('’') ? word.replaceAll('’', "'") : word))
}

/** Text with its tokens and their words, computed once and shared by every detector. */
export interface Tokenized {
  text: string
  tokens: Token[]
  words: string[]
}

export function tokenizeText(text: string): Tokenized {
  const tokens = tokenize(text)
  return { text, tokens, words: tokens.map((token) => token.word) }
}

/**
 * A set of multi-word phrases indexed by first word, so matching costs one map lookup per
 * position instead of one comparison per phrase.
 */
export class PhraseSet {
  private readonly byFirstWord = new Map<string, (readonly string[])[]>()

  constructor(phrases: readonly string[]) {
    for (const phrase of phrases) {
      const words = phrase.split(' ')
      const bucket = this.byFirstWord.get(words[0] ?? '') ?? []
      bucket.push(words)
      this.byFirstWord.set(words[0] ?? '', bucket)
    }
    // Longest first, so "no more than" wins over "no".
    for (const bucket of this.byFirstWord.values()) bucket.sort((a, b) => b.length - a.length)
  }

  /** The longest phrase that starts at `words[at]`, or null. */
  matchAt(words: readonly string[], at: number): readonly string[] | null {
    const bucket = this.byFirstWord.get(words[at] ?? '')
    if (!bucket) return null
    return bucket.find((phrase) => phrase.every((word, k) => words[at + k] === word)) ?? null
  }
}

/**
 * One case-insensitive regex matching any of the phrases as whole words ("don't" also matches
 * "don’t"). Used where a native scan beats walking word arrays: on long text, in cold code.
 */
export function phrasePattern(phrases: readonly string[]): RegExp {
  const alternatives = phrases
    .map((phrase) =>
      phrase
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replaceAll("'", "['’]")
        .replaceAll(' ', '\\s+'),
    )
    .sort((a, b) => b.length - a.length)
  return new RegExp(`\\b(?:${alternatives.join('|')})\\b`, 'i')
}

/** Shortens restated text at a word boundary; the full original is always kept elsewhere. */
export function truncateAtWord(text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.lastIndexOf(' ', max)
  return `${text.slice(0, cut > max / 2 ? cut : max).trimEnd()}…`
}

export function unique<T>(items: readonly T[], key: (item: T) => string = String): T[] {
  const seen = new Set<string>()
  return items.filter((item) => {
    const k = key(item)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}
