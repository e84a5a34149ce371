// Enhance & Clarify: the user's prompt, with what it implies made explicit: its rules as a
// checklist, the labels, form, length, tone and language it asks for, and the rules that follow
// from the task. Nothing the prompt leaves open is filled in for the user.
import type { PromptAnalysis } from './analyze'
import { allRules, type Brief, buildBrief, bulletList, keepsOrder, paragraphs } from './brief'
import { renderHeading } from './sections'

const ASSUMPTION = 'Where the request leaves a detail open, choose what fits best and state that assumption in one line before the answer.'

export function enhancePrompt(analysis: PromptAnalysis): string {
  const brief = buildBrief(analysis)
  if (analysis.sectioned || keepsOrder(analysis)) return addToWholePrompt(analysis, brief)
  const [mainTask = '', ...moreTasks] = brief.task
  const rules = allRules(brief)
  return paragraphs(
    brief.userRole && brief.role,
    `Task: ${mainTask}`,
    ...moreTasks,
    brief.context.length > 0 && `Context:\n${brief.context.join('\n\n')}`,
    brief.facts.join('\n'),
    rules.length > 0 && `Constraints:\n${bulletList(rules)}`,
    brief.output.length > 0 && `Expected output:\n${bulletList(brief.output)}`,
    leavesDetailsOpen(analysis, brief) && ASSUMPTION,
  )
}

/**
 * A prompt already in sections, or one whose order matters (examples, then a slot to fill),
 * stays exactly as written; the additions go after its sections, or before the examples.
 */
function addToWholePrompt(analysis: PromptAnalysis, brief: Brief): string {
  const style = analysis.sectioned?.style ?? { kind: 'label' as const }
  const additions = paragraphs(
    brief.addedRules.length > 0 && renderHeading(style, 'Constraints', bulletList(brief.addedRules)),
    brief.userOutput === null && brief.output.length > 0 && renderHeading(style, 'Expected output', bulletList(brief.output)),
  )
  return analysis.sectioned ? paragraphs(analysis.text, additions) : paragraphs(additions, analysis.text)
}

/** A bare request (no material, no rules, no stated form) gets leave to make and state assumptions. */
function leavesDetailsOpen(analysis: PromptAnalysis, brief: Brief): boolean {
  return (
    brief.context.length === 0 &&
    brief.userRules.length === 0 &&
    analysis.output.phrases.length === 0 &&
    !analysis.output.exclusive &&
    analysis.labels.length === 0
  )
}
