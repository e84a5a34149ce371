// The widely shared prompts.csv layout: `act,prompt` and optionally `for_devs,type,contributor`.
// act → title, prompt → content (both trimmed, otherwise exact: the control characters of
// prompts.chat's multi-file skills stay; NUL or bytes that are not UTF-8 refuse the row, naming
// their line and field); rows land in --category, else `coding` when for_devs is TRUE, else
// `general` (created when missing); `type` becomes a tag. A row's id is a UUID v5 of category +
// title, so re-importing the file updates rows instead of duplicating them.
import { isSlug, unstorable } from '../../../lib/text'
import type { PromptInput } from '../store'
import { DEFAULT_PROMPT_TYPE, previewOf, uuidV5 } from '../text'
import { type CsvRecord, parseCsv } from './csv-parse'
import { LIMITS } from './fields'
import { newReport, type FileReport, type Progress } from './report'
import type { ImportTarget } from './target'

const KNOWN_COLUMNS = ['act', 'prompt', 'for_devs', 'type', 'contributor']

export interface CsvImportOptions {
  file: string
  category?: string
  onProgress?: Progress
  now?: number
}

/** The line of a character inside a record's field. */
const lineWithin = (record: CsvRecord, field: number, index: number) =>
  record.fieldLines[field]! + (record.fields[field]!.slice(0, index).match(/\n/g)?.length ?? 0)

/** A one-line description: the prompt's first sentence, at most ~160 characters. */
function describe(content: string): string {
  const first = content.split(/(?<=[.!?])\s+/, 1)[0] ?? content
  return previewOf(first, 160)
}

export async function importPromptsCsv(target: ImportTarget, text: string, opts: CsvImportOptions): Promise<FileReport> {
  const { file } = opts
  const report = newReport(file, 'csv')
  const fail = (line: number | null, message: string) => report.errors.push({ file, line, message })
  const warn = (line: number | null, message: string) => report.warnings.push({ file, line, message })

  const { records, errors } = parseCsv(text)
  for (const e of errors) fail(e.line, e.message)
  const [header, ...rows] = records
  if (!header) {
    if (report.errors.length === 0) fail(1, 'the file is empty; expected a header row with act,prompt')
    return report
  }
  if (header.fields.some((f) => unstorable(f, { fromBytes: true }))) {
    fail(header.line, 'the header row contains NUL or bytes that are not valid UTF-8')
    return report
  }
  const columns = header.fields.map((f) => f.trim().toLowerCase())
  const col = (name: string) => columns.indexOf(name)
  const [act, prompt, forDevs, type] = [col('act'), col('prompt'), col('for_devs'), col('type')]
  if (act === -1 || prompt === -1) {
    fail(header.line, `the header must name the columns "act" and "prompt" (found: ${columns.join(', ') || 'nothing'})`)
    return report
  }
  for (const c of columns) if (!KNOWN_COLUMNS.includes(c)) warn(header.line, `unknown column "${c}" ignored`)

  const parsed: { line: number; input: PromptInput }[] = []
  const seen = new Map<string, number>()
  for (const row of rows) {
    if (row.fields.length === 1 && row.fields[0]!.trim() === '') continue // a blank line
    if (row.fields.length !== columns.length) {
      fail(row.line, `expected ${columns.length} fields, found ${row.fields.length}`)
      continue
    }
    // Any column: bytes that are not UTF-8 refuse the row; NUL only where it would be stored.
    let refused = false
    row.fields.forEach((value, k) => {
      const bad = unstorable(value, { nul: k === act || k === prompt, fromBytes: true })
      if (bad) fail(lineWithin(row, k, bad.index), `"${columns[k]}" ${bad.problem}`)
      refused ||= bad !== null
    })
    if (refused) continue
    const title = row.fields[act]!.trim()
    const content = row.fields[prompt]!.trim()
    if (title === '') fail(row.line, '"act" (the title) is empty')
    else if (title.length > LIMITS.title) fail(row.line, `"act" is longer than ${LIMITS.title} characters`)
    if (content === '') fail(row.line, '"prompt" (the content) is empty')
    else if (content.length > LIMITS.content) fail(row.line, `"prompt" is longer than ${LIMITS.content.toLocaleString('en-US')} characters`)
    if (title === '' || content === '' || title.length > LIMITS.title || content.length > LIMITS.content) continue

    const devFlag = forDevs === -1 ? '' : row.fields[forDevs]!.trim().toLowerCase()
    if (devFlag !== '' && devFlag !== 'true' && devFlag !== 'false')
      warn(row.line, `"for_devs" should be TRUE or FALSE (got "${devFlag}"); taken as FALSE`)
    const categoryId = opts.category ?? (devFlag === 'true' ? 'coding' : 'general')
    const id = uuidV5(`${categoryId}\n${title}`)
    const earlier = seen.get(id)
    if (earlier !== undefined) warn(row.line, `the title "${title}" already appears on line ${earlier}; this row replaces it`)
    seen.set(id, row.line)
    const promptType = type === -1 ? DEFAULT_PROMPT_TYPE : row.fields[type]!.trim().toLowerCase() || DEFAULT_PROMPT_TYPE
    if (!isSlug(promptType) || promptType.length > LIMITS.type) {
      fail(row.line, `"type" must be a word such as TEXT, STRUCTURED or IMAGE (got "${row.fields[type]!.slice(0, 40)}")`)
      continue
    }
    parsed.push({
      line: row.line,
      input: { id, title, description: describe(content), categoryId, subcategoryId: null, tags: [], type: promptType, content },
    })
  }
  if (report.errors.length > 0) return report

  // A later row with the same title replaces the earlier one.
  const latest = new Map(parsed.map((p) => [p.input.id, p]))
  const now = opts.now ?? Date.now()
  const inputs = [...latest.values()].map((p) => p.input)
  const bumped = await target.transaction(async (tx) => {
    let changed = false
    for (const categoryId of new Set(inputs.map((p) => p.categoryId)))
      changed = (await target.catalogue.ensureCategory(categoryId, now, tx)) || changed
    const progress = (done: number) => done < inputs.length && opts.onProgress?.(done, inputs.length)
    for (const outcome of await target.catalogue.upsertPrompts(inputs, now, tx, progress)) report[outcome]++
    opts.onProgress?.(inputs.length, inputs.length)
    if (!changed && report.created + report.updated === 0) return false
    await target.catalogue.bumpRevision(tx)
    return true
  })
  if (bumped) await target.committed()
  return report
}
