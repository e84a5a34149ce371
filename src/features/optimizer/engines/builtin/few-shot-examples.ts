// Example slots for few-shot prompts. Each task type describes what a typical, a harder and an
// edge-case example should look like, so the user (or the model) knows what to put in each slot.
import type { PromptAnalysis } from './analyze'

export type TaskType =
  | 'translate' | 'summarize' | 'classify' | 'extract' | 'rewrite' | 'review' | 'debug' | 'code' | 'answer' | 'list' | 'write'
  | 'generic'

export interface ExampleSlot {
  /** what makes this example useful: "typical case", "harder case", "edge case" */
  purpose: string
  input: string
  output: string
}

const verbGroups: readonly (readonly [TaskType, string])[] = [
  ['translate', 'translate'],
  ['summarize', 'summarize summarise condense'],
  ['classify', 'classify categorize categorise label tag score rank detect'],
  ['extract', 'extract parse'],
  ['rewrite', 'rewrite rephrase paraphrase edit proofread polish improve simplify shorten expand revise correct'],
  ['review', 'review critique audit assess evaluate'],
  ['debug', 'fix debug troubleshoot'],
  ['answer', 'explain describe define teach tell answer'],
  ['list', 'list brainstorm suggest recommend propose name'],
  ['write', 'write draft compose craft create generate make produce prepare'],
]
const VERB_TYPES = new Map(verbGroups.flatMap(([type, verbs]) => verbs.split(' ').map((verb) => [verb, type] as const)))

export function detectTaskType(analysis: PromptAnalysis): TaskType {
  const fromVerb = analysis.taskVerb ? VERB_TYPES.get(analysis.taskVerb) : undefined
  const question = analysis.taskKind === 'question'
  // A specific verb ("classify", "summarize") says more than the domain; "write" does not.
  if (fromVerb && fromVerb !== 'write') return fromVerb
  if (analysis.domain === 'code') return question ? (analysis.hasCodeBlock ? 'debug' : 'answer') : 'code'
  if (fromVerb) return fromVerb
  return question ? 'answer' : 'generic'
}

