// Writes skills and their full-text index (skills_fts, external content) in the caller's
// transaction, like the prompt store: an update removes the old text from the index first.
import type { SQLQueryBindings } from 'bun:sqlite'
import type { Db } from '../../db/sqlite/client'
import type { Outcome } from '../catalogue/store'
import { facetToken, fingerprint, joinTags } from '../catalogue/text'

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
}

type OldSkill = { seq: number; name: string; description: string; instructions: string; tags: string; facets: string }

export function skillFacets(category: string, tags: readonly string[]): string {
  return [facetToken('c', category), ...tags.map((t) => facetToken('t', t))].join(' ')
}

export function createSkillStore(db: Db) {
  const c = db.$client
  const q = {
    hash: c.prepare<{ seq: number; source_hash: string }, [string]>('SELECT seq, source_hash FROM skills WHERE id = ?'),
    old: c.prepare<OldSkill, [number]>('SELECT seq, name, description, instructions, tags, facets FROM skills WHERE seq = ?'),
    insert: c.prepare<{ seq: number }, SQLQueryBindings[]>(
      `INSERT INTO skills (id, name, description, category, tags, license, compatibility, allowed_tools, metadata, files, facets, source_hash, created_at, updated_at, instructions)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    ),
    update: c.prepare(
      `UPDATE skills SET name = ?, description = ?, category = ?, tags = ?, license = ?, compatibility = ?, allowed_tools = ?, metadata = ?,
       files = ?, facets = ?, source_hash = ?, updated_at = ?, instructions = ? WHERE seq = ?`,
    ),
    ftsInsert: c.prepare('INSERT INTO skills_fts (rowid, name, description, instructions, tags, facets) VALUES (?, ?, ?, ?, ?, ?)'),
    ftsDelete: c.prepare("INSERT INTO skills_fts (skills_fts, rowid, name, description, instructions, tags, facets) VALUES ('delete', ?, ?, ?, ?, ?, ?)"),
  }

  return {
    upsertSkill(s: SkillInput, now = Date.now()): Outcome {
      const tags = joinTags(s.tags)
      const facets = skillFacets(s.category, s.tags)
      const allowedTools = JSON.stringify(s.allowedTools)
      const metadata = s.metadata ? JSON.stringify(s.metadata) : null
      const files = JSON.stringify(s.files)
      const hash = fingerprint([s.name, s.description, s.category, tags, s.license, s.compatibility, allowedTools, metadata, files, s.instructions])
      const existing = q.hash.get(s.id)
      if (existing?.source_hash === hash) return 'unchanged'
      let seq: number
      if (!existing) {
        seq = q.insert.get(s.id, s.name, s.description, s.category, tags, s.license, s.compatibility, allowedTools, metadata, files, facets, hash, now, now, s.instructions)!.seq
      } else {
        seq = existing.seq
        const old = q.old.get(seq)!
        q.ftsDelete.run(seq, old.name, old.description, old.instructions, old.tags, old.facets)
        q.update.run(s.name, s.description, s.category, tags, s.license, s.compatibility, allowedTools, metadata, files, facets, hash, now, s.instructions, seq)
      }
      q.ftsInsert.run(seq, s.name, s.description, s.instructions, tags, facets)
      return existing ? 'updated' : 'created'
    },
  }
}

export type SkillStore = ReturnType<typeof createSkillStore>
