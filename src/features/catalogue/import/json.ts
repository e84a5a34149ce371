// The promptlib catalogue format (docs/catalogue-format.md): one JSON object with `format`,
// `version`, and optional `categories`, `prompts` and `skills` arrays. The whole file is one
// transaction: any error, and nothing is written. A prompt's title, description and content and a
// skill's description and instructions are kept exactly (fields.ts, `exact`).
import type { Tx } from '../../../db/storage'
import { UUID } from '../../../lib/text'
import type { CategoryInput, PromptInput, SubcategoryInput } from '../store'
import { isRecord, LIMITS, RecordReader, RESERVED_SKILL_NAMES } from './fields'
import { findJsonSyntaxError } from './json-syntax'
import { newReport, type FileReport, type Progress } from './report'
import { BATCH, type ImportTarget, type SkillInput } from './target'
import { invalidBytes, lineAndColumn } from './utf8'

export const CATALOGUE_FORMAT = 'promptlib-catalogue'
export const CATALOGUE_VERSION = 1

const SECTIONS = ['categories', 'prompts', 'skills'] as const
type Section = (typeof SECTIONS)[number]

interface ParsedCategory extends CategoryInput {
  subcategories: SubcategoryInput[]
}

export interface JsonImportOptions {
  file: string
  /** the file's text, to report line numbers (absent for the embedded demo catalogue) */
  text?: string
  onProgress?: Progress
  now?: number
  /** join this transaction (the demo loader's) instead of running one of its own */
  tx?: Tx
}

/** A catalogue file's text (from readUtf8File: bytes that were not UTF-8 are lone surrogates in it). */
export async function importCatalogueText(target: ImportTarget, text: string, opts: Omit<JsonImportOptions, 'text'>): Promise<FileReport> {
  const report = newReport(opts.file, 'json')
  const fail = (line: number | null, message: string) => void report.errors.push({ file: opts.file, line, message })
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  // Before parsing, such bytes can only be located by line and column: the file is refused.
  const bytes = invalidBytes(json)
  for (const { line, column } of bytes) fail(line, `column ${column}: bytes that are not valid UTF-8 (the file must be UTF-8)`)
  if (bytes.length > 0) return report
  let data: unknown
  try {
    data = JSON.parse(json)
  } catch (error) {
    const syntax = findJsonSyntaxError(json)
    if (!syntax) fail(null, `not valid JSON: ${(error as Error).message}`)
    else {
      const { line, column } = lineAndColumn(json, syntax.index)
      fail(line, `not valid JSON: column ${column}: ${syntax.message}`)
    }
    return report
  }
  return importCatalogueData(target, data, { ...opts, text })
}

