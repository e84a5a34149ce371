// Agent Skills folders: a folder holding SKILL.md is one skill; a folder of such folders is many.
// SKILL.md starts with YAML front matter (parsed with the `yaml` package: block scalars occur)
// whose keys are name, description, license, compatibility, metadata, allowed-tools; the body is
// the instructions; the folder's other files are listed on the skill. Missing or malformed
// name/description is an error; rules that published skills bend are warnings. The description
// and the body are kept exactly (the body is everything after the closing --- line); NUL or bytes
// that are not UTF-8 refuse the skill with their line. Each SKILL.md is its own transaction.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import { parseDocument } from 'yaml'
import { cleanText, isSlug, longerThan, normaliseTags, unstorable } from '../../../lib/text'
import { isRecord, LIMITS, RecordReader, RESERVED_SKILL_NAMES } from './fields'
import { type FileImportOptions, importFile } from './file'
import { addError, addWarning, type FileReport, newReport } from './report'
import type { ImportTarget, SkillInput } from './target'
import { invalidBytes, readUtf8File } from './utf8'

export const SKILL_FILE = 'SKILL.md'
const KNOWN_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools']
const MAX_FILES = 1000

/**
 * The skill folders under `path`: itself when it holds SKILL.md, else its subfolders that do, a
 * symbolic link to a folder included (a folder of skills is often assembled from links).
 */
export function skillFolders(path: string): string[] {
  if (existsSync(join(path, SKILL_FILE))) return [path]
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.') && existsSync(join(path, e.name, SKILL_FILE)))
    .map((e) => join(path, e.name))
    .sort()
}

/** Every other file of the skill folder, relative, with forward slashes, hidden files skipped. */
function listFiles(folder: string, report: FileReport, file: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && full !== join(folder, SKILL_FILE)) out.push(relative(folder, full).split(sep).join('/'))
      if (out.length > MAX_FILES) return
    }
  }
  walk(folder)
  if (out.length > MAX_FILES) {
    addWarning(report, null, `more than ${MAX_FILES} files in the skill folder; the first ${MAX_FILES} listed`)
    return out.slice(0, MAX_FILES)
  }
  return out
}

/** `Read, Grep` or `Read Grep Bash(git diff:*)`: split on commas and spaces outside parentheses. */
export function splitAllowedTools(value: string): string[] {
  const tools: string[] = []
  let depth = 0
  let current = ''
  for (const ch of value) {
    if (ch === '(') depth++
    if (ch === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (current.trim()) tools.push(current.trim())
      current = ''
    } else current += ch
  }
  if (current.trim()) tools.push(current.trim())
  return tools
}

/**
 * One skill folder: its SKILL.md is one record (refused alone, so its file writes nothing) in a
 * transaction of its own.
 */
