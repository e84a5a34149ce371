// The shared "brief": what every section-based mode says about role, context, task, rules and
// output. Renderers only decide layout, so the modes stay consistent with each other.
import type { PromptAnalysis } from './analyze'
import type { Segment } from './structure'

export const PLACEHOLDERS = {
  audience: '[specify audience, e.g. beginners, executives, my team]',
  purpose: '[specify what the result will be used for]',
  context: '[add background: who this is for, what already exists, and anything the answer must take into account]',
  tone: '[specify tone, e.g. friendly, formal, persuasive]',
  length: '[specify length, e.g. about 300 words or 5 bullet points]',
  format: '[specify the output format, e.g. bullet list, table, JSON, email]',
  deliverable: '[specify the deliverable]',
  codeLanguage: '[specify language, runtime and version]',
} as const

export const ASSUMPTION_NOTE =
  'If a [bracketed placeholder] is still unfilled, make a reasonable assumption, state it in one line, and continue.'

export interface Brief {
  role: string
  /** context segments verbatim (pasted material, background, code) */
  context: string[]
  /** task segments verbatim; the first holds the main task */
  task: string[]
  audience: string
  purpose: string
  /** noun phrase for what to produce: "a blog post", "a clear explanation" */
  deliverable: string
  /** one item per rule; rule blocks the user wrote are kept whole (and may span lines) */
  constraints: string[]
  outputFormat: string
}

interface VerbIntent {
  deliverable: string
  shape: string | null
}

const intent = (verbs: string, deliverable: string, shape: string | null) =>
  verbs.split(' ').map((verb) => [verb, { deliverable, shape }] as const)

const VERB_INTENTS: ReadonlyMap<string, VerbIntent> = new Map([
  ...intent('explain describe define teach', 'a clear explanation',
    'A direct answer first, then an explanation that builds up from the basics, with one concrete example.'),
  ...intent('summarize summarise condense', 'a faithful, concise summary',
    'The main point in one sentence, then the key supporting points as bullets.'),
  ...intent('translate', 'an accurate, natural translation',
    'Only the translated text, keeping the original formatting, names, numbers and placeholders.'),
  ...intent('fix debug troubleshoot', 'a fix for the problem',
    'The root cause in one or two sentences, then the corrected code in a fenced block, then how to verify the fix.'),
  ...intent('refactor optimize optimise', 'an improved version with unchanged behaviour',
    'The revised code in a fenced block, then a short list of what changed and why.'),
  ...intent('review critique audit assess evaluate', 'a review with concrete, prioritised findings',
    'Findings ordered by severity; for each one: the issue, why it matters, and a concrete fix.'),
  ...intent('analyze analyse investigate research', 'an analysis with evidence-backed findings',
    'Key findings first, then the supporting evidence, then implications or recommendations.'),
  ...intent('compare', 'a comparison on explicit criteria',
    'A one-line verdict, then a table comparing the options on named criteria, then when to choose each.'),
  ...intent('list brainstorm suggest recommend propose name', 'a list of options',
    'A numbered list; each item followed by a one-line rationale.'),
  ...intent('plan outline organize organise', 'a step-by-step plan',
    'Numbered steps or phases, each with its goal and any dependencies.'),
  ...intent('extract parse', 'the extracted information',
    'One entry per item found, in a consistent structure; mark missing values as null.'),
  ...intent('classify categorize categorise label tag score rank', 'a labelled result for each item',
    'One label per item from [list the allowed labels], with a one-line justification.'),
  ...intent('calculate compute solve estimate prove', 'the result with the working shown',
    'The working step by step, then the final result on its own line.'),
  ...intent('rewrite rephrase paraphrase edit proofread polish improve simplify shorten expand revise',
    'an improved version of the text', 'Only the revised text, then (if useful) a short list of the main changes.'),
  ...intent('build implement develop code design', 'a working implementation', null),
  ...intent('write draft compose craft create generate make produce prepare', 'the requested piece', null),
])

