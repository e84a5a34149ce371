// The label set a classification prompt names, verbatim: "as complaint, question or praise",
// "one of: Billing, Bug", a "Labels:" list, "(spam/ham)", 「肯定」「否定」, or the values its own
// examples use ("Sentiment: positive"). Every mode then uses exactly these labels and never
// invents one (no "other" the user did not allow).
import { IMPERATIVE_VERBS } from './lexicon'

const MAX_LABEL_WORDS = 4
const MAX_LABELS = 30
/** Only the start of a long prompt is searched: label sets sit with the task, not in pasted material. */
const SEARCHED_CHARS = 6000

/** Words that say the prompt asks for a label per item (needed for the weaker signs). */
const CLASSIFY_CUE =
  /\b(?:classify|classifies|classification|categori[sz]e|categories|category|label|labels|labell?ing|tag|triage|sentiment|spam|intent|decide whether|determine whether|is (?:this|it) (?:a|an)?)\b|分類|いずれか|分类|clasifica|classifie|klassifizier|kategorisier/i

const VERB_AS =
  /\b(?:classify|categori[sz]e|label|tag|triage|rate|mark|flag|sort|bucket|group)\b[^.?!\n]{0,100}?\b(?:as|into|with|under)\s+(?:either\s+)?/gi
const ONE_OF =
  /\b(?:one of|choose from|pick from|select from|exactly one of|one label from|one category from|one value from)(?:\s+the following|\s+these)?(?:\s+(?:labels?|categories|classes|options|values|tags))?\s*:?\s*/gi
const HEADER =
  /(?:^|[.!?]\s+)(?:[-*]\s*)?(?:the\s+)?(?:allowed |possible |valid |available )?(?:labels?|categories|classes|options|tags|sentiments?|intents?|values)(?:\s+(?:are|to use|allowed))?[ \t]*:[ \t]*(.*)$/gim
const SLASHED = /[([]\s*([^()[\]\n/|]{1,40}(?:[/|][^()[\]\n/|]{1,40}){1,11})[)\]]/g
const JAPANESE_QUOTED = /「([^」\n]{1,30})」/g
const EXAMPLE_LINE = /^(label|sentiment|category|class|classification|intent|tag|answer|output|verdict)\s*:[ \t]*(.*)$/gim

