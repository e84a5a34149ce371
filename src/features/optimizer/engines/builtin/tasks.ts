// What kind of task the prompt sets, and the user's own words for what it works on and what it
// should produce ("customer emails", "a polite email"), taken from the main task sentence.
import type { Domain } from './domain'
import type { SentenceKind } from './structure'

export type TaskType =
  | 'classify'
  | 'summarize'
  | 'extract'
  | 'translate'
  | 'review'
  | 'debug'
  | 'code'
  | 'rewrite'
  | 'answer'
  | 'brainstorm'
  | 'plan'
  | 'compare'
  | 'solve'
  | 'rate'
  | 'write'
  | 'generic'

const VERB_GROUPS: readonly (readonly [TaskType, string])[] = [
  ['classify', 'classify categorize categorise label tag triage'],
  ['summarize', 'summarize summarise condense'],
  ['extract', 'extract parse pull'],
  ['translate', 'translate'],
  ['review', 'review critique audit assess evaluate'],
  ['debug', 'fix debug troubleshoot'],
  ['rewrite', 'rewrite rephrase paraphrase edit proofread polish improve simplify shorten expand revise'],
  ['answer', 'explain describe define teach tell answer'],
  ['brainstorm', 'brainstorm suggest recommend propose name list'],
  ['plan', 'plan outline organize organise schedule'],
  ['compare', 'compare'],
  ['solve', 'solve calculate compute prove estimate'],
  ['rate', 'rate score grade rank'],
  ['write', 'write draft compose craft create generate make produce prepare design build implement develop code give'],
]
const TYPE_BY_VERB = new Map(VERB_GROUPS.flatMap(([type, verbs]) => verbs.split(' ').map((verb) => [verb, type] as const)))

export interface TaskSignals {
  taskVerb: string | null
  taskKind: SentenceKind
  taskSentence: string
  domain: Domain
  labels: readonly string[]
  hasCodeBlock: boolean
  deliverable: string | null
}

/** Prose about code ("a blog post about Rust") is writing, not code. */
export const PROSE_DELIVERABLE =
  /\b(?:blog|article|post|essay|guide|tutorial|newsletter|email|e-mail|letter|announcement|story|poem|reply|message|memo|speech|bio)\b/i

export function detectTaskType(s: TaskSignals): TaskType {
  if (s.labels.length > 0) return 'classify'
  if (/\btl;?\s?dr\b/i.test(s.taskSentence)) return 'summarize'
  const fromVerb = s.taskVerb ? TYPE_BY_VERB.get(s.taskVerb) : verbInside(s)
  // A specific verb ("summarize", "review") says more than the domain; "write" and "give" do not.
  if (fromVerb && fromVerb !== 'write') return fromVerb
  if (/\b(?:summary|recap|abstract|tl;?dr)\b/i.test(s.deliverable ?? '')) return 'summarize'
  if (s.domain === 'code' && !PROSE_DELIVERABLE.test(s.deliverable ?? '')) {
    if (s.taskKind === 'question') return s.hasCodeBlock ? 'debug' : 'answer'
    return 'code'
  }
  if (s.domain === 'math' && fromVerb !== 'write') return 'solve'
  if (fromVerb) return fromVerb
  return s.taskKind === 'question' ? 'answer' : 'generic'
}

/** "From this invoice, pull out …": the first known verb in the first clauses of a sentence that opens with none. */
function verbInside(s: TaskSignals): TaskType | undefined {
  if (s.taskKind === 'question') return undefined
  for (const word of s.taskSentence
    .slice(0, 120)
    .toLowerCase()
    .split(/[^a-z]+/)) {
    const type = TYPE_BY_VERB.get(word)
    if (type && type !== 'write') return type
  }
  return undefined
}

const PRODUCING_VERBS = new Set(['write', 'draft', 'compose', 'craft', 'create', 'generate', 'make', 'produce', 'prepare', 'design', 'give', 'build'])
const DETERMINERS = /^(?:the following|the attached|the|this|these|those|that|each|every|all|my|our|your|some|following)\s+/i
/** Words that end a noun phrase: "a blog post | about rust", "customer emails | as complaint". */
const PHRASE_END = new Set([
  'about',
  'on',
  'for',
  'to',
  'that',
  'which',
  'who',
  'with',
  'explaining',
  'from',
  'in',
  'into',
  'using',
  'based',
  'where',
  'so',
  'because',
  'as',
  'by',
  'and',
  'or',
  'if',
  'when',
  'while',
  'without',
  'than',
  'under',
  'below',
  'above',
  'at',
])
const MAX_PHRASE_WORDS = 7

/** The noun phrase right after the task verb, up to a preposition or punctuation; null when there is none. */
function objectAfterVerb(sentence: string, verb: string): string | null {
  const at = sentence.toLowerCase().search(new RegExp(`\\b${verb}\\b`))
  if (at === -1) return null
  let rest = sentence.slice(at + verb.length).replace(/^\s+(?:me|us|them)\s+/i, ' ')
  const stop = rest.search(/[,.;:!?()"“”\n]/)
  if (stop !== -1) rest = rest.slice(0, stop)
  const words: string[] = []
  for (const word of rest.trim().split(/\s+/)) {
    if (word === '' || PHRASE_END.has(word.toLowerCase()) || words.length >= MAX_PHRASE_WORDS) break
    // "an executive summary of | the attached report": the object is the summary
    if (word.toLowerCase() === 'of' && words.length > 1) break
    words.push(word)
  }
  const phrase = words.join(' ')
  return phrase.length >= 2 && !/[{}`]/.test(phrase) ? phrase : null
}

/** What the task produces, in the user's words: "a polite email", "10 tagline ideas". */
export function findDeliverable(sentence: string, verb: string | null): string | null {
  if (!verb || !PRODUCING_VERBS.has(verb)) return null
  return objectAfterVerb(sentence, verb)
}

/** Tasks that turn each input into an output, so an example is an input and its output. */
const WORKS_ON_INPUT = new Set<TaskType>(['classify', 'summarize', 'translate', 'review', 'rewrite', 'rate', 'debug'])
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** What the task works on, in the user's words: "customer emails", "meeting notes". */
export function findSubject(sentence: string, verb: string | null, type: TaskType): string | null {
  if (!verb || !WORKS_ON_INPUT.has(type)) return null
  const object = objectAfterVerb(sentence, verb)
  // "the sentiment of each review": the input is the review, not the sentiment
  if (!object || new RegExp(`${escape(object)}\\s+of\\b`, 'i').test(sentence)) return null
  const phrase = object.replace(DETERMINERS, '').replace(DETERMINERS, '')
  if (!phrase || /^(?:it|them|this|that|these|those|me|us|text)$/i.test(phrase)) return null
  return phrase
}

/** Whether the task handles many items ("each review", "customer emails"): labels are then per item. */
export function handlesManyItems(sentence: string, subject: string | null): boolean {
  if (/\b(?:each|every|all|these|those|them|list|batch|following|below)\b/i.test(sentence)) return true
  return subject !== null && /[a-z]s$/i.test(subject)
}
