// One pass of analysis shared by every mode: the prompt's structure, and what it explicitly asks
// for (labels, output form, length, tone, audience, language). Everything here is read from the
// prompt; nothing is guessed that a mode would then have to mark as missing.
import { extractConstraintClauses } from './clauses'
import { type Domain, detectDomain } from './domain'
import { findLabels } from './labels'
import { detectLanguage } from './language'
import { findOutputSpec, type OutputSpec } from './output-spec'
import { findSections, type Sections } from './sections'
import {
  detectAudience,
  detectLengths,
  detectProgrammingLanguage,
  detectPurpose,
  detectTargetLanguage,
  detectTones,
  detectVariables,
} from './signals'
import { analyseStructure, classifySentence, type PromptStructure } from './structure'
import { detectTaskType, findDeliverable, findSubject, handlesManyItems, type TaskType } from './tasks'
import { type Block, normalizeNewlines, splitBlocks, splitSentences, tokenizeText } from './text'

export interface PromptAnalysis extends PromptStructure {
  /** the whole prompt, newline-normalised and trimmed */
  text: string
  blocks: Block[]
  /** the prompt's own sections, when it is already organised in them */
  sectioned: Sections | null
  /** the role the prompt gives the model, verbatim; null when it gives none */
  userRole: string | null
  /** the prompt has worked examples of its own (Input/Output pairs, an Examples section) */
  hasExamples: boolean
  /** the prompt ends in a slot for the model to fill ("Label:"), so its order must not change */
  endsInSlot: boolean
  domain: Domain
  taskType: TaskType
  /** labels the prompt names, verbatim */
  labels: string[]
  /** labels apply to each of many items rather than to one input */
  perItem: boolean
  output: OutputSpec
  /** what the task works on, in the user's words ("customer emails") */
  subject: string | null
  /** what the task produces, in the user's words ("a polite email") */
  deliverable: string | null
  audience: string | null
  purpose: string | null
  lengths: string[]
  tones: string[]
  targetLanguage: string | null
  programmingLanguage: string | null
  /** the language to answer in when the prompt is not in English */
  language: string | null
  variables: string[]
  /** rules found inside task sentences, verbatim */
  constraintClauses: string[]
  hasCodeBlock: boolean
}

const EXAMPLE_LINE = /^(?:input|output|q|a|question|answer|text|label|sentiment|headline|review|category|user|assistant|example\s*\d*)\s*:/gim
const VARIABLE = /\{\{[^{}\n]{1,200}\}\}/g

export function analysePrompt(prompt: string): PromptAnalysis {
  const text = normalizeNewlines(prompt).trim()
  const blocks = splitBlocks(text)
  const sectioned = findSections(text)
  const structure = withSectionTask(analyseStructure(blocks), sectioned)
  // Signals come from prose only: code and {{variables}} would otherwise trigger false matches.
  const prose = blocks
    .filter((block) => !block.code)
    .map((block) => block.text.replace(VARIABLE, ' '))
    .join('\n\n')
  const hasCodeBlock = blocks.some((block) => block.code)
  const instructions = instructionText(structure, sectioned)
  const instructed = tokenizeText(headAndTail(instructions.join('\n')))
  // The field of the task, not of the material it works on (an article full of survey figures)
  const domain = detectDomain(instructed.words, hasCodeBlock)
  const labels = findLabels(prose)
  const deliverable = findDeliverable(structure.taskSentence, structure.taskVerb)
  const taskType = detectTaskType({ ...structure, domain, labels, hasCodeBlock, deliverable })
  // Lengths from the task only: "keep the fix under 40 lines" in a rule list is about the fix, not the answer.
  const taskText = instructionText(structure, sectioned, 'task').join('\n')
  const lengths = detectLengths(taskText === instructions.join('\n') ? instructed : tokenizeText(headAndTail(taskText)))
  const subject = findSubject(structure.taskSentence, structure.taskVerb, taskType)
  const exampleLines = text.slice(0, 20_000).match(EXAMPLE_LINE)?.length ?? 0

  return {
    ...structure,
    text,
    blocks,
    sectioned,
    userRole: userRoleOf(structure, sectioned),
    hasExamples: exampleLines >= 3 || (sectioned?.sections.some((section) => section.kind === 'examples') ?? false),
    endsInSlot: /\n[^\n]{1,40}:$/.test(text),
    domain,
    taskType,
    labels,
    perItem: handlesManyItems(structure.taskSentence, subject),
    output: findOutputSpec(instructions, lengths),
    subject,
    deliverable,
    audience: detectAudience(instructed),
    purpose: detectPurpose(instructed),
    lengths,
    // "neutral" as a label is not a tone
    tones: detectTones(instructed).filter((tone) => !labels.some((label) => label.toLowerCase() === tone)),
    targetLanguage: detectTargetLanguage(instructed),
    programmingLanguage: detectProgrammingLanguage(blocks, instructed),
    language: detectLanguage(prose),
    variables: detectVariables(text),
    constraintClauses: extractConstraintClauses(structure.sentences),
    hasCodeBlock,
  }
}

/**
 * A long run of instructions (a 20,000-character rule list) is read at its start and end, where
 * the task's audience, tone and length are stated; the signals stay cheap on any prompt.
 */
function headAndTail(text: string): string {
  return text.length <= 6000 ? text : `${text.slice(0, 4000)}\n${text.slice(-2000)}`
}

/**
 * The sentences that instruct (task and rules), never pasted material: a document that
 * mentions "JSON" or "3 bullet points" says nothing about the form of the answer.
 */
const INSTRUCTING = new Set(['task', 'constraints', 'output'])
const TASK_ONLY = new Set(['task', 'output'])

function instructionText(structure: PromptStructure, sectioned: Sections | null, only?: 'task'): string[] {
  const kinds = only ? TASK_ONLY : INSTRUCTING
  if (sectioned) {
    return sectioned.sections
      .filter((section) => kinds.has(section.kind) || section.heading === null || /^audience$/i.test(section.heading))
      .map((section) => section.body.replace(VARIABLE, ' '))
  }
  return structure.sentences
    .filter((sentence) => sentence.segmentKind === 'task' || (!only && sentence.segmentKind === 'constraint') || sentence.isMainTask)
    .map((sentence) => sentence.text.replace(VARIABLE, ' '))
}

/** In a sectioned prompt the main task is the first sentence of its task section. */
function withSectionTask(structure: PromptStructure, sectioned: Sections | null): PromptStructure {
  const body = sectioned?.sections.find((section) => section.kind === 'task')?.body
  const line = body?.split('\n').find((l) => l.trim() !== '')
  const span = line ? splitSentences(line)[0] : undefined
  if (!line || !span) return structure
  const taskSentence = line.slice(span.start, span.end)
  const { kind, verb } = classifySentence(taskSentence)
  return { ...structure, taskSentence, taskKind: kind, taskVerb: verb }
}

function userRoleOf(structure: PromptStructure, sectioned: Sections | null): string | null {
  const fromSection = sectioned?.sections.find((section) => section.kind === 'role')?.body
  if (fromSection) return fromSection
  const roles = structure.segments.filter((segment) => segment.kind === 'role').map((segment) => segment.text)
  if (roles.length > 0) return roles.join('\n\n')
  // a persona sentence that ended up inside a larger segment still counts: no second role
  const sentence = structure.sentences.find((s) => s.kind === 'role')
  return sentence ? sentence.text : null
}
