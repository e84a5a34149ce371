import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Agent Skills (SKILL.md). `id` is the skill's name (a kebab-case slug); `seq` is the rowid the
 * full-text index (skills_fts) refers to. JSON columns hold arrays/objects as text.
 */
export const skills = sqliteTable('skills', {
  seq: integer('seq').primaryKey(),
  id: text('id').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  category: text('category').notNull(),
  /** normalised tags separated by spaces */
  tags: text('tags').notNull().default(''),
  license: text('license'),
  compatibility: text('compatibility'),
  /** JSON array of strings */
  allowedTools: text('allowed_tools').notNull().default('[]'),
  /** JSON object of string values, or null */
  metadata: text('metadata'),
  /** JSON array of the skill folder's other files (relative paths) */
  files: text('files').notNull().default('[]'),
  /** hex-encoded filter tokens for the full-text index */
  facets: text('facets').notNull().default(''),
  sourceHash: text('source_hash').notNull(),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  instructions: text('instructions').notNull(),
})

export type SkillRow = typeof skills.$inferSelect
