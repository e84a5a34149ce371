// Model-Specific: the same brief, laid out with the conventions each model family is trained on.
import type { PromptAnalysis } from './analyze'
import { allRules, buildBrief, bulletList, outputBody, paragraphs } from './brief'
import { truncateAtWord } from './text'

export type ModelFamily = 'claude' | 'gpt' | 'gemini' | 'llama' | 'generic'

// Checked in order; o-series names need a boundary so "yolo3" or "photo1" do not count.
const FAMILY_PATTERNS: readonly (readonly [ModelFamily, RegExp])[] = [
  ['claude', /claude|anthropic/],
  ['gemini', /gemini/],
  ['llama', /llama|(?:^|[^a-z])meta(?:[^a-z]|$)/],
  ['gpt', /gpt|openai|(?:^|[^a-z0-9])o[134](?:[^0-9]|$)/],
]

export function detectModelFamily(targetModel: string | undefined): ModelFamily {
  const name = (targetModel ?? '').toLowerCase()
  return FAMILY_PATTERNS.find(([, pattern]) => pattern.test(name))?.[0] ?? 'generic'
}

/** Tasks whose answers benefit from visible reasoning before the result. */
const REASONING_TASKS = new Set(['review', 'debug', 'compare', 'solve', 'plan'])
const REASONING_VERBS = new Set(['analyze', 'analyse', 'evaluate', 'assess', 'investigate'])

interface Parts {
  role: string | null
  /** context, with audience and purpose when the prompt states them */
  context: string
  task: string
  examples: string
  rules: string
  output: string
}

function partsOf(analysis: PromptAnalysis): Parts {
  const brief = buildBrief(analysis)
  const rules = allRules(brief)
  return {
    role: brief.role,
    context: paragraphs(brief.context.join('\n\n'), brief.facts.join('\n')),
    task: brief.task.join('\n\n'),
    examples: brief.examples.join('\n\n'),
    rules: rules.length > 0 ? bulletList(rules) : '',
    output: outputBody(brief),
  }
}

export function modelSpecificPrompt(analysis: PromptAnalysis, targetModel: string | undefined): string {
  const parts = partsOf(analysis)
  switch (detectModelFamily(targetModel)) {
    case 'claude':
      return claudePrompt(parts, analysis)
    case 'gpt':
      return gptPrompt(parts)
    case 'gemini':
      return geminiPrompt(parts)
    case 'llama':
      return llamaPrompt(parts)
    case 'generic':
      return genericPrompt(parts, targetModel)
  }
}

const tag = (name: string, body: string) => body && `<${name}>\n${body}\n</${name}>`
const headed = (heading: string, body: string) => body && `${heading}\n${body}`

/** Claude: XML tags separate material from instructions; long context goes first. */
function claudePrompt(parts: Parts, analysis: PromptAnalysis): string {
  const needsReasoning = REASONING_TASKS.has(analysis.taskType) || REASONING_VERBS.has(analysis.taskVerb ?? '') || analysis.domain === 'math'
  return paragraphs(
    parts.role && tag('role', parts.role),
    tag('context', parts.context),
    tag('instructions', parts.task),
    tag('examples', parts.examples),
    tag('constraints', parts.rules),
    tag('output_format', parts.output),
    needsReasoning && 'Think the problem through inside <thinking> tags first, then give only the final result inside <answer> tags.',
  )
}

/** GPT / OpenAI: standing rules in the system message, the task and its material in the user message. */
function gptPrompt(parts: Parts): string {
  const system = paragraphs(parts.role, headed('# Rules', parts.rules), headed('# Output format', parts.output))
  const user = paragraphs(parts.context && `Context:\n"""\n${parts.context}\n"""`, `Task:\n${parts.task}`, headed('Examples:', parts.examples))
  return system ? `System:\n${system}\n\nUser:\n${user}` : `User:\n${user}`
}

/** Gemini: clear headings, material before the task, and the output format stated last. */
function geminiPrompt(parts: Parts): string {
  return paragraphs(
    parts.role,
    headed('# Context', parts.context),
    headed('# Task', parts.task),
    headed('# Examples', parts.examples),
    headed('# Constraints', parts.rules),
    headed('# Output format', parts.output),
  )
}

/** Llama 3: the chat template's header and end-of-turn markers, ending where the assistant speaks. */
function llamaPrompt(parts: Parts): string {
  const system = paragraphs(parts.role, headed('Rules:', parts.rules), headed('Output format:', parts.output))
  const user = paragraphs(parts.context, parts.task, headed('Examples:', parts.examples))
  return [
    '<|begin_of_text|>',
    system && `<|start_header_id|>system<|end_header_id|>\n\n${system}<|eot_id|>`,
    `<|start_header_id|>user<|end_header_id|>\n\n${user}<|eot_id|>`,
    '<|start_header_id|>assistant<|end_header_id|>\n\n',
  ].join('')
}

/** Unknown or missing target: plain labelled sections that every model handles well. */
function genericPrompt(parts: Parts, targetModel: string | undefined): string {
  const name = truncateAtWord((targetModel ?? '').replace(/\s+/g, ' ').trim(), 80)
  const subject = name ? `for "${name}"` : '(no target model was given)'
  return paragraphs(
    `Note: no specific model family was detected ${subject}, so this prompt uses plain headed sections that suit any model. Target a Claude, GPT, Gemini or Llama model for family-specific conventions.`,
    headed('ROLE', parts.role ?? ''),
    headed('CONTEXT', parts.context),
    headed('TASK', parts.task),
    headed('EXAMPLES', parts.examples),
    headed('CONSTRAINTS', parts.rules),
    headed('OUTPUT FORMAT', parts.output),
  )
}
