// Enhance & Clarify: the user's own task first, then every implicit expectation made explicit,
// with a visible placeholder wherever the prompt leaves something out.
import type { PromptAnalysis } from './analyze'
import { ASSUMPTION_NOTE, buildBrief, bulletList, hasPlaceholder, PLACEHOLDERS, paragraphs, segmentsOf } from './brief'

export function enhancePrompt(analysis: PromptAnalysis): string {
  const brief = buildBrief(analysis)
  const [mainTask = '', ...moreTasks] = brief.task
  const userRole = segmentsOf(analysis.segments, 'role')

  const expectations = [
    `Goal: Produce ${brief.deliverable} that fully accomplishes the task above.`,
    `Purpose: ${brief.purpose}`,
    `Audience: ${brief.audience}`,
    `Expected output: ${brief.outputFormat}`,
  ].join('\n')

  const body = paragraphs(
    userRole.join('\n\n'),
    `Task: ${mainTask}`,
    ...moreTasks,
    brief.context.length > 0 ? `Context:\n${brief.context.join('\n\n')}` : `Context: ${PLACEHOLDERS.context}`,
    expectations,
    `Constraints:\n${bulletList(brief.constraints)}`,
  )
  return paragraphs(body, hasPlaceholder(body) && ASSUMPTION_NOTE)
}
