// A prompt's `{{variables}}` and the live filling of its template. The same syntax as the server's
// (src/features/catalogue/text.ts): `{{name}}`, `{{name:default}}`, `{{name:a|b|c}}` (options).
// Pure: no DOM, so the unit tests run it as it is.

export interface TemplateVariable {
  name: string
  default: string | null
  options: string[] | null
}

export type Values = Record<string, string>

/**
 * A variable's value, or '' when it has none. Only the object's own keys count: a variable may be
 * named `constructor`, `toString` or `__proto__`, which every plain object inherits.
 */
export const valueOf = (values: Values, name: string): string => (Object.hasOwn(values, name) ? values[name]! : '')

/** One piece of the filled template: text as written, a filled variable, or one still empty. */
export type Segment = { kind: 'text'; text: string } | { kind: 'value'; name: string; text: string } | { kind: 'empty'; name: string; text: string }

const VARIABLE = /\{\{\s*([\p{L}_][\p{L}\p{N}_.-]*)\s*(?::([^{}]*))?\}\}/gu

/** What the form starts with: each variable's default, or its first option, or nothing. */
export function initialValues(variables: readonly TemplateVariable[]): Values {
  // Defined as own properties: assigning `__proto__` on a plain object would not create one.
  return Object.fromEntries(variables.map((v) => [v.name, v.default ?? v.options?.[0] ?? '']))
}

/**
 * The template cut into pieces: every `{{…}}` occurrence of a variable becomes its value, or stays
 * written as `{{name}}` while the value is empty (whitespace counts as empty).
 */
export function fillSegments(content: string, values: Values): Segment[] {
  const segments: Segment[] = []
  let last = 0
  for (const match of content.matchAll(VARIABLE)) {
    const at = match.index
    if (at > last) segments.push({ kind: 'text', text: content.slice(last, at) })
    const name = match[1]!
    const value = valueOf(values, name)
    segments.push(value.trim() === '' ? { kind: 'empty', name, text: `{{${name}}}` } : { kind: 'value', name, text: value })
    last = at + match[0].length
  }
  if (last < content.length) segments.push({ kind: 'text', text: content.slice(last) })
  return segments
}

/** The filled template as one string: what "Copy" puts on the clipboard. */
export function fillTemplate(content: string, values: Values): string {
  return fillSegments(content, values)
    .map((s) => s.text)
    .join('')
}

/** The names of the variables still empty, in order of first appearance, each once. */
export function emptyVariables(variables: readonly TemplateVariable[], values: Values): string[] {
  return variables.filter((v) => valueOf(values, v.name).trim() === '').map((v) => v.name)
}

/** `product_name` → `Product name`: a label a person reads (the code name is shown beside it). */
export function humanize(name: string): string {
  const words = name
    .replace(/[_.-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase()
  return words ? words[0]!.toUpperCase() + words.slice(1) : name
}
