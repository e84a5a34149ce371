// Few-Shot Examples: the full request, example Input/Output slots tailored to the task type,
// and a final slot for the real input that the model completes.
import type { PromptAnalysis } from './analyze'
import { paragraphs } from './brief'
import { detectTaskType, type ExampleSlot, exampleSlots } from './few-shot-examples'
import type { Segment } from './structure'

const EXAMPLE_GUIDANCE = [
  'The examples below show the expected format, level of detail and style; follow the same pattern.',
  'Replace each [bracketed description] with a real example before using this prompt.',
  'If any remain, treat them as descriptions of a good example, not as text to copy.',
].join(' ')

export function fewShotPrompt(analysis: PromptAnalysis): string {
  const slots = exampleSlots(detectTaskType(analysis), analysis)
  return paragraphs(
    `## Task\n${analysis.text}`,
    `## Examples\n${EXAMPLE_GUIDANCE}`,
    ...slots.map(renderSlot),
    `## Your turn\nInput: ${realInput(analysis)}\nOutput:`,
  )
}

function renderSlot(slot: ExampleSlot, index: number): string {
  return `### Example ${index + 1} (${slot.purpose})\nInput: ${slot.input}\nOutput: ${slot.output}`
}

/** Points at the real input without repeating it: {{variables}} may expand to long documents. */
function realInput(analysis: PromptAnalysis): string {
  const hasMaterial = analysis.variables.length > 0 || analysis.hasCodeBlock || analysis.segments.some(isPastedMaterial)
  if (hasMaterial) return 'the material given in the task above'
  if (analysis.topic) return analysis.topic
  return 'the request in the task above'
}

/** Long or multi-line context is material to work on; a sentence or two is just background. */
function isPastedMaterial(segment: Segment): boolean {
  return segment.kind === 'context' && (segment.text.includes('\n') || segment.text.length > 300)
}
