// The widely shared prompts.csv layout: `act,prompt` and optionally `for_devs,type,contributor`,
// plus the columns `promptlib export --format csv` writes (`id`, `description`, `category`,
// `subcategory`, `tags`, `created_at`, `updated_at`). Read piece by piece, row by row, into the
// file's one transaction: a bad row is refused alone; a wrong header or a quote that never closes
// refuses the file. act → title, prompt → content (trimmed, unless the file is an export: it has
// an `id` column and keeps them exactly); the control characters of prompts.chat's multi-file
// skills stay; NUL or bytes that are not UTF-8 refuse the row, naming its line and field. Rows
// land in their `category`, else --category, else `coding` when for_devs is TRUE, else `general`
// (created when missing). A row's id is its `id`, else a UUID v5 of category + title, so
// re-importing the file updates rows instead of duplicating them.
import { isBlank, isSlug, longerThan, normaliseTags, unstorable, UUID } from '../../../lib/text'
import type { PromptInput } from '../store'
import { DEFAULT_PROMPT_TYPE, previewOf, uuidV5 } from '../text'
import { CsvParser, type CsvRecord, isCsvError } from './csv-parse'
import { LIMITS, tagSlug, timestampOf } from './fields'
import { type FileImportOptions, FileRefused, importFile } from './file'
import { addError, addWarning, type FileReport, newReport } from './report'
import { type ByteSource, openForImport } from './source'
import type { ImportTarget } from './target'
import { UuidSet } from './uuid-set'
import { completeSequences, decodeUtf8 } from './utf8'

/** prompts.chat's columns, then those promptlib's export adds. */
export const CSV_COLUMNS = [
  'act',
  'prompt',
  'for_devs',
  'type',
  'contributor',
  'id',
  'description',
  'category',
  'subcategory',
  'tags',
  'created_at',
  'updated_at',
]

export interface CsvImportOptions extends FileImportOptions {
  /** the file's name in the report */
  file: string
  source?: string
  category?: string
}

/** The line of a character inside a record's field. */
const lineWithin = (record: CsvRecord, field: number, index: number) =>
  record.fieldLines[field]! + (record.fields[field]!.slice(0, index).match(/\n/g)?.length ?? 0)

/** A one-line description: the prompt's first sentence, at most ~160 characters. */
function describe(content: string): string {
  const first = content.split(/(?<=[.!?])\s+/, 1)[0] ?? content
  return previewOf(first, 160)
}

/** A timestamp column: empty → undefined, else the time or what is wrong with it. */
const timestamp = (value: string): number | string | undefined => (value.trim() === '' ? undefined : timestampOf(value.trim()))

export async function importPromptsCsv(target: ImportTarget, path: string, opts: CsvImportOptions): Promise<FileReport> {
  const report = newReport(opts.file, 'csv', opts.source)
  const source = await openForImport(path, report)
  if (!source) return report
  try {
    return await importRows(target, source, report, opts)
  } finally {
    await source.close()
  }
}

