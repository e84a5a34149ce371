import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core'
import { timestampMs, tsvector } from '../../db/postgres/columns'

/**
 * Agent Skills (SKILL.md). `id` is the skill's name (a kebab-case slug); `seq` mirrors SQLite's
 * rowid. JSON columns hold arrays/objects as text (kept byte for byte). `search` is the
 * weighted full-text vector (name A, tags B, description C, instructions D).
 */
export const skills = pgTable(
  'skills',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    tags: text('tags').notNull().default(''),
    license: text('license'),
    compatibility: text('compatibility'),
    allowedTools: text('allowed_tools').notNull().default('[]'),
    metadata: text('metadata'),
    files: text('files').notNull().default('[]'),
    facets: text('facets').notNull().default(''),
    sourceHash: text('source_hash').notNull(),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
    instructions: text('instructions').notNull(),
    search: tsvector('search'),
  },
  (t) => [index('skills_name').on(t.name), index('skills_search').using('gin', t.search)],
)
