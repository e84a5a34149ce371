// The promptlib catalogue format (docs/catalogue-format.md): one JSON object with `format`,
// `version`, and optional `categories`, `prompts` and `skills` arrays. Read as a stream
// (json-stream.ts), record by record, into the file's one transaction: a record with an error is
// refused alone; a file that is not JSON or not a catalogue is refused whole. A prompt's title,
// description and content and a skill's description and instructions are kept exactly
// (fields.ts, `exact`).
import { longerThan, UUID } from '../../../lib/text'
import type { CategoryInput, PromptInput, SubcategoryInput } from '../store'
import { isRecord, LIMITS, RecordReader, RESERVED_SKILL_NAMES } from './fields'
import { type FileImportOptions, FileRefused, type FileWrites, importFile } from './file'
import { JsonSyntaxError, readCatalogue, type Section, SECTIONS, UnreadableField } from './json-stream'
import { addError, addWarning, type FileReport, newReport } from './report'
import { type ByteSource, openForImport } from './source'
import type { ImportTarget, SkillInput } from './target'
import { UuidSet } from './uuid-set'
import { decodeUtf8 } from './utf8'

export const CATALOGUE_FORMAT = 'promptlib-catalogue'
export const CATALOGUE_VERSION = 1

export interface JsonImportOptions extends FileImportOptions {
  /** the file's name in the report */
  file: string
  /** the path given to the import (a file, or the folder it came from) */
  source?: string
}

/** What the importer reads: the stream of a file (json-stream.ts), or the records of parsed data (no lines). */
type ImportEvent =
  | { kind: 'field'; key: string; value: unknown; line: number | null }
  | { kind: 'record'; section: Section; index: number; line: number | null; value: unknown; start?: number; end?: number }
  | { kind: 'unreadable'; section: Section; index: number; line: number; column: number }

const NOT_A_CATALOGUE = `not a promptlib catalogue: expected {"format": "${CATALOGUE_FORMAT}", "version": ${CATALOGUE_VERSION}, ...}`

/** A catalogue file, read piece by piece. */
export async function importCatalogueFile(target: ImportTarget, path: string, opts: JsonImportOptions): Promise<FileReport> {
  const report = newReport(opts.file, 'json', opts.source)
  const source = await openForImport(path, report)
  if (!source) return report
  try {
    return await importCatalogueEvents(target, readCatalogue(source), report, opts, source)
  } finally {
    await source.close()
  }
}

/** A catalogue already parsed (the built-in demo's), as one file; problems carry no line. */
export async function importCatalogueData(target: ImportTarget, data: unknown, opts: JsonImportOptions): Promise<FileReport> {
  return importCatalogueEvents(target, eventsOf(data), newReport(opts.file, 'json', opts.source), opts, null)
}

function* eventsOf(data: unknown): Generator<ImportEvent> {
  if (!isRecord(data)) return
  for (const [key, value] of Object.entries(data)) {
    const section = (SECTIONS as readonly string[]).includes(key) ? (key as Section) : null
    if (section === null || !Array.isArray(value)) yield { kind: 'field', key, value, line: null }
    else for (const [index, record] of value.entries()) yield { kind: 'record', section, index, line: null, value: record }
  }
}

