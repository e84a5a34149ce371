// Prompts that are already organised in sections ("## Role", "Task:", "<context>…</context>").
// Such a prompt is kept as the user wrote it: the modes only add the sections it lacks, and
// model-specific layouts move each section's body to the matching place.

export type SectionKind = 'role' | 'context' | 'task' | 'constraints' | 'output' | 'examples' | 'other'

export type HeadingStyle = { kind: 'markdown'; level: number } | { kind: 'label' } | { kind: 'xml' }

export interface Section {
  /** the heading as written ("Output format", "clause_a"); null for text before the first heading */
  heading: string | null
  kind: SectionKind
  /** the section's content without its heading (for an XML section, without its tags) */
  body: string
  /** the whole section exactly as written, heading included */
  text: string
}

export interface Sections {
  sections: Section[]
  style: HeadingStyle
}

const KINDS: Record<string, SectionKind> = {}
const kinds = (kind: SectionKind, names: string) => {
  for (const name of names.split(',')) KINDS[name.trim()] = kind
}
kinds('role', 'role, persona, identity, system, who you are, your role')
kinds('context', 'context, background, situation, about, audience, data, input, inputs, material, document, source, text, details, information')
kinds('task', 'task, tasks, instructions, instruction, goal, goals, objective, objectives, request, question, your task, what to do, steps, job')
kinds(
  'constraints',
  'constraints, rules, requirements, guidelines, restrictions, limitations, notes, dos and donts, style, tone, style guide, boundaries, do not',
)
kinds(
  'output',
  'output, output format, format, response format, answer format, output requirements, deliverable, deliverables, expected output, response',
)
kinds('examples', 'examples, example, sample, samples, few-shot examples, demonstrations')

const MAX_HEADING_LENGTH = 40
const MARKDOWN_HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/
// "Task:" alone or "**Task:** do this"; a short label of letters, spaces and a few joiners.
const LABEL_LINE = /^(?:\*\*)?([A-Za-z][A-Za-z /&'-]{0,38}?)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*(.*)$/
const XML_OPEN = /^<([A-Za-z][\w-]{0,38})>(.*)$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/

function kindOf(heading: string): SectionKind | undefined {
  const name = heading
    .toLowerCase()
    .replace(/[*_`:]/g, '')
    .replace(/[^a-z' &/-]+/g, ' ')
    .replace(/['&/-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return KINDS[name]
}

interface Heading {
  line: number
  heading: string
  kind: SectionKind | undefined
  /** text after the heading on the same line ("Task: do this") */
  rest: string
  /** for XML: the line index of the closing tag */
  closeLine?: number
}

/**
 * The prompt's sections, when it has at least two recognised headings of one style (Markdown
 * headings, "Label:" lines or top-level XML tags); null for a prompt in plain prose.
 */
export function findSections(text: string): Sections | null {
  const lines = text.split('\n')
  const markdown: Heading[] = []
  const labels: Heading[] = []
  const xml: Heading[] = []
  let fence: string | null = null
  let openTag: { name: string; heading: Heading } | null = null
  for (let i = 0; i < lines.length && i < 2000; i++) {
    const line = lines[i] ?? ''
    const fenceMark = FENCE.exec(line)?.[1]
    if (fence) {
      if (fenceMark && fenceMark[0] === fence[0] && line.trim().length >= fence.length && /^[`~]+$/.test(line.trim())) fence = null
      continue
    }
    if (fenceMark) {
      fence = fenceMark
      continue
    }
    if (openTag) {
      if (line.trimEnd().endsWith(`</${openTag.name}>`)) {
        openTag.heading.closeLine = i
        openTag = null
      }
      continue
    }
    // Headings are short; long lines are never tested (and regexes stay linear).
    if (line.length > 2 * MAX_HEADING_LENGTH + 20) continue
    const md = MARKDOWN_HEADING.exec(line)
    if (md && (md[2] ?? '').length <= MAX_HEADING_LENGTH) {
      markdown.push({ line: i, heading: md[2] ?? '', kind: kindOf(md[2] ?? ''), rest: '' })
      continue
    }
    const tag = XML_OPEN.exec(line)
    if (tag) {
      const name = tag[1] ?? ''
      const heading: Heading = { line: i, heading: name, kind: kindOf(name.replace(/[_-]/g, ' ')), rest: tag[2] ?? '' }
      xml.push(heading)
      if (line.trimEnd().endsWith(`</${name}>`)) heading.closeLine = i
      else openTag = { name, heading }
      continue
    }
    const label = LABEL_LINE.exec(line)
    if (label && !/^https?$/i.test(label[1] ?? '')) {
      const kind = kindOf(label[1] ?? '')
      if (kind) labels.push({ line: i, heading: (label[1] ?? '').trim(), kind, rest: label[2] ?? '' })
    }
  }
  const recognised = (headings: Heading[]) => headings.filter((heading) => heading.kind !== undefined).length
  if (recognised(markdown) >= 2) return { sections: cut(lines, markdown, 'markdown'), style: { kind: 'markdown', level: levelOf(lines, markdown) } }
  if (recognised(xml) >= 2 && xml.every((heading) => heading.closeLine !== undefined)) return { sections: cutXml(lines, xml), style: { kind: 'xml' } }
  // "Text: …" / "Sentiment: …" repeated is a list of examples or records, not sections.
  const labelNames = labels.map((heading) => heading.heading.toLowerCase())
  if (recognised(labels) >= 2 && new Set(labelNames).size === labelNames.length)
    return { sections: cut(lines, labels, 'label'), style: { kind: 'label' } }
  return null
}

