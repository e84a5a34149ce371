// The skills port: Agent Skills, their search, and the write path the catalogue's importers use
// (every write joins the caller's transaction).
import type { Tx } from '../../db/storage'
import type { SearchTerms } from '../../lib/search/terms'

export type Outcome = 'created' | 'updated' | 'unchanged'

export interface Page {
  limit: number
  offset: number
}

export interface SkillInput {
  id: string
  name: string
  description: string
  category: string
  tags: string[]
  license: string | null
  compatibility: string | null
  allowedTools: string[]
  metadata: Record<string, string> | null
  files: string[]
  instructions: string
  /** epoch milliseconds; absent: the import's time (created) or kept (updated) */
  createdAt?: number
  updatedAt?: number
}

/** A skill as an export writes it: every imported field as stored. */
export interface SkillExport extends Omit<SkillInput, 'createdAt' | 'updatedAt'> {
  createdAt: Date
  updatedAt: Date
}

export interface SkillRecord {
  id: string
  name: string
  description: string
  category: string
  tags: string[]
  license: string | null
  compatibility: string | null
  allowedTools: string[]
  metadata: Record<string, string> | null
  files: string[]
  updatedAt: Date
  /** Markdown: the body of SKILL.md */
  instructions: string
}

export interface SkillFilter {
  category?: string
  /** in slug form */
  tag?: string
}

export interface SkillsStore {
  /** By name. */
  list(filter: SkillFilter, page: Page): Promise<{ items: SkillRecord[]; total: number }>
  get(id: string): Promise<SkillRecord | null>
  /**
   * The newest `window` matches (every word in the name, description, instructions or tags; the
   * last one as a prefix when it may be unfinished), ranked, best first; `total` counts them.
   */
  search(query: SkillFilter & { terms: SearchTerms }, page: Page, window: number): Promise<{ total: number; hits: SkillRecord[] }>
  /** Upserts skills (ids unique within the call); a skill whose imported fields did not change is not written. */
  upsertSkills(inputs: SkillInput[], now: number, tx: Tx): Promise<Outcome[]>
  hasAny(tx?: Tx): Promise<boolean>
  /** After a large import: merge the search index (SQLite) or refresh statistics and pending index entries (PostgreSQL). */
  optimizeSearchIndex(): Promise<void>
  /** Writes the search index of every skill again from the rows (after `promptlib db copy`). */
  rebuildSearchIndex(): Promise<void>
  /**
   * The next skills after `cursor` (0 to start) in the order they were added, for an export: at
   * most `limits.rows`, and no more than `limits.chars` characters of instructions unless a single
   * skill has more. An empty page ends the export; `cursor` continues it.
   */
  exportSkills(
    cursor: number,
    filter: { category?: string },
    limits: { rows: number; chars: number },
    tx?: Tx,
  ): Promise<{ skills: SkillExport[]; cursor: number }>
}