async function importCatalogueEvents(
  target: ImportTarget,
  events: AsyncIterable<ImportEvent> | Iterable<ImportEvent>,
  report: FileReport,
  opts: JsonImportOptions,
  source: ByteSource | null,
): Promise<FileReport> {
  let format: unknown
  let version: unknown
  let records = 0
  /** categories of this file, with their subcategories */
  const fileCategories = new Map<string, Set<string>>()
  /** categories already stored (null: not stored), asked once each */
  const stored = new Map<string, Set<string> | null>()
  const promptIds = new UuidSet()
  const skillNames = new Set<string>()
  /** categoryOf's answers, until the file defines another category (a large file asks for every prompt: bench-data.ts) */
  const merged = new Map<string, Set<string> | null>()
  /** prompts whose category (or subcategory) was not known when they were read: tried again at the end */
  const deferred: { index: number; line: number | null; start?: number; end?: number; value?: unknown }[] = []

  const refuseRecord = (section: Section, index: number, line: number | null, messages: string[]) => {
    report.failed++
    for (const message of messages) addError(report, line, `${section}[${index}]: ${message}`)
  }
  /** Reads a record with `parse`; its warnings are reported (unless `warned` already), its errors refuse it (null). */
  const read = <T>(
    section: Section,
    index: number,
    line: number | null,
    raw: unknown,
    known: string[],
    parse: (r: RecordReader) => T | null,
    warned = false,
  ) => {
    if (!isRecord(raw)) {
      refuseRecord(section, index, line, ['must be an object'])
      return null
    }
    const reader = new RecordReader(raw, known)
    reader.refuseLoneSurrogates()
    const value = parse(reader)
    if (!warned) for (const message of reader.warnings) addWarning(report, line, `${section}[${index}]: ${message}`)
    if (reader.errors.length > 0 || value === null) {
      refuseRecord(section, index, line, reader.errors.length > 0 ? reader.errors : ['cannot be read'])
      return null
    }
    return value
  }

  return importFile(target, report, opts, async (w: FileWrites) => {
    /** The subcategories of a category of this file or of the catalogue, or null when it exists in neither. */
    const categoryOf = async (id: string): Promise<Set<string> | null> => {
      const known = merged.get(id)
      if (known !== undefined) return known
      if (!stored.has(id)) stored.set(id, (await target.catalogue.categoryOutline([id], w.tx)).get(id) ?? null)
      const inFile = fileCategories.get(id)
      const inStore = stored.get(id) ?? null
      const subs = !inFile ? inStore : inStore ? new Set([...inFile, ...inStore]) : inFile
      merged.set(id, subs)
      return subs
    }

    /** A prompt: written, refused, or (`last` false, its category unknown so far) deferred. */
    const prompt = async (raw: unknown, index: number, line: number | null, last: boolean): Promise<'deferred' | 'done'> => {
      // A prompt read again at the end (its category came later) had its warnings reported the first time.
      const input = read('prompts', index, line, raw, PROMPT_FIELDS, parsePrompt, last)
      if (input === null) return 'done'
      const subs = await categoryOf(input.categoryId)
      if (subs === null || (input.subcategoryId !== null && !subs.has(input.subcategoryId))) {
        if (!last) return 'deferred'
        refuseRecord('prompts', index, line, [
          subs === null
            ? `prompt ${input.id}: unknown category "${input.categoryId}" (define it in "categories")`
            : `prompt ${input.id}: category "${input.categoryId}" has no subcategory "${input.subcategoryId}"`,
        ])
        return 'done'
      }
      await w.prompt(input)
      return 'done'
    }

    const handle = async (event: ImportEvent) => {
      if (event.kind === 'field') {
        const { key, value, line } = event
        if (key === 'format' || key === 'version') {
          if (key === 'format') format = value
          else version = value
          // A file that says it is something else is refused at once.
          if (value !== (key === 'format' ? CATALOGUE_FORMAT : CATALOGUE_VERSION)) throw new FileRefused(line ?? 1, NOT_A_CATALOGUE)
        } else if ((SECTIONS as readonly string[]).includes(key)) {
          if (value !== null) throw new FileRefused(line ?? 1, `"${key}" must be an array`)
        } else addWarning(report, line ?? 1, `unknown top-level field "${key}" ignored`)
        return
      }
      records++
      if (event.kind === 'record' && event.end !== undefined) opts.onProgress?.({ records, bytes: event.end, totalBytes: report.bytes })
      const { section, index, line } = event
      if (event.kind === 'unreadable') {
        report.failed++
        addError(report, line, `${section}[${index}]: column ${event.column}: bytes that are not valid UTF-8 (the file must be UTF-8)`)
        return
      }
      if (section === 'categories') {
        const category = read(section, index, line, event.value, CATEGORY_FIELDS, parseCategory(index))
        if (category === null) return
        if (fileCategories.has(category.id)) return refuseRecord(section, index, line, [`duplicate category id "${category.id}" in this file`])
        const { subcategories, ...input } = category
        await w.category(input, subcategories)
        fileCategories.set(category.id, new Set(subcategories.map((s) => s.id)))
        merged.clear()
      } else if (section === 'prompts') {
        const id = isRecord(event.value) && typeof event.value.id === 'string' && UUID.test(event.value.id) ? event.value.id.toLowerCase() : null
        if (id !== null) {
          const earlier = promptIds.add(id, line ?? 1)
          if (earlier !== null) {
            const where = line === null ? '' : ` (first on line ${earlier})`
            return refuseRecord(section, index, line, [`duplicate prompt id "${id}" in this file${where}`])
          }
        }
        if ((await prompt(event.value, index, line, false)) === 'deferred') {
          deferred.push(
            source && event.start !== undefined ? { index, line, start: event.start, end: event.end } : { index, line, value: event.value },
          )
        }
      } else {
        const skill = read(section, index, line, event.value, SKILL_FIELDS, parseSkill)
        if (skill === null) return
        if (skillNames.has(skill.name)) return refuseRecord(section, index, line, [`duplicate skill name "${skill.name}" in this file`])
        skillNames.add(skill.name)
        await w.skill(skill)
      }
    }

    try {
      for await (const event of events) await handle(event)
    } catch (error) {
      if (error instanceof JsonSyntaxError || error instanceof UnreadableField) throw new FileRefused(error.line, error.message)
      throw error
    }
    if (format !== CATALOGUE_FORMAT || version !== CATALOGUE_VERSION) throw new FileRefused(1, NOT_A_CATALOGUE)
    // Prompts that came before their category: every category of the file is known now.
    await w.flush()
    for (const d of deferred) {
      const value = d.value !== undefined ? d.value : JSON.parse(decodeUtf8(await source!.range(d.start!, d.end!)))
      await prompt(value, d.index, d.line, true)
    }
  })
}

