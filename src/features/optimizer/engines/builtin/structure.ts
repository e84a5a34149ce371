// Splits a prompt into segments (role, context, task, constraint) without losing a character:
// every block, and every sentence of a one-line paragraph, lands in exactly one segment.
import {
  CONSTRAINT_HEADERS,
  CONSTRAINT_TRIGGER_PATTERN,
  CONSTRAINT_TRIGGERS,
  IMPERATIVE_VERBS,
  POLITE_PREFIXES,
  REQUEST_OPENERS,
  ROLE_OPENERS,
} from './lexicon'
import { type Block, splitSentences, wordsOf } from './text'

export type SentenceKind = 'role' | 'imperative' | 'request' | 'question' | 'constraint' | 'other'
export type SegmentKind = 'role' | 'context' | 'task' | 'constraint'

export interface Segment {
  kind: SegmentKind
  text: string
  code: boolean
}

export interface SentenceClass {
  kind: SentenceKind
  verb: string | null
  /** offset of the first rule phrase ("must", "don't", "at most" …) in the sentence, or -1 */
  constraintAt: number
}

export interface Sentence extends SentenceClass {
  text: string
  /** the kind of segment this sentence ended up in */
  segmentKind: SegmentKind
  /** the sentence that states the main task */
  isMainTask: boolean
}

export interface PromptStructure {
  segments: Segment[]
  /** every prose sentence, in order, with its classification */
  sentences: Sentence[]
  /** the sentence that states the main task, verbatim */
  taskSentence: string
  taskKind: SentenceKind
  /** the task's imperative verb ("write"), if there is one */
  taskVerb: string | null
}

interface SentenceRef extends Sentence {
  block: number
  /** offset within the block's line; used to slice one-line blocks */
  start: number
}

// "What …" asks a question even without "?"; "Do …" / "Can …" only with one ("Do the dishes").
const QUESTION_WORDS = new Set(['what', 'how', 'why', 'when', 'where', 'which', 'who', 'whom'])

/** Openers are decided by the first few words; no need to tokenize a 20,000-character sentence. */
const OPENING_CHARS = 120

/** Classifies one sentence by its opening words, and notes where its first rule phrase is. */
export function classifySentence(sentence: string): SentenceClass {
  const constraintAt = sentence.search(CONSTRAINT_TRIGGER_PATTERN)
  const words = wordsOf(sentence.slice(0, OPENING_CHARS))
  let first = 0
  while (first < words.length && /^\d+$/.test(words[first] ?? '')) first++ // "1. Write …"
  const rest = first === 0 ? words : words.slice(first)
  const result = (kind: SentenceKind, verb: string | null = null): SentenceClass => ({ kind, verb, constraintAt })
  if (rest.length === 0) return result('other')
  const asksQuestion = /[?？]\s*$/.test(sentence)
  if (isRoleOpener(rest)) return result('role')
  // Checked before verbs: "Make sure …" and "Keep it …" open rules, not tasks.
  if (!asksQuestion && CONSTRAINT_TRIGGERS.matchAt(rest, 0)) return result('constraint')
  const verb = rest[politeOpenerLength(rest)] ?? ''
  if (IMPERATIVE_VERBS.has(verb)) return result('imperative', verb)
  if (REQUEST_OPENERS.matchAt(rest, 0)) return result('request')
  if (asksQuestion || QUESTION_WORDS.has(rest[0] ?? '')) return result('question')
  return result(constraintAt === -1 ? 'other' : 'constraint')
}

function isRoleOpener(words: readonly string[]): boolean {
  const opener = ROLE_OPENERS.matchAt(words, 0)
  if (!opener) return false
  // "You are going to write …" / "You are to summarise …" give a task, not a persona.
  const next = words[opener.length]
  return next !== 'going' && next !== 'to'
}

/** Number of leading words like "could you please" / "I need you to" before the verb. */
function politeOpenerLength(words: readonly string[]): number {
  let length = 0
  for (let round = 0; round < 3; round++) {
    const prefix = POLITE_PREFIXES.matchAt(words, length)
    if (!prefix) break
    length += prefix.length
  }
  return length
}