function levelOf(lines: readonly string[], headings: readonly Heading[]): number {
  const first = headings.find((heading) => heading.kind !== undefined) ?? headings[0]
  return MARKDOWN_HEADING.exec(lines[first?.line ?? 0] ?? '')?.[1]?.length ?? 2
}

/** Markdown and label sections run from their heading to the next heading. */
function cut(lines: readonly string[], headings: readonly Heading[], style: 'markdown' | 'label'): Section[] {
  const sections: Section[] = []
  const preamble = lines
    .slice(0, headings[0]?.line ?? 0)
    .join('\n')
    .trim()
  if (preamble) sections.push({ heading: null, kind: 'other', body: preamble, text: preamble })
  headings.forEach((heading, index) => {
    const end = headings[index + 1]?.line ?? lines.length
    const text = lines.slice(heading.line, end).join('\n').trim()
    const following = lines.slice(heading.line + 1, end).join('\n')
    const body = (style === 'label' && heading.rest ? `${heading.rest}\n${following}` : following).trim()
    sections.push({ heading: heading.heading, kind: heading.kind ?? 'other', body, text })
  })
  return sections
}

/** XML sections are their tags; text between them is kept as sections of its own. */
function cutXml(lines: readonly string[], headings: readonly Heading[]): Section[] {
  const sections: Section[] = []
  let next = 0
  const loose = (until: number) => {
    const text = lines.slice(next, until).join('\n').trim()
    if (text) sections.push({ heading: null, kind: 'other', body: text, text })
  }
  for (const heading of headings) {
    loose(heading.line)
    const close = heading.closeLine ?? heading.line
    const text = lines
      .slice(heading.line, close + 1)
      .join('\n')
      .trim()
    const inner = text.slice(heading.heading.length + 2, text.length - heading.heading.length - 3).trim()
    sections.push({ heading: heading.heading, kind: heading.kind ?? 'other', body: inner, text })
    next = close + 1
  }
  loose(lines.length)
  return sections
}

/** A heading in the prompt's own style, for sections a mode adds. */
export function renderHeading(style: HeadingStyle, name: string, body: string): string {
  switch (style.kind) {
    case 'markdown':
      return `${'#'.repeat(style.level)} ${name}\n${body}`
    case 'label':
      return `${name}:\n${body}`
    case 'xml':
      return `<${name.toLowerCase().replace(/\s+/g, '_')}>\n${body}\n</${name.toLowerCase().replace(/\s+/g, '_')}>`
  }
}