/** A list item's end: sentence punctuation or the start of a parenthesis. */
const ITEM_SPLIT = /\s*(?:,\s*(?:or|and)\s+|,|\s+or\s+|\s+and\s+|\s*\/\s*|\s*\|\s*|、|・)\s*/
const LIST_END = /[.;!?\n(:]|\s-\s|$/
/** A word that starts something other than a label ("… or negative and explain why"). */
const NOT_A_LABEL_START = new Set([
  'the',
  'their',
  'his',
  'her',
  'its',
  'your',
  'my',
  'our',
  'any',
  'all',
  'each',
  'every',
  'some',
  'this',
  'that',
  'these',
  'those',
  'which',
  'who',
  'it',
  'them',
  'they',
  'you',
  'if',
  'when',
  'so',
  'then',
  'based',
  'depending',
  'according',
  'using',
  'because',
  'given',
  'whether',
  'possible',
  'else',
  'per',
])
/** Words that end the last label: "neutral | based on the tone". */
const LAST_ITEM_STOP = new Set([
  'based',
  'depending',
  'according',
  'using',
  'for',
  'from',
  'in',
  'with',
  'by',
  'if',
  'when',
  'so',
  'because',
  'given',
  'to',
  'as',
  'then',
  'where',
  'only',
  'per',
])

/** The labels the prompt names, in its order, or [] when it names none. */
export function findLabels(prose: string): string[] {
  const text = prose.slice(0, SEARCHED_CHARS)
  const strong = fromHeader(text) ?? afterPattern(text, ONE_OF) ?? afterPattern(text, VERB_AS)
  if (strong) return strong
  // Weaker signs (quoted or slashed lists, examples' values) count only in a labelling task.
  if (!CLASSIFY_CUE.test(text)) return []
  return japaneseQuoted(text) ?? slashed(text) ?? fromExamples(text) ?? []
}

function fromHeader(text: string): string[] | null {
  for (const match of text.matchAll(HEADER)) {
    const inline = parseList(match[1] ?? '')
    if (inline) return inline
    // "Labels:" followed by a bulleted list, one label per line
    const after = text.slice((match.index ?? 0) + match[0].length + 1).split('\n')
    const items: string[] = []
    for (const line of after) {
      const item = /^\s*(?:[-*•]|\d{1,2}[.)])\s+(.+?)\s*$/.exec(line)?.[1]
      if (!item) break
      const label = cleanLabel(item.replace(/\s+[-–—:(].*$/, ''))
      if (!label) return null
      items.push(label)
    }
    if (items.length >= 2) return dedupe(items)
  }
  return null
}

function afterPattern(text: string, pattern: RegExp): string[] | null {
  for (const match of text.matchAll(pattern)) {
    const start = (match.index ?? 0) + match[0].length
    const rest = text.slice(start, start + 300)
    const list = parseList(rest.slice(0, rest.search(LIST_END)))
    if (list) return list
    // "one of the following:" and the labels as a bulleted list on the next lines
    if (/^\s*\n/.test(rest) || rest.trim() === '') {
      const bullets = fromHeader(`labels:\n${rest.replace(/^\s*\n/, '')}`)
      if (bullets) return bullets
    }
  }
  return null
}

function japaneseQuoted(text: string): string[] | null {
  for (const sentence of text.split(/[。\n]/)) {
    const items = [...sentence.matchAll(JAPANESE_QUOTED)].map((match) => (match[1] ?? '').trim())
    if (items.length >= 2) return dedupe(items)
  }
  return null
}

function slashed(text: string): string[] | null {
  for (const match of text.matchAll(SLASHED)) {
    const items = (match[1] ?? '').split(/\s*[/|]\s*/).map(cleanLabel)
    if (items.length >= 2 && items.every((item): item is string => item !== null && item.split(' ').length <= 2)) return dedupe(items)
  }
  return null
}

/** Few-shot prompts: the values of repeated "Label: x" lines. */
function fromExamples(text: string): string[] | null {
  const byKey = new Map<string, string[]>()
  for (const match of text.matchAll(EXAMPLE_LINE)) {
    const value = cleanLabel(match[2] ?? '')
    const key = (match[1] ?? '').toLowerCase()
    if (value && !value.includes('{{') && !/[,()]/.test(value)) byKey.set(key, [...(byKey.get(key) ?? []), value])
  }
  for (const values of byKey.values()) {
    if (values.length >= 2) return dedupe(values)
  }
  return null
}

/** "complaint, question or praise" → three labels; null unless it is a list of at least two short items. */
function parseList(raw: string): string[] | null {
  // Runs of whitespace become one space first: ITEM_SPLIT's \s* and \s+ around its alternatives
  // would otherwise backtrack cubically over a long run ("Labels: a" + 6,000 tabs took ~90 s).
  // The labels are the same either way: each part's words are joined with single spaces below.
  const parts = raw.replace(/\s+/g, ' ').split(ITEM_SPLIT)
  const labels: string[] = []
  for (let i = 0; i < parts.length; i++) {
    let words = (parts[i] ?? '').trim().split(/\s+/).filter(Boolean)
    const first = words[0]?.toLowerCase().replace(/^["'“‘`*]+/, '') ?? ''
    if (words.length === 0) break
    if (i > 0 && (NOT_A_LABEL_START.has(first) || (IMPERATIVE_VERBS.has(first) && words.length > 1))) break
    if (i === 0 && NOT_A_LABEL_START.has(first)) return null
    const stop = words.findIndex((word, k) => k > 0 && LAST_ITEM_STOP.has(word.toLowerCase()))
    if (stop > 0) words = words.slice(0, stop)
    const label = cleanLabel(words.join(' '))
    if (!label) return null
    labels.push(label)
    if (stop > 0) break
  }
  if (labels.length < 2 || labels.length > MAX_LABELS) return null
  // "not" alone is the end of "spam or not", not a label
  if (labels.some((label) => label.toLowerCase() === 'not')) return null
  return dedupe(labels)
}

/** Strips quotes, emphasis and a leading article; null when what is left is not a short label. */
function cleanLabel(raw: string): string | null {
  const label = raw
    .trim()
    .replace(/^(?:an?\s+)(?=\S)/i, '')
    .replace(/^["'“‘`*_]+|["'”’`*_.,;:]+$/g, '')
    .trim()
  if (label === '' || label.length > 40 || label.split(/\s+/).length > MAX_LABEL_WORDS) return null
  if (/[{}[\]<>]/.test(label)) return null
  return label
}

function dedupe(labels: readonly string[]): string[] {
  return [...new Set(labels)]
}
