// The migrations embedded in the binary are exactly drizzle-kit's files, and apply cleanly.
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../src/db/sqlite/client'
import { migrationHash, runMigrations } from '../src/db/sqlite/migrate'
import { EMBEDDED_PG_MIGRATIONS } from '../src/db/postgres/migrations.gen'
import { EMBEDDED_MIGRATIONS } from '../src/db/sqlite/migrations.gen'
import { PROMPTS_TOKENIZER } from '../src/features/catalogue/search-words.sqlite'
import { tempDir } from './support/app'

/** A new database with every migration before `tag` applied; `later`: the tags still to apply. */
function migratedUpTo(name: string, tag: string) {
  const db = openDatabase(join(tempDir(), name))
  const before = EMBEDDED_MIGRATIONS.findIndex((m) => m.tag === tag)
  runMigrations(db, EMBEDDED_MIGRATIONS.slice(0, before))
  return { db, later: EMBEDDED_MIGRATIONS.slice(before).map((m) => m.tag) }
}

/** A prompt (seq 7, in category writing, tag zoo, facet c77) and its whole-prompt index row, written as an older release did. */
function insertIndexedPrompt(c: Database, title: string, content: string) {
  c.run("INSERT INTO categories (id, name, created_at, updated_at) VALUES ('writing', 'Writing', 1, 1)")
  c.run(
    `INSERT INTO prompts (seq, id, title, description, category_id, tags, created_at, updated_at, facets, source_hash, preview, content)
     VALUES (7, 'p1', ?, 'd', 'writing', 'zoo', 5, 6, 'c77', 'h', 'okapi', ?)`,
    [title, content],
  )
  c.run("INSERT INTO prompts_fts (rowid, title, description, content, tags, facets) VALUES (7, ?, 'd', ?, 'zoo', 'c77')", [title, content])
}

