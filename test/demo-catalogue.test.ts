import { describe, expect, test } from 'bun:test'
import demo from '../src/features/catalogue/demo/demo-catalogue.json'

// Validates the built-in demo catalogue loaded on first start.

const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const VARIABLE = /^\{\{[a-z][a-z0-9_]*(:[^{}|]+(\|[^{}|]+)*)?\}\}$/
const PLACEHOLDER = /\{\{[^]*?\}\}/g

const { categories, prompts, skills } = demo
const categoryIds = new Set(categories.map((c) => c.id))
const subcategoryOwner = new Map(categories.flatMap((c) => c.subcategories.map((s) => [s.id, c.id] as const)))

function variablesOf(content: string): string[] {
  return content.match(PLACEHOLDER) ?? []
}

function kindOf(variable: string): 'plain' | 'default' | 'options' {
  const colon = variable.indexOf(':')
  if (colon === -1) return 'plain'
  return variable.slice(colon).includes('|') ? 'options' : 'default'
}

function expectUnique(values: string[]): void {
  expect(new Set(values).size).toBe(values.length)
}

function isSingleEmoji(value: string): boolean {
  const segments = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(value)]
  return segments.length === 1 && /\p{Extended_Pictographic}/u.test(value)
}

describe('file shape', () => {
  test('has exactly the expected top-level keys', () => {
    expect(Object.keys(demo).sort()).toEqual(['categories', 'format', 'prompts', 'skills', 'version'])
    expect(demo.format).toBe('promptlib-catalogue')
    expect(demo.version).toBe(1)
  })

  test('meets the minimum counts', () => {
    expect(categories.length).toBeGreaterThanOrEqual(8)
    expect(prompts.length).toBeGreaterThanOrEqual(60)
    expect(skills.length).toBeGreaterThanOrEqual(8)
  })
})

describe('categories', () => {
  test('include the required coding and general categories', () => {
    expect(categoryIds.has('coding')).toBe(true)
    expect(categoryIds.has('general')).toBe(true)
  })

  test('have unique kebab-case ids and a valid shape', () => {
    expectUnique(categories.map((c) => c.id))
    for (const c of categories) {
      expect(c.id).toMatch(KEBAB)
      expect(c.name.length).toBeGreaterThan(0)
      expect(c.description.length).toBeGreaterThan(0)
      expect(isSingleEmoji(c.icon)).toBe(true)
      expect(c.subcategories.length).toBeGreaterThanOrEqual(2)
      expect(c.subcategories.length).toBeLessThanOrEqual(4)
    }
  })

  test('are ordered 1..n without gaps', () => {
    const orders = categories.map((c) => c.order).sort((a, b) => a - b)
    expect(orders).toEqual(categories.map((_, i) => i + 1))
  })

  test('have subcategory ids that are kebab-case and unique across the file', () => {
    const ids = categories.flatMap((c) => c.subcategories.map((s) => s.id))
    expectUnique(ids)
    for (const c of categories) {
      for (const s of c.subcategories) {
        expect(s.id).toMatch(KEBAB)
        expect(s.name.length).toBeGreaterThan(0)
        expect(s.description.length).toBeGreaterThan(0)
      }
    }
  })
})