export async function importSkillFolder(
  target: ImportTarget,
  folder: string,
  opts: FileImportOptions & {
    category?: string
    source?: string
    /** the skills' names already read from the same path, with their folders: a name twice is refused the second time */
    namesSeen?: Map<string, string>
  } = {},
): Promise<FileReport> {
  const file = join(folder, SKILL_FILE)
  const report = newReport(file, 'skill', opts.source)
  const fail = (line: number | null, message: string) => addError(report, line, message)
  const warn = (line: number | null, message: string) => addWarning(report, line, message)
  const refused = () => {
    report.failed = 1
    return report
  }

  let text: string
  try {
    text = readUtf8File(file)
  } catch (error) {
    fail(null, `cannot read: ${(error as Error).message}`)
    return refused()
  }
  report.bytes = Buffer.byteLength(text)
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const bytes = invalidBytes(text)
  for (const { line, column } of bytes) fail(line, `column ${column}: bytes that are not valid UTF-8 (the file must be UTF-8)`)
  if (bytes.length > 0) return refused()
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) {
    fail(1, 'SKILL.md must start with YAML front matter between two "---" lines')
    return refused()
  }
  const doc = parseDocument(match[1]!, { prettyErrors: false, uniqueKeys: true })
  // The line of an offset in the front matter (which starts on line 2).
  const frontLine = (offset: number) => 2 + (match[1]!.slice(0, offset).match(/\n/g)?.length ?? 0)
  if (doc.errors.length > 0) {
    for (const e of doc.errors) fail(frontLine(e.pos[0]), `front matter is not valid YAML: ${e.message.split('\n')[0]}`)
    return refused()
  }
  let front: unknown
  try {
    front = doc.toJS()
  } catch (error) {
    // Aliases that expand beyond the yaml package's limit (a "billion laughs" document), …
    fail(2, `front matter cannot be read: ${(error as Error).message}`)
    return refused()
  }
  if (!isRecord(front)) {
    fail(2, 'the front matter must be a YAML mapping (key: value lines)')
    return refused()
  }
  // Line of a front-matter key, for messages (line 1 is the opening ---).
  const keyLine = (key: string) => {
    const i = match[1]!.split(/\r?\n/).findIndex((l) => l.startsWith(`${key}:`))
    return i === -1 ? 1 : i + 2
  }
  const r = new RecordReader(front, KNOWN_KEYS)
  r.refuseLoneSurrogates() // from YAML escapes ("\ud800"); bytes that are not UTF-8 were refused above
  for (const message of r.warnings) warn(1, message)
  const reported = r.warnings.length

  const name = front.name
  if (typeof name !== 'string' || name.trim() === '') fail(keyLine('name'), '"name" is required: the skill\'s kebab-case name')
  else if (!isSlug(name))
    fail(keyLine('name'), `"name" must be kebab-case (lowercase letters, digits, single hyphens), at most 64 characters (got "${name.slice(0, 80)}")`)
  else if (RESERVED_SKILL_NAMES.includes(name)) fail(keyLine('name'), `the name "${name}" is reserved (/api/skills/${name} is an endpoint)`)
  else if (name !== basename(folder))
    warn(keyLine('name'), `"name" (${name}) differs from the folder name (${basename(folder)}); the skill is stored as "${name}"`)

  const description = front.description
  const descriptionNul = typeof description === 'string' ? unstorable(description, { surrogates: false }) : null
  if (typeof description !== 'string' || description.trim() === '')
    fail(keyLine('description'), '"description" is required: what the skill does and when to use it')
  else if (descriptionNul) fail(keyLine('description'), `"description" ${descriptionNul.problem}`)
  else {
    if (longerThan(description, LIMITS.skillDescription))
      warn(keyLine('description'), `"description" is ${[...description].length} characters; the limit is ${LIMITS.skillDescription}`)
    if (/[<>]/.test(description))
      warn(keyLine('description'), '"description" contains angle brackets (< or >), which the Agent Skills rules do not allow')
  }
  const license = r.text('license', { max: 1000 })
  const compatibility = r.text('compatibility', { max: 1000 })
  if (compatibility && longerThan(compatibility, 500)) warn(keyLine('compatibility'), '"compatibility" is longer than 500 characters')
  const metadata = r.stringMap('metadata')
  const toolsRaw = front['allowed-tools']
  let allowedTools: string[] = []
  if (typeof toolsRaw === 'string') allowedTools = splitAllowedTools(toolsRaw)
  else if (Array.isArray(toolsRaw) && toolsRaw.every((t) => typeof t === 'string'))
    allowedTools = toolsRaw.map((t) => cleanText(t).trim()).filter(Boolean)
  else if (toolsRaw !== undefined && toolsRaw !== null)
    warn(keyLine('allowed-tools'), '"allowed-tools" must be a string or a list of strings; ignored')
  // The reader's messages start with the field they are about: "license" must be a string, …
  for (const m of r.errors) fail(keyLine(/^"([^".[]+)/.exec(m)?.[1] ?? ''), m)
  for (const m of r.warnings.slice(reported)) warn(1, m)
  const body = text.slice(match[0].length)
  const bodyLine = match[0].split('\n').length // the line after the closing ---
  const bodyNul = unstorable(body, { surrogates: false })
  if (bodyNul) fail(bodyLine + (body.slice(0, bodyNul.index).match(/\n/g)?.length ?? 0), `"instructions" ${bodyNul.problem}`)
  // As a JSON catalogue refuses a skill name given twice: the later folder would replace the earlier
  // one's skill on every import, and a re-import would never be unchanged.
  const first = typeof name === 'string' ? opts.namesSeen?.get(name) : undefined
  if (first !== undefined) fail(keyLine('name'), `duplicate skill name "${name}": ${first} has it too, and only the first is imported`)
  if (report.errors.length > 0) return refused()
  opts.namesSeen?.set(name as string, relative(opts.source ?? folder, folder) || folder)

  let category = opts.category ?? metadata?.category ?? 'general'
  if (!isSlug(category)) {
    warn(keyLine('metadata'), `metadata.category "${category}" is not a slug; using "general"`)
    category = 'general'
  }
  const tags = metadata?.tags ? normaliseTags(metadata.tags.split(/[,\s]+/)) : []
  if (body.trim() === '') warn(null, 'the instructions (the body after the front matter) are empty')

  let files: string[]
  try {
    files = listFiles(folder, report, file)
  } catch (error) {
    // A subfolder that cannot be listed: the skill's `files` would be wrong, so the skill is refused.
    fail(null, `cannot list the skill's files: ${(error as Error).message}`)
    return refused()
  }
  // metadata.category and metadata.tags are the skill's category and tags, kept in those fields
  // and written back there in a SKILL.md (MCP's resources): the rest is the skill's metadata. So a
  // SKILL.md read through MCP imports back to the same skill, whichever way the skill came in.
  const { category: _category, tags: _tags, ...otherMetadata } = metadata ?? {}
  const skill: SkillInput = {
    id: name as string,
    name: name as string,
    description: description as string,
    category,
    tags,
    license,
    compatibility,
    allowedTools,
    metadata: Object.keys(otherMetadata).length > 0 ? otherMetadata : null,
    files,
    instructions: body,
  }
  return importFile(target, report, opts, (w) => w.skill(skill))
}

export const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