describe('embedded migrations', () => {
  test('in step with drizzle/sqlite/meta/_journal.json, hash for hash (run `bun run db:generate` if this fails)', () => {
    const fromFolder = readMigrationFiles({ migrationsFolder: join(import.meta.dir, '..', 'drizzle', 'sqlite') })
    expect(EMBEDDED_MIGRATIONS.map((m) => [m.when, migrationHash(m.sql)])).toEqual(fromFolder.map((m) => [m.folderMillis, m.hash]))
    const sqlFiles = readdirSync(join(import.meta.dir, '..', 'drizzle', 'sqlite')).filter((f) => f.endsWith('.sql'))
    expect(sqlFiles.sort()).toEqual(EMBEDDED_MIGRATIONS.map((m) => `${m.tag}.sql`).sort())
  })

  test('PostgreSQL: in step with drizzle/postgres/meta/_journal.json, hash for hash', () => {
    const folder = join(import.meta.dir, '..', 'drizzle', 'postgres')
    const fromFolder = readMigrationFiles({ migrationsFolder: folder })
    expect(EMBEDDED_PG_MIGRATIONS.map((m) => [m.when, migrationHash(m.sql)])).toEqual(fromFolder.map((m) => [m.folderMillis, m.hash]))
    const sqlFiles = readdirSync(folder).filter((f) => f.endsWith('.sql'))
    expect(sqlFiles.sort()).toEqual(EMBEDDED_PG_MIGRATIONS.map((m) => `${m.tag}.sql`).sort())
  })

  test('apply to an empty database once; a second run applies nothing', () => {
    const db = openDatabase(join(tempDir(), 'm.db'))
    expect(runMigrations(db)).toEqual(EMBEDDED_MIGRATIONS.map((m) => m.tag))
    expect(runMigrations(db)).toEqual([])
    const tables = db.$client.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    expect(tables.map((t) => t.name)).toContain('users')
    db.$client.close()
  })

  test('0009 fills linked_providers for accounts linked before it', () => {
    const { db } = migratedUpTo('backfill.db', '0009_linked_providers')
    db.$client.run(
      `INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES ('u1', 'a@b.co', 'A', 'free', 1, 1), ('u2', 'c@d.co', 'C', 'free', 1, 1)`,
    )
    for (const [provider, subject] of [
      ['provider-b', 's1'],
      ['provider-a', 's2'],
      ['provider-b', 's3'],
    ]) {
      db.$client.run(
        `INSERT INTO oauth_identities (provider, issuer, subject, user_id, created_at, last_sign_in_at) VALUES (?, 'https://idp', ?, 'u1', 1, 1)`,
        [provider!, subject!],
      )
    }
    runMigrations(db)
    expect(db.$client.query('SELECT id, linked_providers FROM users ORDER BY id').all()).toEqual([
      { id: 'u1', linked_providers: 'provider-a provider-b' },
      { id: 'u2', linked_providers: '' },
    ])
    db.$client.close()
  })

  test('the database runs in WAL mode with foreign keys on', () => {
    const db = openDatabase(join(tempDir(), 'p.db'))
    expect(db.$client.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(db.$client.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(db.$client.query('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 })
    expect(db.$client.query('PRAGMA page_size').get()).toEqual({ page_size: 4096 })
    expect(db.$client.query('PRAGMA cache_size').get()).toEqual({ cache_size: -4096 })
    db.$client.close()
  })

  test('a database created with 16 KiB pages keeps them, and its data', () => {
    const file = join(tempDir(), 'old.db')
    const old = new Database(file)
    old.run('PRAGMA page_size = 16384')
    old.run('CREATE TABLE t (x TEXT)')
    old.run("INSERT INTO t VALUES ('kept')")
    old.close()
    const db = openDatabase(file)
    expect(db.$client.query('PRAGMA page_size').get()).toEqual({ page_size: 16384 })
    expect(db.$client.query('SELECT x FROM t').all()).toEqual([{ x: 'kept' }])
    db.$client.close()
  })
})

describe('0010_prompt_type (the prompts table rebuilt with `type` before `content`)', () => {
  test('an existing catalogue keeps every row, its tags, favorites and search index; foreign keys stay on', () => {
    const { db, later } = migratedUpTo('upgrade.db', '0010_prompt_type')
    const c = db.$client
    c.run("INSERT INTO users (id, email, name, created_at, updated_at) VALUES ('u1', 'a@example.com', 'A', 1, 1)")
    c.run("INSERT INTO categories (id, name, created_at, updated_at) VALUES ('writing', 'Writing', 1, 1)")
    c.run("INSERT INTO subcategories (category_id, id, name) VALUES ('writing', 'blogs', 'Blogs')")
    c.run(
      `INSERT INTO prompts (seq, id, title, description, category_id, subcategory_id, tags, created_at, updated_at, facets, source_hash, preview, content)
       VALUES (7, 'p1', 'Okapi essay', 'd', 'writing', 'blogs', 'zoo', 5, 6, 'c77', 'h', 'okapi', 'about the okapi')`,
    )
    c.run(
      "INSERT INTO prompts_fts (rowid, title, description, content, tags, facets) VALUES (7, 'Okapi essay', 'd', 'about the okapi', 'zoo', 'c77')",
    )
    c.run("INSERT INTO prompts_head_fts (rowid, title, description, tags, facets) VALUES (7, 'Okapi essay', 'd', 'zoo', 'c77')")
    c.run("INSERT INTO prompt_tags (tag, prompt_seq) VALUES ('zoo', 7)")
    c.run("INSERT INTO favorites (user_id, prompt_id, created_at) VALUES ('u1', 'p1', 9)")

    expect(runMigrations(db)).toEqual(later)
    expect(c.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(c.query('SELECT seq, id, title, favorite_count, created_at, updated_at, type, content FROM prompts').all()).toEqual([
      { seq: 7, id: 'p1', title: 'Okapi essay', favorite_count: 1, created_at: 5, updated_at: 6, type: 'text', content: 'about the okapi' },
    ])
    expect((c.query('PRAGMA table_info(prompts)').all() as { name: string }[]).map((col) => col.name).slice(-2)).toEqual(['type', 'content'])
    expect(c.query('SELECT tag, prompt_seq FROM prompt_tags').all()).toEqual([{ tag: 'zoo', prompt_seq: 7 }])
    expect(c.query("SELECT rowid FROM prompts_fts WHERE prompts_fts MATCH 'okapi'").all()).toEqual([{ rowid: 7 }])
    c.run("INSERT INTO prompts_fts (prompts_fts, rank) VALUES ('integrity-check', 1)")
    // The favorites trigger still finds the table; a cascade still reaches the tags.
    c.run("DELETE FROM favorites WHERE prompt_id = 'p1'")
    expect(c.query("SELECT favorite_count FROM prompts WHERE id = 'p1'").get()).toEqual({ favorite_count: 0 })
    c.run('DELETE FROM prompts_fts WHERE rowid = 7') // external content: the index entry goes first
    c.run("DELETE FROM prompts WHERE id = 'p1'")
    expect(c.query('SELECT count(*) AS n FROM prompt_tags').get()).toEqual({ n: 0 })
    expect(c.query('PRAGMA foreign_key_check').all()).toEqual([])
    db.$client.close()
  })
})

describe('0011_search_any_script (the full-text indexes again, marks inside words)', () => {
  test('an existing catalogue is indexed again: its prompts and skills are found, in any script', () => {
    const { db } = migratedUpTo('upgrade-fts.db', '0011_search_any_script')
    const c = db.$client
    insertIndexedPrompt(c, 'हिंदी किताब', 'about the okapi')
    c.run("INSERT INTO prompts_head_fts (rowid, title, description, tags, facets) VALUES (7, 'हिंदी किताब', 'd', 'zoo', 'c77')")
    c.run(
      `INSERT INTO skills (seq, id, name, description, category, facets, source_hash, created_at, updated_at, instructions)
       VALUES (3, 's1', 'বাংলা skill', 'd', 'coding', 'c63', 'h', 1, 1, 'steps')`,
    )
    c.run("INSERT INTO skills_fts (rowid, name, description, instructions, tags, facets) VALUES (3, 'বাংলা skill', 'd', 'steps', '', 'c63')")
    // Before: the vowel signs cut the words, and the word is not in the index, only its pieces.
    expect(c.query(`SELECT term FROM prompts_head_vocab WHERE term = 'किताब'`).all()).toEqual([])

    runMigrations(db)
    for (const table of ['prompts_fts', 'prompts_head_fts']) {
      expect(c.query(`SELECT rowid FROM ${table} WHERE ${table} MATCH '"किताब" AND facets : "c77"'`).all()).toEqual([{ rowid: 7 }])
      c.run(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`)
    }
    expect(c.query(`SELECT rowid FROM prompts_fts WHERE prompts_fts MATCH 'okapi'`).all()).toEqual([{ rowid: 7 }])
    // Since 0016 the completions' words are every word of the whole-prompt index, content's too.
    expect(c.query(`SELECT word FROM prompt_words WHERE word IN ('किताब', 'okapi', 'zoo') ORDER BY word`).all()).toEqual([
      { word: 'okapi' },
      { word: 'zoo' },
      { word: 'किताब' },
    ])
    expect(c.query(`SELECT rowid FROM skills_fts WHERE skills_fts MATCH '"বাংলা"'`).all()).toEqual([{ rowid: 3 }])
    c.run("INSERT INTO skills_fts (skills_fts, rank) VALUES ('integrity-check', 1)")
    db.$client.close()
  })
})

describe('0016_prompt_words (the completions of an unfinished word come from every word)', () => {
  test('filled from the whole-prompt index without its facet tokens; the store probes words with the same tokenizer', () => {
    const { db } = migratedUpTo('upgrade-words.db', '0016_prompt_words')
    const c = db.$client
    insertIndexedPrompt(c, 'Café notes', 'about the Okapi')
    runMigrations(db)
    const words = c
      .query<{ word: string }, []>('SELECT word FROM prompt_words ORDER BY word')
      .all()
      .map((r) => r.word)
    expect(words).toEqual(['about', 'cafe', 'd', 'notes', 'okapi', 'the', 'zoo'])
    const indexSql = c.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE name = 'prompts_fts'").get()!.sql
    expect(indexSql).toContain(`tokenize="${PROMPTS_TOKENIZER}"`)
    db.$client.close()
  })
})