/** Verbs whose result is prose about code, even when the prompt mentions "code". */
const ABOUT_CODE_VERBS = new Set(['review', 'critique', 'audit', 'assess', 'evaluate', 'explain', 'describe', 'analyze', 'analyse', 'compare', 'summarize', 'summarise', 'fix', 'debug', 'troubleshoot', 'refactor'])

const CODE_SHAPE =
  'Code in a fenced block tagged with its language, followed by a short explanation of the key decisions and how to run or use it.'
const QUESTION_SHAPE = 'A direct answer in the first sentence, followed by a short explanation and, where useful, an example.'
const CODE_QUESTION_SHAPE =
  'A direct answer in the first sentence, then a minimal code example (or the corrected code) in a fenced block, then a short explanation.'

function verbIntent(analysis: PromptAnalysis): VerbIntent | undefined {
  return analysis.taskVerb ? VERB_INTENTS.get(analysis.taskVerb) : undefined
}

/** The requested format decides the output, unless it is code that the task only talks about. */
function formatWins(analysis: PromptAnalysis): boolean {
  if (!analysis.format) return false
  if (analysis.format.kind !== 'code') return true
  // "Here is my code. Why does it crash?" mentions code; the answer is an explanation.
  if (analysis.taskKind === 'question') return false
  return !(ABOUT_CODE_VERBS.has(analysis.taskVerb ?? '') && verbIntent(analysis)?.shape)
}

export function describeDeliverable(analysis: PromptAnalysis): string {
  if (analysis.format && formatWins(analysis)) return analysis.format.label
  const fromVerb = verbIntent(analysis)
  if (fromVerb) return fromVerb.deliverable
  if (analysis.taskKind === 'question') return 'a direct, accurate answer to the question'
  return PLACEHOLDERS.deliverable
}

/** How the answer should look. Format shapes name the deliverable; other shapes get a "Deliver …" lead. */
export function describeOutputFormat(analysis: PromptAnalysis): string {
  if (analysis.format && formatWins(analysis)) return analysis.format.shape
  const shape = verbIntent(analysis)?.shape ?? fallbackShape(analysis)
  const deliverable = describeDeliverable(analysis)
  return deliverable === PLACEHOLDERS.deliverable ? shape : `Deliver ${deliverable}. ${shape}`
}

function fallbackShape(analysis: PromptAnalysis): string {
  if (analysis.taskKind === 'question') return analysis.domain === 'code' ? CODE_QUESTION_SHAPE : QUESTION_SHAPE
  if (analysis.domain === 'code') return CODE_SHAPE
  return PLACEHOLDERS.format
}

/** Prose deliverables need a tone and a length; code and data mostly do not. */
export function isProseTask(analysis: PromptAnalysis): boolean {
  if (analysis.format) return analysis.format.kind === 'prose' || analysis.format.kind === 'list'
  return !['code', 'data', 'math'].includes(analysis.domain)
}

const DOMAIN_RULES: Partial<Record<PromptAnalysis['domain'], string>> = {
  code: 'Prefer the standard library and existing dependencies; handle errors and edge cases explicitly.',
  data: 'State your assumptions about the data and show how each figure was derived.',
  math: 'Show every step and check the final result.',
  research: 'Support each factual claim with a source and flag anything uncertain.',
}
const NO_INVENTION = 'Do not invent facts, figures or quotes; if something is unknown, say so.'
const FICTION_FORMATS = new Set(['poem', 'story', 'script'])
/** Verbs whose result is code, so a language and engineering rules apply. */
const CODE_PRODUCING_VERBS = new Set([
  'build', 'code', 'create', 'debug', 'develop', 'fix', 'generate', 'implement', 'make', 'migrate', 'optimize', 'optimise', 'port',
  'refactor', 'rewrite', 'test', 'troubleshoot', 'write',
])

