// Chain of Thought: the prompt as written, a reasoning scaffold tuned to the task, and a reply
// format that keeps the reasoning apart from a final answer in exactly the form the prompt asks for.
import type { PromptAnalysis } from './analyze'
import { buildBrief, keepsOrder, paragraphs } from './brief'
import type { TaskType } from './tasks'

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

const HINTS: Partial<Record<TaskType | 'math' | 'data', ReasoningHints>> = {
  code: {
    knowns: 'inputs, expected outputs, existing code, error messages and edge cases',
    work: 'tracing the logic on a small example before writing the final code',
    verify: 'test the solution mentally against normal input, edge cases and error paths',
  },
  debug: {
    knowns: 'the code, the error or wrong behaviour, and when it happens',
    work: 'tracing the failing case until the cause is certain',
    verify: 'check that the fix removes the cause and breaks nothing else, edge cases included',
  },
  review: {
    knowns: 'what the work is meant to do and where it could go wrong',
    work: 'going through it part by part and noting each issue with its location',
    verify: 'check that every finding is real and that each fix is concrete',
  },
  summarize: {
    knowns: 'the main point of the source and the details that support it',
    work: 'picking the points that matter most and dropping the rest',
    verify: 'check every statement against the source, names and numbers included',
  },
  extract: {
    knowns: 'every item in the text and the values it gives for each field',
    work: 'going through the text in order and noting each value where it appears',
    verify: 'check each value against the text and that no item was missed',
  },
  translate: {
    knowns: 'the meaning, tone and register of the original, and any names, numbers or placeholders',
    work: 'translating sentence by sentence for meaning rather than word for word',
    verify: 're-read the translation as a native speaker would and compare it with the original',
  },
  math: {
    knowns: 'the given quantities with their units, what is asked for, and the relevant formulas',
    work: 'writing every calculation explicitly',
    verify: 'substitute the result back into the problem or estimate it a second way',
  },
  data: {
    knowns: 'what each field means, units, time ranges and data-quality issues',
    work: 'writing down each calculation or aggregation you perform',
    verify: 'recompute the key figures and check that they are consistent with each other',
  },
  write: {
    knowns: 'the audience, the key message and the points that must be covered',
    work: 'drafting section by section against your plan',
    verify: 're-read the draft as its reader would and cut anything that does not serve the message',
  },
}

function hintsFor(analysis: PromptAnalysis): ReasoningHints {
  if (analysis.labels.length > 0) {
    const labels = analysis.labels.join(', ')
    return {
      knowns: `what the input says, and what would make each label fit (${labels})`,
      work: `weighing the input against each label in turn: ${labels}`,
      verify: 'check that the chosen label is one of the allowed ones, written exactly as given',
    }
  }
  if (analysis.domain === 'math' || analysis.domain === 'data') return HINTS[analysis.domain] ?? DEFAULT_HINTS
  return HINTS[analysis.taskType] ?? DEFAULT_HINTS
}

export function chainOfThoughtPrompt(analysis: PromptAnalysis): string {
  const hints = hintsFor(analysis)
  const brief = buildBrief(analysis)
  const requirements = [...brief.output]
  const deliverable = analysis.deliverable ? ` and name what to deliver (${analysis.deliverable})` : ''
  const steps = [
    `1. Understand the task: restate it in your own words${deliverable}.`,
    `2. List what the request gives you: ${hints.knowns}. Then note what is missing or ambiguous, and state any assumption you make.`,
    '3. Plan the steps you will take, in order, before carrying any of them out.',
    `4. Work through the plan one step at a time, ${hints.work}.`,
    `5. Verify: ${hints.verify}; then check the result against every requirement of the request and fix anything that fails.`,
    '6. Give the final answer.',
  ]
  const form = requirements.length > 0 ? ` It must meet these requirements:\n${requirements.map((line) => `  - ${line}`).join('\n')}` : ''
  const approach = paragraphs(
    `## How to approach it\nThink the problem through step by step before answering:\n${steps.join('\n')}`,
    [
      '## Response format',
      'Keep your reasoning apart from the final answer, under exactly these two headings:',
      '- `### Reasoning`: your work for steps 1–5, concise and in order.',
      `- \`### Final answer\`: only the finished result, in exactly the form the request asks for, with no reasoning.${form}`,
    ].join('\n'),
  )
  const problem = analysis.sectioned ? analysis.text : `## Problem\n${analysis.text}`
  // A prompt that ends in a slot to fill ("Label:") keeps it at the end.
  return keepsOrder(analysis) ? paragraphs(approach, problem) : paragraphs(problem, approach)
}