// Splitting and classifying are the costly part of the analysis. Tasks and rules sit at the
// start or the end of long prompts, so only that many lines and sentences from each end are
// analysed; the middle of a very long prompt (a pasted document, thousands of CSV rows) is
// kept whole as context.
const ANALYSED_HEAD_LINES = 200
const ANALYSED_TAIL_LINES = 60
const CLASSIFIED_HEAD = 150
const CLASSIFIED_TAIL = 50

const inWindow = (index: number, length: number, head: number, tail: number) => index < head || index >= length - tail

/** Sentences of the analysed prose lines, in order, classified. */
function collectSentences(blocks: readonly Block[]): SentenceRef[] {
  const lines: { block: number; text: string }[] = []
  blocks.forEach((block, index) => {
    if (!block.code) for (const text of block.text.split('\n')) lines.push({ block: index, text })
  })
  const sentences: SentenceRef[] = []
  lines.forEach((line, i) => {
    if (!inWindow(i, lines.length, ANALYSED_HEAD_LINES, ANALYSED_TAIL_LINES)) return
    for (const span of splitSentences(line.text)) {
      const text = line.text.slice(span.start, span.end)
      sentences.push({
        kind: 'other',
        verb: null,
        constraintAt: -1,
        block: line.block,
        text,
        start: span.start,
        segmentKind: 'context',
        isMainTask: false,
      })
    }
  })
  sentences.forEach((sentence, i) => {
    if (!inWindow(i, sentences.length, CLASSIFIED_HEAD, CLASSIFIED_TAIL)) return
    const { kind, verb, constraintAt } = classifySentence(sentence.text)
    sentence.kind = kind
    sentence.verb = verb
    sentence.constraintAt = constraintAt
  })
  return sentences
}

/** The main task: the first instruction, else the first request, question or plain sentence. */
function pickTask(sentences: readonly SentenceRef[]): SentenceRef | undefined {
  const preference: SentenceKind[] = ['imperative', 'request', 'question', 'other', 'constraint', 'role']
  // "Answer with one word." only says how to answer; the task is elsewhere when there is one.
  const candidates = sentences.filter((sentence) => !ANSWER_FORM.test(sentence.text))
  for (const pool of [candidates, sentences]) {
    for (const kind of preference) {
      const found = pool.find((sentence) => sentence.kind === kind)
      if (found) return found
    }
  }
  return undefined
}

const ANSWER_FORM =
  /^\W*(?:answer|reply|respond|return|output|format)\s+(?:(?:with|in|only|as|using|exactly|just)\b|[^.!?]*\b(?:only|per line|nothing else)\b)/i

export function analyseStructure(blocks: readonly Block[]): PromptStructure {
  const sentences = collectSentences(blocks)
  const task = pickTask(sentences)
  if (!task) {
    // Only code (or nothing): the material itself is the task.
    const segments = blocks.map((block): Segment => ({ kind: 'task', text: block.text, code: block.code }))
    return { segments, sentences, taskSentence: blocks[0]?.text ?? '', taskKind: 'other', taskVerb: null }
  }

  task.isMainTask = true
  const byBlock = groupByBlock(sentences, blocks.length)
  const segments: Segment[] = []
  blocks.forEach((block, index) => {
    const own = byBlock[index] ?? []
    const oneLine = !block.text.includes('\n')
    if (block.code) {
      segments.push({ kind: 'context', text: block.text, code: true })
    } else if (index === task.block && oneLine) {
      // Background sentences before the task stay context; the task runs to the end of the line.
      pushLinePart(
        segments,
        block.text,
        own.filter((sentence) => sentence.start < task.start),
        task.start,
        false,
      )
      segments.push({ kind: 'task', text: block.text.slice(task.start).trim(), code: false })
      for (const sentence of own) if (sentence.start >= task.start) sentence.segmentKind = 'task'
    } else if (oneLine && own.length === 0) {
      segments.push({ kind: 'context', text: block.text, code: false }) // not analysed: see ANALYSED_HEAD_LINES
    } else if (oneLine) {
      pushLinePart(segments, block.text, own, block.text.length, index > task.block)
    } else {
      const kind = index === task.block ? 'task' : classifyMultilineBlock(block.text, own, index > task.block)
      segments.push({ kind, text: block.text, code: false })
      for (const sentence of own) sentence.segmentKind = kind
    }
  })
  return { segments, sentences, taskSentence: task.text, taskKind: task.kind, taskVerb: task.verb }
}

