// The shared "brief": the prompt's parts (role, context, task, rules, examples, output form) in
// the user's own words, plus the few additions every section-based mode may make. Additions are
// conservative: they restate what the prompt asks for (labels, form, length, tone, language),
// or add a rule that follows from the task type and cannot contradict the prompt. Nothing is
// left for the user to fill in; nothing that is missing is guessed.
import type { PromptAnalysis } from './analyze'
import { inferRole } from './domain'
import type { Section, SectionKind } from './sections'
import type { Segment } from './structure'
import { PROSE_DELIVERABLE, type TaskType } from './tasks'

export interface Brief {
  /** the role to render: the user's own, verbatim, or one inferred when the prompt has none */
  role: string | null
  /** whether `role` is the user's (modes that only clarify never add an inferred one) */
  userRole: boolean
  context: string[]
  task: string[]
  examples: string[]
  /** the user's rules, verbatim (whole rule blocks, and rules found inside task sentences) */
  userRules: string[]
  /** rules that follow from the task and the prompt's own requests */
  addedRules: string[]
  /** the user's own output section, verbatim, if the prompt has one */
  userOutput: string | null
  /** what the answer must look like, restated from the prompt (labels, form, length) */
  output: string[]
  /** "Audience: …", "Purpose: …" when the prompt states them */
  facts: string[]
}

const TASK_ROLES: Partial<Record<TaskType, string>> = {
  classify: 'You are a careful annotator who labels every item consistently and follows the labelling rules exactly.',
  extract: 'You are a meticulous data-extraction specialist who copies values exactly and never guesses.',
  summarize: 'You are an expert editor who writes faithful, concise summaries.',
  translate: 'You are a professional translator who writes accurate, natural translations.',
  rate: 'You are a careful, consistent evaluator who applies the given scale exactly as defined.',
  rewrite: 'You are a skilled editor who improves wording without changing the meaning.',
  solve: 'You are a careful problem solver who reasons step by step and checks every result.',
}
const CREATIVE_WRITER = 'You are a skilled creative writer with a strong ear for language and imagery.'
const WRITER = 'You are a skilled writer who writes clear, well-judged text in the right tone for its reader.'
const SQL_ROLE = 'You are an experienced database engineer who writes correct, efficient SQL.'
const TECHNICAL_WRITER =
  'You are a software engineer and experienced technical writer who explains technical topics accurately and in plain language.'

function inferredRole(analysis: PromptAnalysis): string {
  const byTask = TASK_ROLES[analysis.taskType]
  if (byTask) return byTask
  if (analysis.domain === 'code' && analysis.programmingLanguage === 'SQL') return SQL_ROLE
  if (FICTION.test(analysis.taskSentence)) return CREATIVE_WRITER
  const prose = PROSE_DELIVERABLE.test(analysis.deliverable ?? '')
  if (analysis.domain === 'code' && prose) return TECHNICAL_WRITER
  if (prose && analysis.domain !== 'marketing') return WRITER
  return inferRole(analysis.domain)
}

/** The form of the answer when the prompt does not state one, by task type. */
const DEFAULT_OUTPUT: Partial<Record<TaskType, string>> = {
  summarize: 'Lead with the main point, then the key supporting details.',
  extract: 'One entry per item found, all in the same structure.',
  translate: 'Only the translation, with the formatting of the original.',
  review: 'Findings ordered by severity; for each, the issue, why it matters and a concrete fix.',
  debug: 'The cause in a sentence or two, then the corrected code, then how to check the fix.',
  code: 'The code in a fenced block tagged with its language, then a short note on how to use it.',
  answer: 'A direct answer first, then a short explanation.',
  solve: 'The working step by step, then the result on its own line.',
  compare: 'A one-line verdict, then the differences that matter, then when to choose each.',
  plan: 'The steps in order, each with what it achieves.',
}