/** Whether the answer will contain code (not merely discuss it, as in "Compare React and Vue"). */
function producesCode(analysis: PromptAnalysis): boolean {
  if (analysis.domain !== 'code') return false
  return analysis.format?.kind === 'code' || analysis.hasCodeBlock || CODE_PRODUCING_VERBS.has(analysis.taskVerb ?? '')
}

export function buildConstraints(analysis: PromptAnalysis): string[] {
  const lengths = new Set(analysis.lengths.map(normaliseRule))
  const rules: string[] = [
    ...segmentsOf(analysis.segments, 'constraint'),
    ...analysis.constraintClauses.filter((clause) => !lengths.has(normaliseRule(clause))),
  ]
  const prose = isProseTask(analysis)
  // A length the user already wrote as a rule ("Keep it under 30 words") is not repeated.
  const userRules = rules.join('\n').toLowerCase()
  const newLengths = analysis.lengths.filter((length) => !userRules.includes(length.toLowerCase()))
  if (newLengths.length > 0) rules.push(`Length: ${newLengths.join('; ')}.`)
  else if (prose && analysis.lengths.length === 0) rules.push(`Length: ${PLACEHOLDERS.length}.`)
  if (analysis.tones.length > 0) rules.push(`Tone: ${analysis.tones.join(', ')}.`)
  else if (prose) rules.push(`Tone: ${PLACEHOLDERS.tone}.`)
  const code = producesCode(analysis)
  if (code) rules.push(`Language/stack: ${analysis.programmingLanguage ?? PLACEHOLDERS.codeLanguage}.`)
  if (analysis.nonLatinScript) rules.push('Reply in the same language as the request.')
  const domainRule = DOMAIN_RULES[analysis.domain]
  if (domainRule && (code || analysis.domain !== 'code')) rules.push(domainRule)
  if (!code && !FICTION_FORMATS.has(analysis.format?.id ?? '')) rules.push(NO_INVENTION)
  return rules
}

/** Lower-cased without trailing punctuation, for comparing rules ("At most 5 words." = "at most 5 words"). */
function normaliseRule(rule: string): string {
  let end = rule.length
  while (end > 0 && '.!; \t\n'.includes(rule[end - 1] ?? '')) end--
  return rule.slice(0, end).toLowerCase()
}

export function segmentsOf(segments: readonly Segment[], kind: Segment['kind']): string[] {
  return segments.filter((segment) => segment.kind === kind).map((segment) => segment.text)
}

export function buildBrief(analysis: PromptAnalysis): Brief {
  const userRole = segmentsOf(analysis.segments, 'role')
  return {
    // A persona the user wrote is theirs to keep; otherwise infer one from the domain.
    role: userRole.length > 0 ? userRole.join('\n\n') : analysis.inferredRole,
    context: segmentsOf(analysis.segments, 'context'),
    task: segmentsOf(analysis.segments, 'task'),
    audience: analysis.audience ?? PLACEHOLDERS.audience,
    purpose: analysis.purpose ?? PLACEHOLDERS.purpose,
    deliverable: describeDeliverable(analysis),
    constraints: buildConstraints(analysis),
    outputFormat: describeOutputFormat(analysis),
  }
}

/** Renders rules as a Markdown list; multi-line rule blocks the user wrote stay as written. */
export function bulletList(items: readonly string[]): string {
  return items.map((item) => (item.includes('\n') ? item : `- ${item}`)).join('\n')
}

/** Whether the generated scaffolding asks the user for something ("[specify …]", "[add …]"). */
export function hasPlaceholder(text: string): boolean {
  return /\[(?:specify|add|list) /.test(text)
}

/** Joins the non-empty parts with blank lines. */
export function paragraphs(...parts: readonly (string | null | undefined | false)[]): string {
  return parts.filter((part): part is string => typeof part === 'string' && part !== '').join('\n\n')
}
