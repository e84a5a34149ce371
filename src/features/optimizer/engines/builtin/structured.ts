// Structured Format: Role, Context, Task, Constraints and Output format as Markdown sections.
// A prompt that already has sections keeps them as written and gets only the ones it lacks.
import type { PromptAnalysis } from './analyze'
import { allRules, type Brief, buildBrief, bulletList, keepsOrder, outputBody, paragraphs } from './brief'
import { renderHeading } from './sections'

export function structurePrompt(analysis: PromptAnalysis): string {
  const brief = buildBrief(analysis)
  if (analysis.sectioned) return completeSections(analysis, brief)
  const rules = allRules(brief)
  const context = paragraphs(brief.context.join('\n\n'), bulletList(brief.facts))
  const role = brief.role && section('Role', brief.role)
  const constraints = rules.length > 0 && section('Constraints', bulletList(rules))
  const output = brief.output.length > 0 && section('Output format', outputBody(brief))
  // Examples followed by a slot to fill stay whole and last, so the slot still ends the prompt.
  if (keepsOrder(analysis)) return paragraphs(role, constraints, output, section('Task', brief.task.join('\n\n')))
  return paragraphs(role, context && section('Context', context), section('Task', brief.task.join('\n\n')), constraints, output)
}

/** The user's sections as written, plus the role, constraints and output format it lacks, in its own heading style. */
function completeSections(analysis: PromptAnalysis, brief: Brief): string {
  const sections = analysis.sectioned!
  const has = (kind: string) => sections.sections.some((s) => s.kind === kind)
  return paragraphs(
    !analysis.userRole && brief.role && renderHeading(sections.style, 'Role', brief.role),
    analysis.text,
    brief.addedRules.length > 0 &&
      renderHeading(sections.style, has('constraints') ? 'More constraints' : 'Constraints', bulletList(brief.addedRules)),
    !has('output') && brief.output.length > 0 && renderHeading(sections.style, 'Output format', bulletList(brief.output)),
  )
}

function section(heading: string, body: string): string {
  return `## ${heading}\n${body}`
}