const CATEGORY_FIELDS = ['id', 'name', 'description', 'icon', 'order', 'subcategories', 'created_at', 'updated_at']
const PROMPT_FIELDS = ['id', 'title', 'description', 'category', 'subcategory', 'tags', 'type', 'content', 'created_at', 'updated_at']
const SKILL_FIELDS = [
  'id',
  'name',
  'description',
  'category',
  'tags',
  'license',
  'compatibility',
  'metadata',
  'allowed_tools',
  'files',
  'instructions',
  'created_at',
  'updated_at',
]

const parseCategory =
  (index: number) =>
  (r: RecordReader): (CategoryInput & { subcategories: SubcategoryInput[] }) | null => {
    const subs: SubcategoryInput[] = []
    const rawSubs = r.record.subcategories
    if (rawSubs !== undefined && rawSubs !== null && !Array.isArray(rawSubs)) r.errors.push('"subcategories" must be an array')
    for (const [i, raw] of (Array.isArray(rawSubs) ? rawSubs : []).entries()) {
      if (!isRecord(raw)) {
        r.errors.push(`subcategories[${i}] must be an object`)
        continue
      }
      const s = new RecordReader(raw, ['id', 'name', 'description', 'order'])
      const sub = {
        id: s.slug('id', { required: true }),
        name: s.text('name', { required: true, max: LIMITS.name }),
        description: s.text('description', { max: LIMITS.description, fallback: '' }),
        order: s.integer('order', i + 1),
      }
      r.errors.push(...s.errors.map((m) => `subcategories[${i}]: ${m}`))
      r.warnings.push(...s.warnings.map((m) => `subcategories[${i}]: ${m}`))
      if (sub.id && subs.some((x) => x.id === sub.id)) r.errors.push(`subcategories[${i}]: duplicate id "${sub.id}"`)
      if (sub.id && sub.name !== null) subs.push({ id: sub.id, name: sub.name, description: sub.description ?? '', order: sub.order })
    }
    const id = r.slug('id', { required: true })
    const name = r.text('name', { required: true, max: LIMITS.name })
    const description = r.text('description', { max: LIMITS.description, fallback: '' })
    const icon = r.text('icon', { max: LIMITS.icon, fallback: '' })
    const order = r.integer('order', index + 1)
    const createdAt = r.timestamp('created_at')
    const updatedAt = r.timestamp('updated_at')
    if (id === null || name === null) return null
    return { id, name, description: description ?? '', icon: icon ?? '', order, createdAt, updatedAt, subcategories: subs }
  }

function parsePrompt(r: RecordReader): PromptInput | null {
  const rawId = r.record.id
  const id = typeof rawId === 'string' && UUID.test(rawId) ? rawId.toLowerCase() : null
  if (id === null) r.errors.push('"id" must be a UUID such as 3f1c2b4e-8d7a-4c1e-9b2f-0a1b2c3d4e5f')
  const title = r.text('title', { required: true, max: LIMITS.title, exact: true })
  const description = r.text('description', { max: LIMITS.description, fallback: '', exact: true })
  const categoryId = r.slug('category', { required: true })
  const subcategoryId = r.slug('subcategory')
  const tags = r.tags('tags')
  const type = r.promptType('type')
  const content = r.text('content', { required: true, max: LIMITS.content, exact: true })
  const createdAt = r.timestamp('created_at')
  const updatedAt = r.timestamp('updated_at')
  if (id === null || title === null || categoryId === null || content === null) return null
  return { id, title, description: description ?? '', categoryId, subcategoryId, tags, type, content, createdAt, updatedAt }
}

function parseSkill(r: RecordReader): SkillInput | null {
  const name = r.slug('name', { required: true })
  const id = r.slug('id') ?? name
  if (name !== null && id !== name) r.errors.push(`"id" must equal "name" (the skill's name is its id)`)
  if (name !== null && RESERVED_SKILL_NAMES.includes(name)) r.errors.push(`the name "${name}" is reserved (/api/skills/${name} is an endpoint)`)
  const description = r.text('description', { required: true, max: 100_000, exact: true })
  if (description !== null && longerThan(description, LIMITS.skillDescription))
    r.warnings.push(`"description" is longer than ${LIMITS.skillDescription} characters`)
  const skill = {
    category: r.slug('category') ?? 'general',
    tags: r.tags('tags'),
    license: r.text('license', { max: 1000 }),
    compatibility: r.text('compatibility', { max: 1000 }),
    metadata: r.stringMap('metadata'),
    allowedTools: r.strings('allowed_tools'),
    files: r.strings('files'),
    // Blank, as a SKILL.md with no body may be (and then its export): said, not refused.
    instructions: r.text('instructions', { required: true, blank: 'allowed', max: LIMITS.content, exact: true }),
    createdAt: r.timestamp('created_at'),
    updatedAt: r.timestamp('updated_at'),
  }
  if (skill.instructions?.trim() === '') r.warnings.push('"instructions" is empty')
  if (name === null || description === null || skill.instructions === null) return null
  return { ...skill, id: name, name, description, instructions: skill.instructions }
}