async function importRows(target: ImportTarget, source: ByteSource, report: FileReport, opts: CsvImportOptions): Promise<FileReport> {
  const fail = (line: number | null, message: string) => addError(report, line, message)
  const warn = (line: number | null, message: string) => addWarning(report, line, message)
  const seen = new UuidSet()
  const ensured = new Set<string>()
  /** subcategories known per category (a row's `subcategory` must exist) */
  const outlines = new Map<string, Set<string>>()
  let header: { columns: string[]; col: (name: string) => number; exact: boolean } | null = null
  let records = 0
  let bytes = 0

  return importFile(target, report, opts, async (w) => {
    const row = async (record: CsvRecord) => {
      if (!header) {
        if (record.fields.some((f) => unstorable(f, { fromBytes: true })))
          throw new FileRefused(record.line, 'the header row contains NUL or bytes that are not valid UTF-8')
        const columns = record.fields.map((f) => f.trim().toLowerCase())
        const col = (name: string) => columns.indexOf(name)
        if (col('act') === -1 || col('prompt') === -1)
          throw new FileRefused(record.line, `the header must name the columns "act" and "prompt" (found: ${columns.join(', ') || 'nothing'})`)
        // A column named twice: which one holds the value cannot be known (only the first would be read).
        const twice = columns.findIndex((c, k) => CSV_COLUMNS.includes(c) && col(c) !== k)
        if (twice !== -1)
          throw new FileRefused(
            record.line,
            `the header names the column "${columns[twice]}" twice (columns ${col(columns[twice]!) + 1} and ${twice + 1})`,
          )
        for (const c of columns) if (!CSV_COLUMNS.includes(c)) warn(record.line, `unknown column "${c}" ignored`)
        header = { columns, col, exact: col('id') !== -1 }
        return
      }
      const { columns, col, exact } = header
      if (record.fields.length === 1 && record.fields[0]!.trim() === '') return // a blank line
      records++
      opts.onProgress?.({ records, bytes, totalBytes: report.bytes })
      const problems: [number, string][] = []
      const refused = () => {
        report.failed++
        for (const [line, message] of problems) fail(line, message)
      }
      if (record.fields.length !== columns.length) {
        problems.push([record.line, `expected ${columns.length} fields, found ${record.fields.length}`])
        return refused()
      }
      const field = (name: string) => (col(name) === -1 ? '' : record.fields[col(name)]!)
      // Any column: bytes that are not UTF-8 refuse the row; NUL only where it would be stored.
      record.fields.forEach((value, k) => {
        const stored = ['act', 'prompt', 'description'].includes(columns[k]!)
        const bad = unstorable(value, { nul: stored, fromBytes: true })
        if (bad) problems.push([lineWithin(record, k, bad.index), `"${columns[k]}" ${bad.problem}`])
      })
      if (problems.length > 0) return refused()
      const title = exact ? field('act') : field('act').trim()
      const content = exact ? field('prompt') : field('prompt').trim()
      if (isBlank(title)) problems.push([record.line, '"act" (the title) is empty'])
      else if (longerThan(title, LIMITS.title)) problems.push([record.line, `"act" is longer than ${LIMITS.title} characters`])
      if (isBlank(content)) problems.push([record.line, '"prompt" (the content) is empty'])
      else if (longerThan(content, LIMITS.content))
        problems.push([record.line, `"prompt" is longer than ${LIMITS.content.toLocaleString('en-US')} characters`])
      const devFlag = field('for_devs').trim().toLowerCase()
      if (devFlag !== '' && devFlag !== 'true' && devFlag !== 'false')
        warn(record.line, `"for_devs" should be TRUE or FALSE (got "${devFlag}"); taken as FALSE`)
      const categoryColumn = field('category').trim()
      // An export's `category` column wins over --category (docs/catalogue-format.md), which wins over for_devs.
      const categoryId = categoryColumn || opts.category || (devFlag === 'true' ? 'coding' : 'general')
      if (!isSlug(categoryId))
        problems.push([record.line, `"category" must be a slug: lowercase letters, digits and single hyphens (got "${categoryId}")`])
      const subcategoryId = field('subcategory').trim() || null
      if (subcategoryId !== null && !isSlug(subcategoryId)) problems.push([record.line, `"subcategory" must be a slug (got "${subcategoryId}")`])
      const type = field('type').trim().toLowerCase() || DEFAULT_PROMPT_TYPE
      if (!isSlug(type) || type.length > LIMITS.type)
        problems.push([record.line, `"type" must be a word such as TEXT, STRUCTURED or IMAGE (got "${type.slice(0, 40)}")`])
      const idColumn = field('id').trim().toLowerCase()
      if (idColumn !== '' && !UUID.test(idColumn)) problems.push([record.line, '"id" must be a UUID such as 3f1c2b4e-8d7a-4c1e-9b2f-0a1b2c3d4e5f'])
      const createdAt = timestamp(field('created_at'))
      const updatedAt = timestamp(field('updated_at'))
      for (const [name, value] of [
        ['created_at', createdAt],
        ['updated_at', updatedAt],
      ] as const)
        if (typeof value === 'string') problems.push([record.line, `"${name}" ${value}`])
      const description = col('description') === -1 ? describe(content) : field('description')
      if (longerThan(description, LIMITS.description)) problems.push([record.line, `"description" is longer than ${LIMITS.description} characters`])
      const tags = normaliseTags(field('tags').split(','), tagSlug)
      if (tags.length > LIMITS.tags) warn(record.line, `more than ${LIMITS.tags} tags; the first ${LIMITS.tags} kept`)
      if (problems.length > 0) return refused()

      if (!ensured.has(categoryId)) {
        await w.ensureCategory(categoryId)
        ensured.add(categoryId)
        outlines.set(categoryId, (await target.catalogue.categoryOutline([categoryId], w.tx)).get(categoryId) ?? new Set())
      }
      if (subcategoryId !== null && !outlines.get(categoryId)!.has(subcategoryId)) {
        problems.push([record.line, `category "${categoryId}" has no subcategory "${subcategoryId}" (import the catalogue's categories first)`])
        return refused()
      }
      const id = idColumn || uuidV5(`${categoryId}\n${title}`)
      const earlier = seen.add(id, record.line)
      if (earlier !== null) {
        warn(
          record.line,
          idColumn
            ? `the id ${id} already appears on line ${earlier}; this row replaces it`
            : `the title "${title}" already appears on line ${earlier}; this row replaces it`,
        )
      }
      const input: PromptInput = {
        id,
        title,
        description,
        categoryId,
        subcategoryId,
        tags: tags.slice(0, LIMITS.tags),
        type,
        content,
        // a time that is not one refused the row above
        createdAt: typeof createdAt === 'number' ? createdAt : undefined,
        updatedAt: typeof updatedAt === 'number' ? updatedAt : undefined,
      }
      await w.prompt(input)
    }

    const parser = new CsvParser()
    const feed = async (text: string, last: boolean) => {
      for (const item of parser.push(text, last)) {
        if (!isCsvError(item)) await row(item)
        else if (item.fatal) throw new FileRefused(item.line, item.message)
        else {
          report.failed++
          fail(item.line, item.message)
        }
      }
    }
    // Bytes are decoded piece by piece; a character cut between two pieces waits for the next.
    let carry = new Uint8Array(0)
    for (let piece = await source.next(); piece !== null; piece = await source.next()) {
      bytes += piece.length
      const joined = carry.length === 0 ? piece : concat(carry, piece)
      const whole = completeSequences(joined)
      carry = joined.slice(whole)
      await feed(decodeUtf8(joined.subarray(0, whole)), false)
    }
    await feed(decodeUtf8(carry), true)
    if (!header) throw new FileRefused(1, 'the file is empty; expected a header row with act,prompt')
  })
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