export async function importCatalogueData(target: ImportTarget, data: unknown, opts: JsonImportOptions): Promise<FileReport> {
  const { file } = opts
  const report = newReport(file, 'json')
  let lines: Map<string, number> | null = null
  const lineOf = (section: Section, index: number) => {
    if (opts.text === undefined) return null
    lines ??= locateRecords(opts.text)
    return lines.get(`${section}[${index}]`) ?? null
  }
  const fail = (line: number | null, message: string) => report.errors.push({ file, line, message })
  const warn = (line: number | null, message: string) => report.warnings.push({ file, line, message })

  if (!isRecord(data) || data.format !== CATALOGUE_FORMAT || data.version !== CATALOGUE_VERSION) {
    fail(1, `not a promptlib catalogue: expected {"format": "${CATALOGUE_FORMAT}", "version": ${CATALOGUE_VERSION}, ...}`)
    return report
  }
  for (const key of Object.keys(data)) {
    if (!['format', 'version', ...SECTIONS].includes(key)) warn(1, `unknown top-level field "${key}" ignored`)
  }
  const section = (name: Section): unknown[] => {
    const value = data[name]
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) {
      fail(1, `"${name}" must be an array`)
      return []
    }
    return value
  }
  // Reads every record of a section with `parse`, reporting its problems at the record's line.
  function records<T>(
    name: Section,
    known: string[],
    parse: (r: RecordReader, index: number) => T | null,
  ): { value: T; line: () => number | null }[] {
    const out: { value: T; line: () => number | null }[] = []
    section(name).forEach((raw, index) => {
      const line = () => lineOf(name, index)
      if (!isRecord(raw)) return void fail(line(), `${name}[${index}] must be an object`)
      const reader = new RecordReader(raw, known)
      reader.refuseLoneSurrogates()
      const value = parse(reader, index)
      for (const message of reader.warnings) warn(line(), `${name}[${index}]: ${message}`)
      for (const message of reader.errors) fail(line(), `${name}[${index}]: ${message}`)
      if (reader.errors.length === 0 && value !== null) out.push({ value, line })
    })
    return out
  }

  const categories = records<ParsedCategory>(
    'categories',
    ['id', 'name', 'description', 'icon', 'order', 'subcategories', 'created_at', 'updated_at'],
    (r, index) => {
      const subs: SubcategoryInput[] = []
      const rawSubs = r.record.subcategories
      if (rawSubs !== undefined && !Array.isArray(rawSubs)) r.errors.push('"subcategories" must be an array')
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
    },
  )

  const prompts = records<PromptInput>(
    'prompts',
    ['id', 'title', 'description', 'category', 'subcategory', 'tags', 'type', 'content', 'created_at', 'updated_at'],
    (r) => {
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
    },
  )

  const skills = records<SkillInput>(
    'skills',
    ['id', 'name', 'description', 'category', 'tags', 'license', 'compatibility', 'metadata', 'allowed_tools', 'files', 'instructions'],
    (r) => {
      const name = r.slug('name', { required: true })
      const id = r.slug('id') ?? name
      if (name !== null && id !== name) r.errors.push(`"id" must equal "name" (the skill's name is its id)`)
      if (name !== null && RESERVED_SKILL_NAMES.includes(name)) r.errors.push(`the name "${name}" is reserved (/api/skills/${name} is an endpoint)`)
      const description = r.text('description', { required: true, max: 100_000, exact: true })
      if (description !== null && description.length > LIMITS.skillDescription)
        r.warnings.push(`"description" is longer than ${LIMITS.skillDescription} characters`)
      const skill = {
        category: r.slug('category') ?? 'general',
        tags: r.tags('tags'),
        license: r.text('license', { max: 1000 }),
        compatibility: r.text('compatibility', { max: 1000 }),
        metadata: r.stringMap('metadata'),
        allowedTools: r.strings('allowed_tools'),
        files: r.strings('files'),
        instructions: r.text('instructions', { required: true, max: LIMITS.content, exact: true }),
      }
      if (name === null || description === null || skill.instructions === null) return null
      return { ...skill, id: name, name, description, instructions: skill.instructions }
    },
  )

  // Cross-record rules: unique ids within the file; prompts name a known category/subcategory.
  const dupes = <T>(items: { value: T; line: () => number | null }[], key: (v: T) => string, what: string) => {
    const seen = new Set<string>()
    for (const item of items) {
      const k = key(item.value)
      if (seen.has(k)) fail(item.line(), `duplicate ${what} "${k}" in this file`)
      seen.add(k)
    }
  }
  dupes(categories, (c) => c.id, 'category id')
  dupes(prompts, (p) => p.id, 'prompt id')
  dupes(skills, (s) => s.id, 'skill name')
  const fileSubs = new Map(categories.map((c) => [c.value.id, new Set(c.value.subcategories.map((s) => s.id))]))
  const stored = await target.catalogue.categoryOutline([...new Set(prompts.map((p) => p.value.categoryId))], opts.tx)
  for (const { value, line } of prompts) {
    if (!fileSubs.has(value.categoryId) && !stored.has(value.categoryId)) {
      fail(line(), `prompt ${value.id}: unknown category "${value.categoryId}" (define it in "categories")`)
    } else if (
      value.subcategoryId &&
      !fileSubs.get(value.categoryId)?.has(value.subcategoryId) &&
      !stored.get(value.categoryId)?.has(value.subcategoryId)
    ) {
      fail(line(), `prompt ${value.id}: category "${value.categoryId}" has no subcategory "${value.subcategoryId}"`)
    }
  }
  if (report.errors.length > 0) return report

  const now = opts.now ?? Date.now()
  const outcome = (o: 'created' | 'updated' | 'unchanged') => void report[o]++
  let bumped = false
  try {
    await target.transaction(async (tx) => {
      for (const { value } of categories) {
        outcome(await target.catalogue.upsertCategory(value, now, tx))
        for (const sub of value.subcategories) await target.catalogue.upsertSubcategory(value.id, sub, tx)
      }
      const total = prompts.length + skills.length
      const progress = (done: number) => done < total && opts.onProgress?.(done, total)
      for (const o of await target.catalogue.upsertPrompts(
        prompts.map((p) => p.value),
        now,
        tx,
        progress,
      ))
        outcome(o)
      let done = prompts.length
      for (let i = 0; i < skills.length; i += BATCH) {
        const batch = skills.slice(i, i + BATCH).map((s) => s.value)
        for (const o of await target.skills.upsertSkills(batch, now, tx)) outcome(o)
        done += batch.length
      }
      opts.onProgress?.(done, total)
      if (report.created + report.updated > 0) {
        await target.catalogue.bumpRevision(tx)
        bumped = true
      }
    }, opts.tx)
  } catch (error) {
    // A constraint the checks above did not foresee (another process changed the catalogue
    // meanwhile): the transaction rolled back; report it instead of crashing the import.
    if (!(error instanceof Error) || !/constraint/i.test(error.message)) throw error
    report.created = report.updated = report.unchanged = 0
    fail(null, `the import was rolled back: ${error.message}`)
    return report
  }
  if (bumped && !opts.tx) await target.committed()
  return report
}

/**
 * Finds the line where each element of the top-level `categories`, `prompts` and `skills`
 * arrays starts ("prompts[3]" → 57). Only runs when a file has problems to report.
 */
export function locateRecords(text: string): Map<string, number> {
  const found = new Map<string, number>()
  let line = 1
  let depth = 0
  let key: string | null = null // the last key read at depth 1
  let arrayKey: string | null = null // the section whose array we are in (depth 2)
  let index = -1
  let expectValue = false // at depth 2: the next token starts an element
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === '\n') {
      line++
      continue
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') continue
    if (depth === 2 && arrayKey !== null && expectValue && ch !== ']') {
      found.set(`${arrayKey}[${++index}]`, line)
      expectValue = false
    }
    if (ch === '"') {
      const start = i + 1
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\') i++
        else if (text[i] === '\n') line++
      }
      if (depth === 1) key = text.slice(start, i)
      continue
    }
    if (ch === '{' || ch === '[') {
      depth++
      if (depth === 2 && ch === '[' && key !== null && (SECTIONS as readonly string[]).includes(key)) {
        arrayKey = key
        index = -1
        expectValue = true
      }
    } else if (ch === '}' || ch === ']') {
      depth--
      if (depth === 1) arrayKey = null
    } else if (ch === ',' && depth === 2 && arrayKey !== null) {
      expectValue = true
    }
  }
  return found
}
