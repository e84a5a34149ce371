// One pass of analysis shared by every mode: the prompt's structure plus its lexical signals.
import { extractConstraintClauses } from './clauses'
import { type Domain, detectDomain, inferRole, mentionsCode } from './domain'
import { detectFormat, type OutputFormat } from './formats'
import {
  detectAudience,
  detectLengths,
  detectProgrammingLanguage,
  detectPurpose,
  detectTargetLanguage,
  detectTones,
  detectTopic,
  detectVariables,
  isMostlyNonLatin,
} from './signals'
import { analyseStructure, type PromptStructure } from './structure'
import { type Block, normalizeNewlines, splitBlocks, tokenizeText } from './text'

/** Stands in for the task when the prompt is only whitespace. */
export const EMPTY_TASK_PLACEHOLDER = '[describe the task]'

export interface PromptAnalysis extends PromptStructure {
  /** the whole prompt, newline-normalised and trimmed; used where the prompt is quoted in full */
  text: string
  blocks: Block[]
  domain: Domain
  /** persona inferred from the domain (a role the user wrote takes precedence when rendering) */
  inferredRole: string
  format: OutputFormat | null
  audience: string | null
  lengths: string[]
  tones: string[]
  purpose: string | null
  topic: string | null
  targetLanguage: string | null
  programmingLanguage: string | null
  variables: string[]
  /** rules found inside task/context sentences, verbatim */
  constraintClauses: string[]
  nonLatinScript: boolean
  hasCodeBlock: boolean
}

export function analysePrompt(prompt: string): PromptAnalysis {
  const text = normalizeNewlines(prompt).trim() || EMPTY_TASK_PLACEHOLDER
  const blocks = splitBlocks(text)
  const structure = analyseStructure(blocks)
  // Signals come from prose only: code and {{variables}} would otherwise trigger false matches.
  const prose = blocks
    .filter((block) => !block.code)
    .map((block) => block.text.replace(/\{\{[^{}\n]{1,200}\}\}/g, ' '))
    .join('\n\n')
  const tokenized = tokenizeText(prose)
  const hasCodeBlock = blocks.some((block) => block.code)
  const format = detectFormat(tokenized.words)
  const domain = detectDomain(tokenized.words, hasCodeBlock, format)

  return {
    ...structure,
    text,
    blocks,
    domain,
    inferredRole: inferRole(domain, format, mentionsCode(tokenized.words)),
    format,
    audience: detectAudience(tokenized),
    lengths: detectLengths(tokenized),
    tones: detectTones(tokenized),
    purpose: detectPurpose(tokenized),
    topic: detectTopic(structure.taskSentence, structure.taskVerb),
    targetLanguage: detectTargetLanguage(tokenized),
    programmingLanguage: detectProgrammingLanguage(blocks, tokenized),
    variables: detectVariables(text),
    constraintClauses: extractConstraintClauses(structure.sentences),
    nonLatinScript: isMostlyNonLatin(prose),
    hasCodeBlock,
  }
}