export const ONLY_THE_ANSWER = 'Give only what the request asks for, with nothing before or after it.'

const TASK_RULES: Partial<Record<TaskType, string>> = {
  summarize: 'Use only what the source says; keep names, numbers and dates exactly as written.',
  extract: 'Copy values exactly as they appear; never guess a value the text does not give.',
  translate: 'Keep names, numbers, code and template placeholders unchanged.',

  debug: 'Find the root cause before proposing a fix.',
  review: 'Point to the exact line or passage behind each finding.',
  solve: 'Check the result before giving it.',
}
/** Task types whose answers state facts, where inventing one does harm. */
const FACTUAL = new Set<TaskType>(['summarize', 'answer', 'compare', 'review', 'rewrite', 'plan', 'write', 'generic'])
const FICTION = /\b(?:poem|poems|haiku|story|stories|fiction|lyrics|limerick|sonnet|joke|jokes|novel|fairy tale|screenplay|riddle)\b/i
/** Code that runs as a program, where error handling belongs (not a regex or a query). */
const PROGRAM = /\b(?:function|functions|script|program|class|module|component|endpoint|service|api|app|cli|tool|library|handler|tests?)\b/i
const NO_INVENTION = 'Do not invent facts, figures or quotes; if something is unknown, say so.'

const STRUCTURE_KINDS: Record<SectionKind, keyof Pick<Brief, 'context' | 'task' | 'examples' | 'userRules'> | 'role' | 'output'> = {
  role: 'role',
  context: 'context',
  other: 'context',
  task: 'task',
  constraints: 'userRules',
  output: 'output',
  examples: 'examples',
}

export function buildBrief(analysis: PromptAnalysis): Brief {
  const brief: Brief = {
    role: null,
    userRole: analysis.userRole !== null,
    context: [],
    task: [],
    examples: [],
    userRules: [],
    addedRules: addedRules(analysis),
    userOutput: null,
    output: [],
    facts: facts(analysis),
  }
  if (analysis.sectioned) fromSections(brief, analysis.sectioned.sections)
  else if (keepsOrder(analysis))
    brief.task.push(analysis.text) // examples and a final slot stay as written
  else fromSegments(brief, analysis)
  if (brief.role === null && analysis.userRole === null) brief.role = inferredRole(analysis)
  brief.output = outputLines(analysis, brief.userOutput !== null)
  return brief
}

/** Prompts whose order carries meaning (examples, then a slot to fill) are kept whole. */
export function keepsOrder(analysis: PromptAnalysis): boolean {
  return !analysis.sectioned && (analysis.hasExamples || analysis.endsInSlot)
}

function fromSections(brief: Brief, sections: readonly Section[]) {
  const hasTask = sections.some((section) => section.kind === 'task')
  for (const section of sections) {
    const place = section.heading === null && !hasTask ? 'task' : STRUCTURE_KINDS[section.kind]
    // A section under a generic name keeps its heading: "## Diff" says what the material is.
    const named = section.heading !== null && (section.kind === 'other' || !/^(?:context|background)$/i.test(section.heading))
    switch (place) {
      case 'role':
        brief.role = section.body
        break
      case 'output':
        brief.userOutput = brief.userOutput ? `${brief.userOutput}\n\n${section.body}` : section.body
        break
      case 'context':
        brief.context.push(named ? section.text : section.body)
        break
      case 'examples':
        brief.examples.push(section.body)
        break
      default:
        brief[place].push(section.body)
    }
  }
}

