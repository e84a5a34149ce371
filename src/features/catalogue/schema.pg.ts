// PostgreSQL tables of the catalogue: the same columns as schema.sqlite.ts, plus the full-text
// vectors search uses (written by store.pg.ts from folded text; GIN-indexed).
import { sql } from 'drizzle-orm'
import { bigint, foreignKey, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { timestampMs, tsvector } from '../../db/postgres/columns'

/** Categories: readable slug ids, shown in `order`. */
export const categories = pgTable('categories', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  icon: text('icon').notNull().default(''),
  sortOrder: integer('sort_order').notNull().default(0),
  createdAt: timestampMs('created_at').notNull(),
  updatedAt: timestampMs('updated_at').notNull(),
})

/** Subcategories belong to one category; their slug is unique within it. */
export const subcategories = pgTable(
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
 * Prompts: the same columns as on SQLite. `seq` mirrors SQLite's rowid (the stable integer id the
 * search and tag rows use); `id` is the public UUID. `prompts_title` orders by lower-cased title
 * in byte order, as SQLite's NOCASE listing does.
 */
export const prompts = pgTable(
  'prompts',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    categoryId: text('category_id')
      .notNull()
      .references(() => categories.id),
    subcategoryId: text('subcategory_id'),
    tags: text('tags').notNull().default(''),
    favoriteCount: integer('favorite_count').notNull().default(0),
    createdAt: timestampMs('created_at').notNull(),
    updatedAt: timestampMs('updated_at').notNull(),
    /** kept for parity with SQLite (its FTS5 filter tokens); unused by PostgreSQL's search */
    facets: text('facets').notNull().default(''),
    sourceHash: text('source_hash').notNull(),
    preview: text('preview').notNull(),
    /** `text`, `structured`, `image`, … (prompts.chat's type, lower case) */
    type: text('type').notNull().default('text'),
    content: text('content').notNull(),
  },
  (t) => [
    foreignKey({ columns: [t.categoryId, t.subcategoryId], foreignColumns: [subcategories.categoryId, subcategories.id] }),
    // Each listing's whole ORDER BY, the seq that breaks ties included (as on SQLite): no sort step.
    index('prompts_popular').on(t.categoryId, t.favoriteCount.desc(), t.createdAt.desc(), t.seq.desc()),
    index('prompts_newest').on(t.categoryId, t.createdAt.desc(), t.seq.desc()),
    index('prompts_title').on(t.categoryId, sql`lower(${t.title}) COLLATE "C"`),
    index('prompts_subcategory').on(t.categoryId, t.subcategoryId),
    index('prompts_created').on(t.createdAt.desc(), t.seq.desc()),
  ],
)

/**
 * The search index of the prompts, one narrow row per prompt (PostgreSQL only; written by
 * store.pg.ts from the folded words a query is made of, lib/search/tsquery.ts). `head` (title A,
 * tags B, description C, with positions) ranks; `words` (the distinct words of the head and the
 * content) decides what matches. The category columns filter. Every search visits a row per
 * candidate to check its visibility, so these rows are kept apart from the prompts' text
 * (storage settings in the custom migration).
 */
export const promptSearch = pgTable(
  'prompt_search',
  {
    promptSeq: bigint('prompt_seq', { mode: 'number' })
      .primaryKey()
      .references(() => prompts.seq, { onDelete: 'cascade' }),
    categoryId: text('category_id').notNull(),
    subcategoryId: text('subcategory_id'),
    type: text('type').notNull().default('text'),
    head: tsvector('head').notNull(),
    words: tsvector('words').notNull(),
  },
  (t) => [index('prompt_search_head').using('gin', t.head), index('prompt_search_words').using('gin', t.words)],
)

/**
 * Every word the `words` vectors hold, added by statement triggers on prompt_search (migration
 * 0004) and never removed (a superset, so nothing is ever missing from it): search reads an
 * unfinished last word's completions here (search.pg.ts). Byte order (COLLATE "C"), so a prefix is
 * one index range.
 */
export const promptWords = pgTable('prompt_words', { word: text('word').primaryKey() }, (t) => [
  index('prompt_words_bytewise').on(sql`${t.word} COLLATE "C"`),
])

/** One row per (tag, prompt): indexed tag filtering for listings and search. */
export const promptTags = pgTable(
  'prompt_tags',
  {
    tag: text('tag').notNull(),
    promptSeq: bigint('prompt_seq', { mode: 'number' })
      .notNull()
      .references(() => prompts.seq, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.tag, t.promptSeq] }), index('prompt_tags_prompt').on(t.promptSeq)],
)

/**
 * One row (id = 1): `revision` goes up in every transaction that changes categories or prompt
 * placement, so every instance can keep the category tree in memory and know when to reload it.
 */
export const catalogueState = pgTable('catalogue_state', {
  id: integer('id').primaryKey(),
  revision: bigint('revision', { mode: 'number' }).notNull().default(0),
})
