// Chain of Thought: the full request, a reasoning scaffold tuned to the domain, and a reply
// format that keeps the reasoning apart from the final answer.
import type { PromptAnalysis } from './analyze'
import { describeDeliverable, describeOutputFormat, paragraphs } from './brief'
import type { Domain } from './domain'

interface ReasoningHints {
  /** what to list as "knowns" */
  knowns: string
  /** how to show the work */
  work: string
  /** how to check the result */
  verify: string
}

const DEFAULT_HINTS: ReasoningHints = {
  knowns: 'the facts, inputs and requirements it states',
  work: 'showing the intermediate result of each step',
  verify: 'check each claim for accuracy',
}

const HINTS: Partial<Record<Domain, ReasoningHints>> = {
  code: {
    knowns: 'inputs, expected outputs, existing code, error messages and edge cases',
    work: 'tracing the logic on a small example before writing the final code',
    verify: 'test the solution mentally against normal input, edge cases and error paths',
  },
  data: {
    knowns: 'what each field means, units, time ranges and data-quality issues',
    work: 'writing down each calculation or aggregation you perform',
    verify: 'recompute the key figures and check that they are consistent with each other',
  },
  math: {
    knowns: 'the given quantities with their units, what is asked for, and the relevant formulas',
    work: 'writing every calculation explicitly',
    verify: 'substitute the result back into the problem or estimate it a second way',
  },
  writing: {
    knowns: 'the audience, the key message and the points that must be covered',
    work: 'drafting section by section against your plan',
    verify: 're-read the draft as the audience would and cut anything that does not serve the message',
  },
  marketing: {
    knowns: 'the audience, the offer, the single action you want readers to take, and any brand rules',
    work: 'drafting the copy against your plan',
    verify: 'check that the message is clear in the first line and that the call to action is specific',
  },
}

export function chainOfThoughtPrompt(analysis: PromptAnalysis): string {
  const hints = HINTS[analysis.domain] ?? DEFAULT_HINTS
  const deliverable = describeDeliverable(analysis)
  const audience = analysis.audience ? ` for ${analysis.audience}` : ''
  const hasRules = analysis.constraintClauses.length > 0 || analysis.lengths.length > 0 ||
    analysis.segments.some((segment) => segment.kind === 'constraint')

  const steps = [
    `1. Understand the problem: restate the task in your own words and name the expected result (${deliverable}${audience}).`,
    `2. List knowns and unknowns: what the request gives you (${hints.knowns}) and what is missing or ambiguous. State any assumption you make.`,
    '3. Plan: outline the steps you will take, in order, before carrying any of them out.',
    `4. Work through the plan one step at a time, ${hints.work}.`,
    `5. Verify: ${hints.verify}; check the result against ${hasRules ? 'every requirement in the request (length, format and rules)' : 'the request'} and fix anything that fails.`,
    '6. Give the final answer.',
  ]

  return paragraphs(
    `## Problem\n${analysis.text}`,
    `## How to approach it\nThink through the problem step by step before answering:\n${steps.join('\n')}`,
    [
      '## Response format',
      'Keep your reasoning separate from the final answer, using exactly these two headings:',
      '- `### Reasoning` — your work for steps 1–5, concise and in order.',
      `- \`### Final answer\` — only the finished result, with no reasoning. Format: ${describeOutputFormat(analysis)}`,
    ].join('\n'),
  )
}