describe('prompts', () => {
  test('have unique, lowercase UUID v4 ids', () => {
    expectUnique(prompts.map((p) => p.id))
    for (const p of prompts) expect(p.id).toMatch(UUID_V4)
  })

  test('have titles, descriptions and tags within limits', () => {
    for (const p of prompts) {
      expect(p.title.length).toBeGreaterThan(0)
      expect(p.title.length).toBeLessThanOrEqual(80)
      expect(p.description.length).toBeGreaterThan(0)
      expect(p.description.length).toBeLessThanOrEqual(200)
      expect(p.tags.length).toBeGreaterThanOrEqual(2)
      expect(p.tags.length).toBeLessThanOrEqual(5)
      expectUnique(p.tags)
      for (const tag of p.tags) expect(tag).toMatch(KEBAB)
    }
  })

  test('have unique titles', () => {
    expectUnique(prompts.map((p) => p.title))
  })

  test('reference an existing category and a subcategory of that category', () => {
    for (const p of prompts) {
      expect(categoryIds.has(p.category)).toBe(true)
      expect(subcategoryOwner.get(p.subcategory)).toBe(p.category)
    }
  })

  test('cover every category with at least 5 prompts and every subcategory with at least 1', () => {
    for (const c of categories) {
      expect(prompts.filter((p) => p.category === c.id).length).toBeGreaterThanOrEqual(5)
      for (const s of c.subcategories) {
        expect(prompts.some((p) => p.subcategory === s.id)).toBe(true)
      }
    }
  })

  test('have content between 400 and 2,500 characters', () => {
    for (const p of prompts) {
      expect(p.content.length).toBeGreaterThanOrEqual(400)
      expect(p.content.length).toBeLessThanOrEqual(2500)
    }
  })

  test('have created_at timestamps as ISO 8601 UTC within 2026-01..2026-10', () => {
    for (const p of prompts) {
      expect(p.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(new Date(p.created_at).toISOString()).toBe(p.created_at)
      expect(p.created_at >= '2026-01-01T00:00:00.000Z').toBe(true)
      expect(p.created_at < '2026-11-01T00:00:00.000Z').toBe(true)
    }
    // Spread out, so sorting by "newest" is meaningful.
    const months = new Set(prompts.map((p) => p.created_at.slice(0, 7)))
    expect(months.size).toBe(10)
    expectUnique(prompts.map((p) => p.created_at))
  })
})

describe('template variables', () => {
  test('every {{...}} placeholder uses valid syntax', () => {
    for (const p of prompts) {
      for (const v of variablesOf(p.content)) expect(v).toMatch(VARIABLE)
    }
  })

  test('no stray braces outside placeholders', () => {
    for (const p of prompts) {
      const rest = p.content.replace(PLACEHOLDER, '')
      expect(rest).not.toContain('{{')
      expect(rest).not.toContain('}}')
    }
  })

  test('each prompt uses 1 to 5 distinct variables, each declared consistently', () => {
    for (const p of prompts) {
      const vars = variablesOf(p.content)
      const byName = new Map<string, Set<string>>()
      for (const v of vars) {
        const name = v.slice(2, -2).split(':')[0]!
        byName.set(name, (byName.get(name) ?? new Set()).add(v))
      }
      expect(byName.size).toBeGreaterThanOrEqual(1)
      expect(byName.size).toBeLessThanOrEqual(5)
      // A variable repeated in one prompt must be written identically each time.
      for (const forms of byName.values()) expect(forms.size).toBe(1)
    }
  })

  test('at least 10 prompts use a default and at least 10 use an option list', () => {
    const withKind = (kind: 'default' | 'options') => prompts.filter((p) => variablesOf(p.content).some((v) => kindOf(v) === kind)).length
    expect(withKind('default')).toBeGreaterThanOrEqual(10)
    expect(withKind('options')).toBeGreaterThanOrEqual(10)
  })
})

describe('skills', () => {
  test('have unique kebab-case ids of at most 64 characters, with name equal to id', () => {
    expectUnique(skills.map((s) => s.id))
    for (const s of skills) {
      expect(s.id).toMatch(KEBAB)
      expect(s.id.length).toBeLessThanOrEqual(64)
      expect(s.name).toBe(s.id)
    }
  })

  test('have descriptions that say when to use them, at most 1,024 characters, no angle brackets', () => {
    for (const s of skills) {
      expect(s.description.length).toBeGreaterThan(0)
      expect(s.description.length).toBeLessThanOrEqual(1024)
      expect(s.description).not.toMatch(/[<>]/)
      expect(s.description.toLowerCase()).toContain('use when')
    }
  })

  test('have valid category, tags, license and allowed tools', () => {
    for (const s of skills) {
      expect(categoryIds.has(s.category)).toBe(true)
      expect(s.tags.length).toBeGreaterThanOrEqual(2)
      expect(s.tags.length).toBeLessThanOrEqual(5)
      for (const tag of s.tags) expect(tag).toMatch(KEBAB)
      expect(['MIT', 'Apache-2.0']).toContain(s.license)
      expect(Array.isArray(s.allowed_tools)).toBe(true)
      for (const tool of s.allowed_tools) expect(typeof tool).toBe('string')
    }
  })

  test('have Markdown instructions of 1,500 to 5,000 characters', () => {
    for (const s of skills) {
      expect(s.instructions.length).toBeGreaterThanOrEqual(1500)
      expect(s.instructions.length).toBeLessThanOrEqual(5000)
      expect(s.instructions).toMatch(/^# /)
      expect(s.instructions).toMatch(/^## /m)
    }
  })
})
