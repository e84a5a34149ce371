// The rules of the house (docs/architecture.md), checked on the source: a feature uses another
// only through its index.ts; only table definitions name another feature's tables (foreign
// keys); database drivers and raw SQL stay in db/ and the store adapters; services know no HTTP.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const SRC = join(import.meta.dir, '..', 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') || full.endsWith('.tsx') ? [full] : []
  })
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }))
const importsOf = (text: string) =>
  [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]!)

/** The feature a source file belongs to, or null. */
const featureOf = (path: string) => /^features\/([^/]+)\//.exec(path)?.[1] ?? null
const isTableDefinition = (path: string) => /\/schema(\.[a-z]+)?\.ts$/.test(path)
/** Storage adapters: a feature's store.<engine>.ts and search.<engine>.ts, and db/. */
// A store or search adapter, or a part of one (search-words.sqlite.ts).
const isAdapter = (path: string) => /\/(store|search)(-[a-z]+)?\.[a-z]+\.ts$/.test(path) || path.startsWith('db/')

describe('module boundaries', () => {
  test('a feature imports another feature only through its index.ts (table definitions may name tables for foreign keys)', () => {
    const offences: string[] = []
    for (const { path, text } of sources) {
      const own = featureOf(path)
      if (!own) continue
      for (const spec of importsOf(text)) {
        const target = /^\.\.\/([^/.]+)\/(.+)$/.exec(spec)
        if (!target || target[1] === own) continue
        const [, other, file] = target
        const intoSchema = /^schema(\.[a-z]+)?$/.test(file!)
        if (file === 'index' || (intoSchema && isTableDefinition(path))) continue
        offences.push(`${path} imports ${spec}`)
      }
      for (const spec of importsOf(text)) {
        if (/^\.\.\/\.\.\/features\//.test(spec)) offences.push(`${path} imports ${spec}`)
      }
    }
    expect(offences).toEqual([])
  })

  test('outside db/ and the store adapters nothing imports a database driver or writes SQL', () => {
    const offences: string[] = []
    for (const { path, text } of sources) {
      if (isAdapter(path) || isTableDefinition(path)) continue
      for (const spec of importsOf(text)) {
        if (spec === 'bun:sqlite' || spec === 'postgres' || spec.startsWith('drizzle-orm')) offences.push(`${path} imports ${spec}`)
      }
      if (/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/.test(text)) offences.push(`${path} contains SQL`)
    }
    expect(offences).toEqual([])
  })

  test('services and stores know no Request, Response or Elysia', () => {
    const offences: string[] = []
    for (const { path, text } of sources) {
      if (!/^features\/[^/]+\/(service|store|search)(\.[a-z]+)?\.ts$/.test(path)) continue
      if (importsOf(text).some((s) => s === 'elysia')) offences.push(`${path} imports elysia`)
      if (/\bnew Response\(|: Request\b|\bRequest\)/.test(text)) offences.push(`${path} handles Request/Response`)
    }
    expect(offences).toEqual([])
  })

  test('every feature has an index.ts', () => {
    const features = readdirSync(join(SRC, 'features'))
    for (const feature of features)
      expect(
        sources.some((s) => s.path === `features/${feature}/index.ts`),
        feature,
      ).toBe(true)
  })
})
