// Structured Format: Role / Context / Task / Constraints / Output format as Markdown sections.
import type { PromptAnalysis } from './analyze'
import { ASSUMPTION_NOTE, buildBrief, bulletList, hasPlaceholder, PLACEHOLDERS, paragraphs } from './brief'

export function structurePrompt(analysis: PromptAnalysis): string {
  const brief = buildBrief(analysis)
  const contextFacts = [`- Audience: ${brief.audience}`, `- Purpose: ${brief.purpose}`].join('\n')

  const sections = [
    section('Role', brief.role),
    section('Context', paragraphs(brief.context.length > 0 ? brief.context.join('\n\n') : PLACEHOLDERS.context, contextFacts)),
    section('Task', brief.task.join('\n\n')),
    section('Constraints', bulletList(brief.constraints)),
    section('Output format', brief.outputFormat),
  ]
  const body = paragraphs(...sections)
  return paragraphs(body, hasPlaceholder(body) && ASSUMPTION_NOTE)
}

function section(heading: string, body: string): string {
  return `## ${heading}\n${body}`
}
