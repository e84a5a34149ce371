// Finds the rules buried inside task and context sentences ("…, at most 800 words",
// "…and don't use jargon") so they can be restated as an explicit checklist.
import type { Sentence } from './structure'
import { truncateAtWord, unique } from './text'

const MAX_RESTATED = 12
const MAX_CLAUSE_LENGTH = 240
const CLAUSE_BOUNDARIES = [', ', '; ', ': ', ' and ', ' but ', ' — ', ' – ', ' - ']

/**
 * Constraint clauses from the task's sentences, verbatim. Rule segments are shown whole in the
 * constraints section already, and context is material ("the checkout must stay fast" in a
 * pasted design doc describes the system; it is not a rule for the answer).
 */
export function extractConstraintClauses(sentences: readonly Sentence[]): string[] {
  const clauses: string[] = []
  for (const sentence of sentences) {
    if (clauses.length >= MAX_RESTATED * 2) break
    if (sentence.segmentKind !== 'task') continue
    const clause = constraintClause(sentence)
    if (clause) clauses.push(truncateAtWord(clause, MAX_CLAUSE_LENGTH))
  }
  return unique(clauses, (clause) => clause.toLowerCase()).slice(0, MAX_RESTATED)
}

function constraintClause(sentence: Sentence): string | null {
  const at = sentence.constraintAt
  if (at === -1 || sentence.kind === 'question') return null
  const before = sentence.text.slice(0, at)
  const wholeSentenceIsRule = /^[\s\d.)*•-]*$/.test(before) || sentence.kind === 'constraint'
  if (wholeSentenceIsRule && !sentence.isMainTask) return stripListMarker(sentence.text)

  // Inside an instruction, restate only the clause that carries the rule, never the whole task.
  const start = clauseStart(before)
  if (start === -1) return sentence.kind === 'imperative' || sentence.isMainTask ? null : stripListMarker(sentence.text)
  return sentence.text.slice(start).trim() || null
}

/** Offset just after the last clause boundary in `before`, or -1 when there is none. */
function clauseStart(before: string): number {
  let start = -1
  for (const mark of CLAUSE_BOUNDARIES) {
    const at = before.lastIndexOf(mark)
    if (at !== -1) start = Math.max(start, at + mark.length)
  }
  return start
}

function stripListMarker(sentence: string): string {
  return sentence.replace(/^\s*(?:[-*•]|\d{1,3}[.)])\s+/, '')
}