function groupByBlock(sentences: readonly SentenceRef[], blockCount: number): SentenceRef[][] {
  const groups: SentenceRef[][] = Array.from({ length: blockCount }, () => [])
  for (const sentence of sentences) groups[sentence.block]?.push(sentence)
  return groups
}

function segmentKindOf(kind: SentenceKind, afterTask: boolean): SegmentKind {
  if (kind === 'role') return 'role'
  if (kind === 'constraint') return 'constraint'
  // Instructions that follow the main task extend it ("Include a code sample.").
  if (afterTask && (kind === 'imperative' || kind === 'request' || kind === 'question')) return 'task'
  return 'context'
}

// Up to this many sentences, a paragraph is sorted sentence by sentence ("You are X. I run a
// bakery."); longer ones are material (a pasted article) and stay whole.
const SORTED_SENTENCES_MAX = 2

/** Adds the segments for (part of) a one-line paragraph. */
function pushLinePart(segments: Segment[], line: string, sentences: readonly SentenceRef[], end: number, afterTask: boolean) {
  if (sentences.length <= SORTED_SENTENCES_MAX) {
    pushSentenceGroups(segments, line, sentences, end, afterTask)
    return
  }
  const kind = majorityKind(sentences, afterTask)
  for (const sentence of sentences) sentence.segmentKind = kind
  const start = sentences[0]?.start ?? 0
  segments.push({ kind, text: line.slice(start, end).trim(), code: false })
}

/** Rules only when most sentences are rules; extra instructions only after the task; else context. */
function majorityKind(sentences: readonly SentenceRef[], afterTask: boolean): SegmentKind {
  const count = (...kinds: SentenceKind[]) => sentences.filter((sentence) => kinds.includes(sentence.kind)).length
  if (count('constraint') * 2 > sentences.length) return 'constraint'
  if (afterTask && count('imperative', 'request') * 2 > sentences.length) return 'task'
  return 'context'
}

/**
 * Adds one segment per run of same-kind sentences. Runs are sliced from the line (up to `end`)
 * so the user's spacing and punctuation stay exactly as written.
 */
function pushSentenceGroups(segments: Segment[], line: string, sentences: readonly SentenceRef[], end: number, afterTask: boolean) {
  let groupStart = -1
  let groupKind: SegmentKind = 'context'
  for (const sentence of sentences) {
    const kind = segmentKindOf(sentence.kind, afterTask)
    sentence.segmentKind = kind
    if (groupStart !== -1 && kind !== groupKind) {
      segments.push({ kind: groupKind, text: line.slice(groupStart, sentence.start).trim(), code: false })
    }
    if (groupStart === -1 || kind !== groupKind) {
      groupStart = sentence.start
      groupKind = kind
    }
  }
  if (groupStart !== -1) segments.push({ kind: groupKind, text: line.slice(groupStart, end).trim(), code: false })
}

/** A multi-line block is a rule list when it has a rules header or mostly rule lines. */
function classifyMultilineBlock(text: string, sentences: readonly SentenceRef[], afterTask: boolean): SegmentKind {
  const firstLine = text.slice(0, text.indexOf('\n'))
  const firstWords = wordsOf(firstLine)
  if (firstWords.length <= 4 && CONSTRAINT_HEADERS.has(firstWords[0] ?? '')) return 'constraint'
  const kind = majorityKind(sentences, afterTask)
  return kind === 'context' && sentences[0]?.kind === 'role' ? 'role' : kind
}
