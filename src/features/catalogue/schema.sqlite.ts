import { sql } from 'drizzle-orm'
import { foreignKey, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Categories: readable slug ids, shown in `order`. */
export const categories = sqliteTable('categories', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  icon: text('icon').notNull().default(''),
  sortOrder: integer('sort_order').notNull().default(0),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

/** Subcategories belong to one category; their slug is unique within it. */
export const subcategories = sqliteTable(
  'subcategories',
  {
    categoryId: text('category_id')
      .notNull()
      .references(() => categories.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    sortOrder: integer('sort_order').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.categoryId, t.id] })],
)

/**
 * Prompts. `seq` is the stable integer rowid the full-text index (prompts_fts, an external-content
 * FTS5 table) refers to; `id` is the public UUID. `content` is the last column so that reading
 * the others never walks the overflow pages of a long prompt. `tags` holds the normalised tags
 * separated by spaces (tags are slugs, so a space never occurs in one).
 */
export const prompts = sqliteTable(
  'prompts',
  {
    seq: integer('seq').primaryKey(),
    id: text('id').notNull().unique(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    categoryId: text('category_id')
      .notNull()
      .references(() => categories.id),
    subcategoryId: text('subcategory_id'),
    tags: text('tags').notNull().default(''),
    favoriteCount: integer('favorite_count').notNull().default(0),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    /** hex-encoded filter tokens for the full-text index (see the search migration) */
    facets: text('facets').notNull().default(''),
    /** a hash of the imported fields: a re-import of the same record changes nothing */
    sourceHash: text('source_hash').notNull(),
    /** the first ~200 characters of the content, cut at a word boundary */
    preview: text('preview').notNull(),
    /** `text`, `structured`, `image`, … (prompts.chat's type, lower case) */
    type: text('type').notNull().default('text'),
    content: text('content').notNull(),
  },
  (t) => [
    foreignKey({ columns: [t.categoryId, t.subcategoryId], foreignColumns: [subcategories.categoryId, subcategories.id] }),
    // Each listing's whole ORDER BY, the seq that breaks ties included: the first page is read off
    // the index as it stands (with seq left to the implicit rowid, ascending, SQLite sorted each run
    // of ties apart: a page of 20 on 100,000 prompts took 51-60 µs instead of 37-43).
    index('prompts_popular').on(t.categoryId, sql`${t.favoriteCount} DESC`, sql`${t.createdAt} DESC`, sql`${t.seq} DESC`),
    index('prompts_newest').on(t.categoryId, sql`${t.createdAt} DESC`, sql`${t.seq} DESC`),
    index('prompts_title').on(t.categoryId, sql`${t.title} COLLATE NOCASE`),
    index('prompts_subcategory').on(t.categoryId, t.subcategoryId),
  ],
)

/** One row per (tag, prompt): indexed tag filtering for the category listing. */
export const promptTags = sqliteTable(
  'prompt_tags',
  {
    tag: text('tag').notNull(),
    promptSeq: integer('prompt_seq')
      .notNull()
      .references(() => prompts.seq, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.tag, t.promptSeq] }), index('prompt_tags_prompt').on(t.promptSeq)],
)

/**
 * One row (id = 1): `revision` goes up in every transaction that changes categories or prompt
 * placement, so every instance can keep the category tree in memory and know when to reload it.
 */
export const catalogueState = sqliteTable('catalogue_state', {
  id: integer('id').primaryKey(),
  revision: integer('revision').notNull().default(0),
})

export type PromptRow = typeof prompts.$inferSelect
