// The form of the answer as the prompt itself states it, in its own words: "in 5 bullet points",
// "as JSON with the keys "issue", "resolution"", "a table with columns Drug, Dose, Frequency",
// "under 100 words". Only explicit requests count: a format noun the task merely mentions
// ("classify customer emails", "this JSON file") is not the shape of the answer.

export type OutputKind = 'json' | 'csv' | 'yaml' | 'table' | 'bullets' | 'numbered' | 'code'

export interface OutputSpec {
  /** the prompt's phrases for the answer's form, verbatim, each once */
  phrases: string[]
  /** its length phrases ("under 100 words", "concise"), verbatim, unless a form phrase holds them already */
  lengths: string[]
  kinds: OutputKind[]
  /** the prompt wants the answer and nothing else ("… only", "nothing else", "no explanation") */
  exclusive: boolean
}

const NUMBER = String.raw`(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)`
const NEGATED = /\b(?:no|not|don't|do not|never|without|avoid|instead of)\s+(?:\w+\s+){0,2}$/i
/** Words just before a format noun that make it the input, not the output: "this JSON file". */
const INPUT_REFERENCE = /\b(?:this|that|these|those|following|attached|above|below|my|our|your|given|existing|from|of|the)\s+$/i

interface Cue {
  kind: OutputKind | null
  pattern: RegExp
  /** extend the match to the end of its clause ("JSON with the keys a, b and c") */
  toClauseEnd: boolean
}

const CUES: readonly Cue[] = [
  { kind: 'json', pattern: /\b(?:(?:a|an|one|valid|single|strict|only|minified|pretty-printed)\s+){0,3}JSON\b/gi, toClauseEnd: true },
  { kind: 'csv', pattern: /\b(?:(?:a|an|valid)\s+)?CSV\b/gi, toClauseEnd: true },
  { kind: 'yaml', pattern: /\b(?:(?:a|an|valid)\s+)?YAML\b/gi, toClauseEnd: true },
  {
    kind: 'table',
    pattern:
      /\b(?:(?:in|as|into|output|return|produce|create|make|give|format it as|present it as|using)\s+)(?:a|an|one)\s+(?:[\w-]+\s+){0,2}?table\b|\b(?:a|an)\s+(?:[\w-]+\s+){0,2}?table\s+with\s+(?:the\s+)?(?:columns?|headers?|rows?)\b/gi,
    toClauseEnd: true,
  },
  {
    kind: 'numbered',
    pattern: new RegExp(String.raw`\b(?:(?:a|an|one)\s+)?(?:${NUMBER}[ -](?:item\s+)?)?numbered\s+(?:list|steps)\b`, 'gi'),
    toClauseEnd: false,
  },
  {
    kind: 'bullets',
    pattern: new RegExp(
      String.raw`\b(?:${NUMBER}\s+)?(?:(?:short|concise|brief|key)\s+)?(?:bullet[ -]?points?|bullets|bulleted list|bullet list)\b|\bas (?:a )?(?:bullets|bulleted list|bullet points)\b`,
      'gi',
    ),
    toClauseEnd: false,
  },
  { kind: null, pattern: new RegExp(String.raw`\b${NUMBER}\s+sections?\b`, 'gi'), toClauseEnd: true },
  {
    kind: null,
    pattern:
      /\b\d+-(?:word|page|minute|sentence|line|character)\s+(?:paragraph|summary|intro|introduction|description|bio|abstract|answer|reply|post|article|essay|email)\b/gi,
    toClauseEnd: false,
  },
  { kind: null, pattern: /\bone\s+(?:\w+\s+){0,2}per\s+line\b/gi, toClauseEnd: false },
  { kind: 'code', pattern: /\b(?:in|as)\s+(?:a\s+)?(?:fenced\s+)?code\s+block\b/gi, toClauseEnd: false },
]

const ANY_CUE = /json|csv|yaml|table|bullet|numbered|section|per\s+line|code\s+block|\d-(?:word|page|minute|sentence|line|character)/i

const EXCLUSIVE =
  /\b(?:only|nothing else|no (?:other )?(?:text|prose|explanation|explanations|commentary|preamble|extra text|markdown))\b|\b(?:without|no) (?:any )?(?:explanation|commentary|preamble)\b/i
const OUTPUT_VERBS = /\b(?:return|output|respond|reply|answer|give|print|provide|write|produce|emit|just)\b/i

/** Clause end for a format phrase: sentence punctuation or a line break, at most 160 characters on. */
function clauseEnd(text: string, from: number): number {
  const limit = Math.min(text.length, from + 160)
  for (let i = from; i < limit; i++) {
    const char = text[i]
    if (char === '\n' || char === ';' || char === '!' || char === '?') return i
    if (char === '.' && (i + 1 >= text.length || /\s/.test(text[i + 1] ?? ''))) return i
  }
  return limit
}

/**
 * The explicit output form in `instructions` (the task and rule sentences, never pasted
 * material), with the length phrases found there (signals.ts) that it does not already hold.
 */
export function findOutputSpec(instructions: readonly string[], lengths: readonly string[]): OutputSpec {
  const phrases: string[] = []
  const kinds = new Set<OutputKind>()
  let exclusive = false
  for (const sentence of instructions) {
    const text = sentence.length > 2000 ? sentence.slice(0, 2000) : sentence
    if (!exclusive && EXCLUSIVE.test(text) && OUTPUT_VERBS.test(text)) exclusive = true
    // One native scan rules out most sentences before the nine cue patterns run.
    if (!ANY_CUE.test(text)) continue
    for (const cue of CUES) {
      cue.pattern.lastIndex = 0
      for (const match of text.matchAll(cue.pattern)) {
        const start = match.index ?? 0
        const before = text.slice(Math.max(0, start - 40), start)
        if (NEGATED.test(before)) continue
        if (cue.kind === 'json' || cue.kind === 'csv' || cue.kind === 'yaml') {
          if (INPUT_REFERENCE.test(before) && !/\b(?:as|in|into|return|output)\s+(?:the\s+)?$/i.test(before)) continue
        }
        const phrase = text
          .slice(start, cue.toClauseEnd ? clauseEnd(text, start + match[0].length) : start + match[0].length)
          .replace(/^(?:in|as|into|output|return|produce|create|make|give|format it as|present it as|using)\s+/i, '')
          .trim()
        if (cue.kind) kinds.add(cue.kind)
        phrases.push(phrase)
        break
      }
    }
  }
  const form = withoutRepeats(phrases)
  const inForm = form.join('\n').toLowerCase()
  return {
    phrases: form,
    lengths: withoutRepeats(lengths.filter((length) => !inForm.includes(length.toLowerCase()))),
    kinds: [...kinds],
    exclusive,
  }
}

/** Drops a phrase contained in another ("5 bullet points" inside "in 5 bullet points each under 12 words"). */
function withoutRepeats(phrases: readonly string[]): string[] {
  const kept: string[] = []
  for (const phrase of phrases) {
    const lower = phrase.toLowerCase()
    if (lower === '' || kept.some((other) => other.toLowerCase().includes(lower))) continue
    for (let i = kept.length - 1; i >= 0; i--) if (lower.includes((kept[i] ?? '').toLowerCase())) kept.splice(i, 1)
    kept.push(phrase)
  }
  return kept
}
