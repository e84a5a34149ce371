// Few-Shot Examples: the prompt as written, then a few-shot pattern. A prompt with examples of its
// own is told to follow them exactly; otherwise the model first writes a few short worked examples
// of the task (with exactly the prompt's labels and output form) and then answers the same way.
// A rule-based engine cannot know good example inputs for an arbitrary task, and blank slots for
// the user to fill in would be worse than none.
import type { PromptAnalysis } from './analyze'
import { buildBrief, keepsOrder, ONLY_THE_ANSWER, paragraphs } from './brief'

const MAX_EXAMPLES = 5

export function fewShotPrompt(analysis: PromptAnalysis): string {
  const brief = buildBrief(analysis)
  const guidance = analysis.hasExamples ? followTheExamples(analysis, brief.output) : writeExamplesFirst(analysis, brief.output)
  const task = analysis.sectioned ? analysis.text : `## Task\n${analysis.text}`
  return keepsOrder(analysis) ? paragraphs(guidance, task) : paragraphs(task, guidance)
}

const list = (lines: readonly string[]) => lines.map((line) => `- ${line}`).join('\n')

function followTheExamples(analysis: PromptAnalysis, form: readonly string[]): string {
  const labels = analysis.labels.length > 0 ? `, only the labels they use (${analysis.labels.join(', ')})` : ''
  return paragraphs(
    `## How to use the examples\nThe examples in the prompt show the pattern. Handle the new input exactly the same way: the same form${labels}, and the same length and level of detail. Do not repeat the examples in your answer.`,
    form.length > 0 && `The answer must also meet these requirements:\n${list(form)}`,
  )
}

function writeExamplesFirst(analysis: PromptAnalysis, form: readonly string[]): string {
  const { labels } = analysis
  const count = labels.length > 0 ? Math.min(Math.max(labels.length, 2), MAX_EXAMPLES) : 3
  const inputs = analysis.subject ? ` (here: ${analysis.subject})` : ''
  const labelRule =
    labels.length > 0
      ? ` Together they use each of these labels at least once, written exactly as shown, and no label outside this list: ${labels.join(', ')}.`
      : ''
  const variety =
    count === 2
      ? 'Make one a clear-cut case and one a harder, borderline case.'
      : count === 3
        ? 'Make one a typical case, one a harder case and one an edge case.'
        : 'Include a typical case, a harder case and an edge case.'
  // "Nothing before or after it" is about the real answer; the examples come before it by design.
  const exampleForm = form.filter((line) => line !== ONLY_THE_ANSWER)
  const only = form.includes(ONLY_THE_ANSWER) ? ', and nothing else in that section' : ''
  return paragraphs(
    `## Examples first\nBefore answering, write ${count} short worked examples of this task, each a realistic input of the kind the task is about${inputs} followed by its correct output.${labelRule} ${variety}`,
    exampleForm.length > 0
      ? `Give every example's output in exactly the form the real answer must take:\n${list(exampleForm)}`
      : "Give every example's output in exactly the form the real answer must take.",
    `Then handle the real request in the same way. Put the examples under a \`### Examples\` heading, each as an \`Input:\` line and an \`Output:\` line, and the real answer under \`### Answer\`${only}.`,
  )
}