const quoted = (text: string) => `“${text}”`
/** "a blog post", "an email" (by first letter; good enough for the format nouns used here). */
const withArticle = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`

export function exampleSlots(type: TaskType, analysis: PromptAnalysis): ExampleSlot[] {
  const label = analysis.format?.label ?? 'response'
  const noun = analysis.format?.noun ?? 'response'
  const forAudience = analysis.audience ? ` for ${analysis.audience}` : ''
  const topic = analysis.topic ? ` similar to ${quoted(analysis.topic)}` : ''
  const language = analysis.programmingLanguage
  const target = analysis.targetLanguage ?? 'the target language'
  const asFormat = analysis.format && analysis.format.kind === 'data' ? ` as ${label}` : ''

  switch (type) {
    case 'translate':
      return [
        { purpose: 'typical case', input: '[a short, everyday sentence in the source language]', output: `[its natural, fluent translation into ${target}]` },
        { purpose: 'harder case', input: '[a sentence with an idiom, slang or a cultural reference]', output: '[a translation that carries the meaning, not a word-for-word rendering]' },
        { purpose: 'edge case', input: '[text containing names, numbers, code or placeholders]', output: '[the translation with those parts left exactly as they were]' },
      ]
    case 'summarize':
      return [
        { purpose: 'typical case', input: '[a typical passage of the kind you will summarize]', output: `[a faithful summary${forAudience}: the main point first, then the key details]` },
        { purpose: 'harder case', input: '[a long or dense passage with several competing points]', output: '[a summary that keeps every main point and drops minor details]' },
        { purpose: 'edge case', input: '[a passage full of numbers, dates or names]', output: '[a summary that reproduces those figures exactly]' },
      ]
    case 'classify':
      return [
        { purpose: 'typical case', input: '[a clear-cut item]', output: '[its label, from: list your allowed labels]' },
        { purpose: 'harder case', input: '[an ambiguous item that could fit two labels]', output: '[the best label and a one-line reason]' },
        { purpose: 'edge case', input: '[an item that fits no label]', output: '[the fallback label, e.g. "other"]' },
      ]
    case 'extract':
      return [
        { purpose: 'typical case', input: '[a typical text containing the information to extract]', output: `[the extracted fields${asFormat}]` },
        { purpose: 'harder case', input: '[a messy text with inconsistent formatting and extra noise]', output: '[clean, normalised values in the same structure]' },
        { purpose: 'edge case', input: '[a text where some fields are missing]', output: '[the same structure with the missing fields set to null]' },
      ]
    case 'rewrite':
      return [
        { purpose: 'typical case', input: '[a typical original text]', output: `[the rewritten version: same meaning, ${analysis.tones.length > 0 ? `${analysis.tones.join(', ')} tone` : 'clearer wording'}]` },
        { purpose: 'harder case', input: '[a long, convoluted paragraph]', output: '[a tighter version that keeps every fact]' },
        { purpose: 'edge case', input: '[a text that is already good]', output: '[a version with only minimal changes]' },
      ]
    case 'review': {
      const work = analysis.domain === 'code' ? `${language ?? 'code'} snippet` : 'piece of work'
      return [
        { purpose: 'typical case', input: `[a short ${work} with one clear issue]`, output: '[findings ordered by severity: the issue, why it matters, a concrete fix]' },
        { purpose: 'harder case', input: `[a ${work} with a subtle problem that only shows in some situations]`, output: '[the problem, when it occurs, and how to fix it]' },
        { purpose: 'edge case', input: `[a ${work} that is already good]`, output: '[a short confirmation that nothing needs changing, plus optional minor suggestions]' },
      ]
    }
    case 'debug':
      return [
        { purpose: 'typical case', input: `[a short ${language ?? 'code'} snippet and the error it produces]`, output: '[the root cause in one sentence, then the fixed code]' },
        { purpose: 'harder case', input: '[a snippet whose bug only shows on some inputs]', output: '[the failing input, the cause, and the fix]' },
        { purpose: 'edge case', input: '[a snippet that is actually correct]', output: '[an explanation that there is no bug, and where the problem really is]' },
      ]
    case 'code':
      return [
        { purpose: 'typical case', input: `[a small, similar task${topic}${language ? ` in ${language}` : ''}]`, output: `[idiomatic ${language ? `${language} ` : ''}code in a fenced block, with a one-line explanation]` },
        { purpose: 'harder case', input: '[a similar task with empty input, invalid data or failures to handle]', output: '[code that handles those cases explicitly]' },
        { purpose: 'edge case', input: '[a request that forces a design trade-off, e.g. speed vs. readability]', output: '[the code plus one sentence on the trade-off chosen]' },
      ]
    case 'answer':
      return [
        { purpose: 'typical case', input: `[a typical question${topic ? ` about a subject${topic}` : ' of this kind'}]`, output: `[a direct answer first, then a short explanation${forAudience}]` },
        { purpose: 'harder case', input: '[a question that rests on a false assumption or is ambiguous]', output: '[an answer that names the problem, then answers the most likely meaning]' },
        { purpose: 'edge case', input: '[a question that cannot be answered with certainty]', output: '[what is known, what is uncertain, and why]' },
      ]
    case 'list':
      return [
        { purpose: 'typical case', input: `[a request${topic || ' of the same kind'}]`, output: `[the items${asFormat}, each with a one-line rationale]` },
        { purpose: 'harder case', input: '[a request with a tight constraint: budget, time or audience]', output: '[items that all respect the constraint]' },
        { purpose: 'edge case', input: '[a niche or unusual topic]', output: '[fewer but still useful items, flagging any that are speculative]' },
      ]
    case 'write':
      return [
        { purpose: 'typical case', input: `[a topic${topic || ' of the same kind'}]`, output: `[${label === 'response' ? 'a piece' : label}${forAudience} with the structure, tone and length you want]` },
        { purpose: 'harder case', input: '[a topic that needs a different angle or more nuance]', output: `[${withArticle(noun)} that handles the nuance in the same voice]` },
        { purpose: 'edge case', input: '[a narrow topic with little to say]', output: `[a shorter ${noun} that stays on topic instead of padding]` },
      ]
    case 'generic':
      return [
        { purpose: 'typical case', input: '[a typical input for this task]', output: `[the ideal ${noun} for it]` },
        { purpose: 'harder case', input: '[a harder or more complex input]', output: '[the ideal output, showing how to handle the complexity]' },
        { purpose: 'edge case', input: '[an unusual or borderline input]', output: '[how the output should handle it]' },
      ]
  }
}
