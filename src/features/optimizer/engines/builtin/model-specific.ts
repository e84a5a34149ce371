// Model-Specific: the same brief, laid out with the conventions each model family is trained on.
import type { PromptAnalysis } from './analyze'
import { ASSUMPTION_NOTE, type Brief, buildBrief, bulletList, hasPlaceholder, PLACEHOLDERS, paragraphs } from './brief'
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

/** Verbs whose answers benefit from visible reasoning before the result. */
const REASONING_VERBS = new Set(['analyze', 'analyse', 'compare', 'evaluate', 'assess', 'debug', 'fix', 'troubleshoot', 'solve', 'calculate', 'prove', 'plan', 'review', 'investigate'])

interface Parts extends Brief {
  contextText: string
  /** audience and purpose lines */
  facts: string
  /** the assumption note, or false when nothing is left to fill in */
  assumption: string | false
}

function partsOf(analysis: PromptAnalysis): Parts {
  const brief = buildBrief(analysis)
  // Only the generated fields are checked: brackets in the user's own text are not placeholders.
  const generated = [brief.audience, brief.purpose, brief.outputFormat, ...brief.constraints].join('\n')
  return {
    ...brief,
    contextText: brief.context.length > 0 ? brief.context.join('\n\n') : PLACEHOLDERS.context,
    facts: `Audience: ${brief.audience}\nPurpose: ${brief.purpose}`,
    assumption: (hasPlaceholder(generated) || brief.context.length === 0) && ASSUMPTION_NOTE,
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

const tag = (name: string, body: string) => `<${name}>\n${body}\n</${name}>`

/** Claude: XML tags separate material from instructions; long context goes first. */
function claudePrompt(parts: Parts, analysis: PromptAnalysis): string {
  const needsReasoning = REASONING_VERBS.has(analysis.taskVerb ?? '') || analysis.domain === 'math' || analysis.domain === 'data'
  return paragraphs(
    tag('role', parts.role),
    tag('context', paragraphs(parts.contextText, parts.facts)),
    tag('instructions', parts.task.join('\n\n')),
    tag('constraints', bulletList(parts.constraints)),
    tag('output_format', parts.outputFormat),
    needsReasoning &&
      'Think the problem through inside <thinking> tags first, then give only the final result inside <answer> tags.',
    parts.assumption,
  )
}

/** GPT / OpenAI: standing rules in the system message, the task and its material in the user message. */
function gptPrompt(parts: Parts): string {
  const system = paragraphs(
    parts.role,
    `# Rules\n${bulletList(parts.constraints)}`,
    `# Output format\n${parts.outputFormat}`,
    parts.assumption,
  )
  const user = paragraphs(
    parts.context.length > 0 && `Context:\n"""\n${parts.contextText}\n"""`,
    `Task:\n${parts.task.join('\n\n')}`,
    parts.facts,
  )
  return `System:\n${system}\n\nUser:\n${user}`
}

/** Gemini: clear headings, material before the task, and the output format stated last. */
function geminiPrompt(parts: Parts): string {
  return paragraphs(
    parts.role,
    `# Context\n${paragraphs(parts.contextText, parts.facts)}`,
    `# Task\n${parts.task.join('\n\n')}`,
    `# Constraints\n${bulletList(parts.constraints)}`,
    `# Output format\n${paragraphs(parts.outputFormat, parts.assumption)}`,
  )
}

/** Llama 3: the chat template's header and end-of-turn markers, ending where the assistant speaks. */
function llamaPrompt(parts: Parts): string {
  const system = paragraphs(parts.role, `Rules:\n${bulletList(parts.constraints)}`, `Output format:\n${parts.outputFormat}`, parts.assumption)
  const user = paragraphs(parts.context.length > 0 && parts.contextText, parts.task.join('\n\n'), parts.facts)
  return [
    '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n',
    system,
    '<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n',
    user,
    '<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
  ].join('')
}

/** Unknown or missing target: plain labelled sections that every model handles well. */
function genericPrompt(parts: Parts, targetModel: string | undefined): string {
  const name = truncateAtWord((targetModel ?? '').replace(/\s+/g, ' ').trim(), 80)
  const subject = name ? `for "${name}"` : '(no target model was given)'
  return paragraphs(
    `Note: no specific model family was detected ${subject}, so this prompt uses model-neutral formatting. Target a Claude, GPT, Gemini or Llama model for family-specific conventions.`,
    `ROLE\n${parts.role}`,
    `CONTEXT\n${paragraphs(parts.contextText, parts.facts)}`,
    `TASK\n${parts.task.join('\n\n')}`,
    `CONSTRAINTS\n${bulletList(parts.constraints)}`,
    `OUTPUT FORMAT\n${paragraphs(parts.outputFormat, parts.assumption)}`,
  )
}