function fromSegments(brief: Brief, analysis: PromptAnalysis) {
  const of = (kind: Segment['kind']) => analysis.segments.filter((segment) => segment.kind === kind).map((segment) => segment.text)
  const roles = of('role')
  if (roles.length > 0) brief.role = roles.join('\n\n')
  brief.context = of('context')
  brief.task = of('task')
  const rules = of('constraint')
  const written = rules.join('\n').toLowerCase()
  // A length restated under the output form is not repeated as a rule.
  // So is a clause that names the labels: the output form lists them.
  const restated = (clause: string) => {
    const lower = clause.toLowerCase()
    return (
      written.includes(lower) ||
      analysis.lengths.some((length) => lower.includes(length.toLowerCase())) ||
      analysis.labels.filter((label) => clause.includes(label)).length >= 2
    )
  }
  brief.userRules = [...rules, ...analysis.constraintClauses.filter((clause) => !restated(clause))]
}

function facts(analysis: PromptAnalysis): string[] {
  const lines: string[] = []
  if (analysis.audience) lines.push(`Audience: ${analysis.audience}`)
  if (analysis.purpose) lines.push(`Purpose: ${analysis.purpose}`)
  return lines
}

function addedRules(analysis: PromptAnalysis): string[] {
  const rules: string[] = []
  if (analysis.labels.length > 0 && analysis.perItem) rules.push('Label every item; never skip one.')
  const byTask = TASK_RULES[analysis.taskType]
  if (byTask) rules.push(byTask)
  if (analysis.taskType === 'code' && PROGRAM.test(analysis.taskSentence)) rules.push('Handle errors and edge cases explicitly.')
  if (FACTUAL.has(analysis.taskType) && !FICTION.test(analysis.text.slice(0, 2000))) rules.push(NO_INVENTION)
  if (analysis.tones.length > 0) rules.push(`Tone: ${analysis.tones.join(', ')}.`)
  return rules
}

function outputLines(analysis: PromptAnalysis, hasUserOutput: boolean): string[] {
  const lines: string[] = []
  const { labels, output } = analysis
  if (labels.length > 0) {
    lines.push(`${analysis.perItem ? 'For each item, exactly' : 'Exactly'} one of these labels, written exactly as shown: ${labels.join(', ')}.`)
  }
  const list = (phrases: readonly string[]) => phrases.map((phrase) => phrase.replace(/[.;,:]+$/, '')).join('; ')
  // An output section of the prompt's own already says these in the user's words.
  if (!hasUserOutput && output.phrases.length > 0) lines.push(`Format: ${list(output.phrases)}.`)
  if (!hasUserOutput && output.lengths.length > 0) lines.push(`Length: ${list(output.lengths)}.`)
  if (output.kinds.includes('json')) lines.push('The JSON must be valid, so that it parses as it is.')
  if (output.kinds.includes('csv')) lines.push('The CSV must be valid: quote any field that contains a comma.')
  if (output.kinds.includes('yaml')) lines.push('The YAML must be valid, so that it parses as it is.')
  if (output.exclusive) lines.push(ONLY_THE_ANSWER)
  else if (labels.length === 0 && output.phrases.length === 0 && !hasUserOutput && !analysis.hasExamples) {
    const shape = DEFAULT_OUTPUT[analysis.taskType]
    if (shape) lines.push(shape)
  }
  // The scaffolding around the prompt is English; the answer stays in the user's language.
  if (analysis.language && analysis.taskType !== 'translate') lines.push(`Answer in ${analysis.language}.`)
  return lines
}

/** Renders rules as a Markdown list; multi-line rule blocks the user wrote stay as written. */
export function bulletList(items: readonly string[]): string {
  return items.map((item) => (item.includes('\n') ? item : `- ${item}`)).join('\n')
}

/** Joins the non-empty parts with blank lines. */
export function paragraphs(...parts: readonly (string | null | undefined | false)[]): string {
  return parts.filter((part): part is string => typeof part === 'string' && part !== '').join('\n\n')
}

/** The brief's rules, the user's first. */
export function allRules(brief: Brief): string[] {
  return [...brief.userRules, ...brief.addedRules]
}

/** The output section's body: the user's own words first, then what the rewrite restates. */
export function outputBody(brief: Brief): string {
  return paragraphs(brief.userOutput, brief.output.join('\n'))
}
