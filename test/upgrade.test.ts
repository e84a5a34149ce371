// Upgrading a populated database: a database at the schema of the release before this one
// (SQLite up to 0013, PostgreSQL up to 0008) holding users with password hashes, PATs,
// favorites, optimizer history, payments, subscriptions, a catalogue with skills and usage
// counters is migrated to the current schema, and then served by the current app: every row,
// every answer and every search is what it was. Runs on the engine of the suite's pass
// (PROMPTLIB_TEST_POSTGRES set: PostgreSQL).
//
// The rows are written by the app itself (on a current database, through its HTTP API and
// webhooks) and copied column by column into the older schema, the columns it has; the older
// full-text indexes are then built from them the way that release built them.
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import postgres from 'postgres'
import { openDatabase } from '../src/db/sqlite/client'
import { runMigrations } from '../src/db/sqlite/migrate'
import { EMBEDDED_PG_MIGRATIONS } from '../src/db/postgres/migrations.gen'
import { runPgMigrations } from '../src/db/postgres/migrate'
import { openPostgres } from '../src/db/postgres/client'
import { EMBEDDED_MIGRATIONS } from '../src/db/sqlite/migrations.gen'
import { json, makeTestApp, type Registered, register, TEST_ENGINE, type TestApp, tempDir } from './support/app'
import { checkoutCompleted, type PaymentsApp, paymentsApp, subscriptionObject, walletSubscription } from './support/billing'
import { importRecords } from './support/catalogue'
import { paypalEvent } from './support/fake-paypal'
import { stripeEvent } from './support/fake-stripe'
import { emptyDatabaseUrl } from './support/postgres'
import { cliAsync } from './support/process'
import { sqlNumber, sqlRows, sqlRun } from './support/sql'

const PG = TEST_ENGINE === 'postgres'
/** The first migration the older release did not have. */
const FIRST_NEW = PG ? '0009_cancel_period_end' : '0014_search_private_use'
const MIGRATIONS = PG ? EMBEDDED_PG_MIGRATIONS : EMBEDDED_MIGRATIONS
const OLD = MIGRATIONS.slice(
  0,
  MIGRATIONS.findIndex((m) => m.tag === FIRST_NEW),
)
const NEW_TAGS = MIGRATIONS.slice(OLD.length).map((m) => m.tag)

// Words each prompt is found by: accents, CJK, kana, Hangul, Devanagari, a private-use character
// between two words (0014), and plain Latin.
const SPECIAL: { title: string; content: string; query: string }[] = [
  { title: 'Crème brûlée recipe', content: 'Describe a café menu with crème brûlée.', query: 'brulee' },
  { title: 'Ångström units', content: 'Explain the ångström to a child.', query: 'Ångström' },
  { title: '東京の旅行', content: '東京 旅行 計画 を 作る', query: '東京' },
  { title: 'カタカナ練習', content: 'ガイド カタカナ', query: 'ガイド' },
  { title: '한국어 문장 교정', content: '한국어 문장을 자연스럽게 다듬어 주세요', query: '한국어' },
  { title: 'हिंदी किताब सारांश', content: 'इस किताब का सारांश लिखें', query: 'किताब' },
  { title: 'Private use glyph', content: 'zorbulate\uE000quuxifier inside one token', query: 'quuxifier' },
  { title: 'Plain okapi essay', content: 'Write an essay about the okapi.', query: 'okapi' },
]
const uuid = (n: number) => `${String(n).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`
const PROMPTS = [
  ...SPECIAL.map((p, i) => ({ id: uuid(i + 1), ...p })),
  ...Array.from({ length: 32 }, (_, i) => ({
    id: uuid(100 + i),
    title: `Generic prompt number ${i}`,
    content: `Filler text ${i} with marker word${i}x`,
    query: `word${i}x`,
  })),
]

interface Snapshot {
  tables: Record<string, Record<string, unknown>[]>
  answers: Record<string, unknown>
}

const TABLE_ORDER = {
  // primary keys, for a stable order of every table's rows
  sqlite:
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE '%fts%' AND name NOT LIKE '__drizzle%' ORDER BY name",
  postgres:
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
}

async function columnsOf(t: Pick<TestApp, 'storage'>, table: string): Promise<string[]> {
  if (PG)
    return (
      await sqlRows<{ c: string }>(
        t.storage,
        'SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
        ['public', table],
      )
    ).map((r) => r.c)
  return (await sqlRows<{ name: string }>(t.storage, `SELECT name FROM pragma_table_info('${table}')`)).map((r) => r.name)
}

/** Every row of every table, as text (so timestamps and vectors compare exactly), sorted. */
async function dumpTables(t: Pick<TestApp, 'storage'>, skipColumns: string[] = []): Promise<Snapshot['tables']> {
  const out: Snapshot['tables'] = {}
  for (const { name } of await sqlRows<{ name: string }>(t.storage, PG ? TABLE_ORDER.postgres : TABLE_ORDER.sqlite)) {
    const cols = (await columnsOf(t, name)).filter((c) => !skipColumns.includes(`${name}.${c}`))
    const select = cols.map((c) => (PG ? `"${c}"::text AS "${c}"` : `"${c}"`)).join(', ')
    const rows = await sqlRows(t.storage, `SELECT ${select} FROM "${name}"`)
    out[name] = rows.map((r) => JSON.stringify(r)).sort() as never
  }
  return out
}

async function found(t: TestApp, query: string): Promise<string[]> {
  const res = await t.request(`/api/search?q=${encodeURIComponent(query)}&limit=100`)
  expect(res.status).toBe(200)
  return ((await json(res)).items as { id: string }[]).map((i) => i.id)
}

/** What each account sees, and what the catalogue answers. */
async function answers(t: TestApp, users: Registered[], pats: string[]): Promise<Snapshot['answers']> {
  const out: Record<string, unknown> = {}
  // PATs first: their use stamps last_used_at, which the token lists below then show as set.
  for (const [i, pat] of pats.entries()) {
    const res = await t.request('/api/user/me', { token: pat })
    out[`pat ${i}`] = { status: res.status, body: await res.json() }
  }
  for (const [i, u] of users.entries()) {
    for (const path of ['/api/user/me', '/api/user/subscription', '/api/user/favorites?limit=100', '/api/user/tokens', '/api/optimizer/history']) {
      const res = await t.request(path, { token: u.token })
      const body = await json(res)
      // when a token was last used changes with every use; whether it was used must not
      if (path === '/api/user/tokens') for (const item of body.items) item.last_used_at = item.last_used_at !== null
      out[`${i} ${path}`] = { status: res.status, body }
    }
  }
  out.categories = await json(await t.request('/api/categories'))
  out.skills = await json(await t.request('/api/skills?limit=100', { token: users[0]!.token }))
  for (const p of PROMPTS) out[`search ${p.query}`] = await found(t, p.query)
  return out
}

/** A database at the older schema holding `from`'s rows (the columns the older schema has). */
async function olderCopyOf(from: TestApp): Promise<{ env: Record<string, string>; databaseUrl: string | null; close(): Promise<void> }> {
  const tables = (await sqlRows<{ name: string }>(from.storage, PG ? TABLE_ORDER.postgres : TABLE_ORDER.sqlite)).map((r) => r.name)
  if (!PG) {
    const dir = tempDir()
    const db = openDatabase(join(dir, 'promptlib.db'))
    runMigrations(db, OLD)
    db.$client.close()
    const c = new Database(join(dir, 'promptlib.db'))
    c.run('PRAGMA foreign_keys = OFF')
    c.run(`ATTACH DATABASE '${join(from.dataDir, 'promptlib.db')}' AS src`)
    c.transaction(() => {
      for (const table of tables) {
        const older = (c.query(`SELECT name FROM pragma_table_info('${table}', 'main')`).all() as { name: string }[]).map((r) => r.name)
        if (older.length === 0) continue
        const cols = older.map((n) => `"${n}"`).join(', ')
        c.run(`DELETE FROM main."${table}"`)
        c.run(`INSERT INTO main."${table}" (${cols}) SELECT ${cols} FROM src."${table}"`)
      }
      // The favorites trigger counted the copied favorites once more: the source's counts.
      c.run('UPDATE main.prompts SET favorite_count = (SELECT favorite_count FROM src.prompts s WHERE s.seq = prompts.seq)')
      // The older release's indexes, built by its tokenizer from the rows.
      for (const fts of ['prompts_fts', 'prompts_head_fts', 'skills_fts']) c.run(`INSERT INTO main.${fts} (${fts}) VALUES ('rebuild')`)
    })()
    c.run('DETACH DATABASE src')
    c.close()
    return { env: { DATA_DIR: dir }, databaseUrl: null, close: async () => {} }
  }
  const url = (await emptyDatabaseUrl())!
  const storage = openPostgres(url, { max: 1 })
  await runPgMigrations(storage, OLD)
  await storage.close()
  const target = postgres(url, { max: 1, onnotice: () => {} })
  const source = from.storage.engine === 'postgres' ? from.storage.db.$client : null
  await target.begin(async (tx) => {
    // No triggers, no foreign-key checks: the rows go in exactly as they are.
    await tx.unsafe('SET LOCAL session_replication_role = replica')
    for (const table of tables) {
      const older = (
        await tx.unsafe<{ c: string }[]>(
          "SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
          [table],
        )
      ).map((r) => r.c)
      if (older.length === 0) continue
      const cols = older.map((n) => `"${n}"`).join(', ')
      await tx.unsafe(`DELETE FROM "${table}"`)
      const readable = await source!.unsafe(`COPY "${table}" (${cols}) TO STDOUT`).readable()
      const writable = await tx.unsafe(`COPY "${table}" (${cols}) FROM STDIN`).writable()
      await new Promise<void>((resolve, reject) => {
        readable.on('error', reject)
        writable.on('error', reject)
        writable.on('finish', resolve)
        readable.pipe(writable)
      })
    }
    // Sequences behind serial columns follow the copied ids.
    for (const { seq, tbl, col } of await tx.unsafe<{ seq: string; tbl: string; col: string }[]>(
      `SELECT s.relname AS seq, t.relname AS tbl, a.attname AS col FROM pg_class s JOIN pg_depend d ON d.objid = s.oid
       JOIN pg_class t ON t.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
       JOIN pg_namespace n ON n.oid = t.relnamespace WHERE s.relkind = 'S' AND n.nspname = 'public'`,
    ))
      await tx.unsafe(`SELECT setval('"${seq}"', greatest((SELECT max("${col}") FROM "${tbl}"), 1))`)
  })
  await target.end({ timeout: 5 })
  return { env: {}, databaseUrl: url, close: async () => {} }
}

/** favorite_count of every prompt against its favorites, rows whose count is wrong. */
const countMismatches = (t: Pick<TestApp, 'storage'>) =>
  sqlRows(
    t.storage,
    'SELECT p.id, p.favorite_count, (SELECT count(*) FROM favorites f WHERE f.prompt_id = p.id) AS n FROM prompts p WHERE p.favorite_count <> (SELECT count(*) FROM favorites f WHERE f.prompt_id = p.id)',
  )

const opened: TestApp[] = []
let pay: PaymentsApp | null = null
afterAll(async () => {
  pay?.close()
  for (const t of opened) await t.storage.close()
})

describe(`upgrading a populated ${TEST_ENGINE} database (${OLD.at(-1)!.tag} → ${NEW_TAGS.at(-1)})`, () => {
  let before: TestApp
  let after: TestApp
  let users: Registered[] = []
  let pats: string[] = []
  let snapshot: Snapshot

  test('the older database, written by the app, migrates: every row is kept', async () => {
    pay = await paymentsApp({ DEMO_CATALOGUE: 'false' })
    before = pay.t
    opened.push(before)
    await importRecords(before, {
      categories: [
        { id: 'writing', name: 'Writing', subcategories: [{ id: 'essays', name: 'Essays' }] },
        { id: 'languages', name: 'Languages' },
      ],
      prompts: PROMPTS.map((p, i) => ({
        id: p.id,
        title: p.title,
        description: `d ${i}`,
        category: i % 2 ? 'writing' : 'languages',
        ...(i % 2 ? { subcategory: 'essays' } : {}),
        tags: i < SPECIAL.length ? ['이야기', 'café', `t${i}`] : [`t${i}`],
        content: p.content,
      })),
      skills: [
        {
          id: 'creme-skill',
          name: 'creme-skill',
          description: 'Crème sugar work',
          category: 'cooking',
          tags: ['dessert'],
          instructions: '# Crème\n\nCaramelise.',
        },
        { id: 'hangul-skill', name: 'hangul-skill', description: '한국어 교정', category: 'languages', instructions: '문장 다듬기' },
      ],
    })
    users = [await register(before), await register(before), await register(before), await register(before)]
    const [card, wallet, lifetime, free] = users as [Registered, Registered, Registered, Registered]
    // Card: pro subscription, then renewed with a period end and cancel-at-period-end set.
    const sub = `sub_${card.user.id}`
    const now = Math.floor(Date.now() / 1000)
    expect((await pay.deliverCard(checkoutCompleted(card.user, 'pro', { subscription: sub, created: now - 100 }))).status).toBe(200)
    const periodEnd = now + 20 * 86_400
    const updated = stripeEvent(
      'customer.subscription.updated',
      subscriptionObject(sub, {
        customer: `cus_${card.user.id}`,
        status: 'active',
        cancelAtPeriodEnd: true,
        periodEnd: periodEnd * 1000,
        userId: card.user.id,
      }),
      { created: now - 50 },
    )
    expect((await pay.deliverCard(updated)).status).toBe(200)
    // Wallet: a starter subscription; lifetime: a one-time card payment.
    const activated = paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(`I-${wallet.user.id}`, wallet.user.id, { plan: 'P-STARTER' }))
    expect((await pay.deliverWallet(activated)).status).toBe(200)
    expect((await pay.deliverCard(checkoutCompleted(lifetime.user, 'lifetime', { created: now - 30 }))).status).toBe(200)
    // PATs: three for the pro account (one revoked), one for the wallet's starter account.
    for (const [u, n] of [
      [card, 3],
      [wallet, 1],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const res = await before.request('/api/user/tokens', { method: 'POST', token: u.token, json: { name: `pat ${i}`, expires_in_days: 30 } })
        expect(res.status).toBe(201)
        pats.push((await json(res)).token)
      }
    }
    const revoked = (
      (await json(await before.request('/api/user/tokens', { token: card.token }))).items as { token_id: string; name: string }[]
    ).find((i) => i.name === 'pat 0')
    expect((await before.request(`/api/user/tokens/${revoked!.token_id}`, { method: 'DELETE', token: card.token })).status).toBe(204)
    // Favorites: overlapping sets, in different orders.
    for (const [i, u] of users.entries()) {
      const mine = PROMPTS.filter((_, j) => (j + i) % (i + 2) === 0)
      for (const p of i % 2 ? mine.reverse() : mine)
        expect((await before.request('/api/user/favorites', { method: 'POST', token: u.token, json: { prompt_id: p.id } })).status).toBe(201)
    }
    // Usage counters: the free account opens four prompts; optimizations by the free and pro accounts.
    for (const p of PROMPTS.slice(0, 4)) expect((await before.request(`/api/prompts/${p.id}`, { token: free.token })).status).toBe(200)
    for (const u of [free, card]) {
      const res = await before.request('/api/optimizer/optimize', {
        method: 'POST',
        token: u.token,
        json: { prompt: 'Write a haiku about tea', mode: 'enhance' },
      })
      expect(res.status).toBe(200)
      await res.text()
    }
    const answered = await answers(before, users, pats)
    snapshot = { tables: await dumpTables(before, ['subscriptions.cancel_period_end']), answers: answered }
    // The snapshot holds what it should (so an empty one cannot pass).
    for (const table of [
      'users',
      'personal_access_tokens',
      'favorites',
      'optimization_history',
      'payments',
      'subscriptions',
      'skills',
      'daily_usage',
    ])
      expect(snapshot.tables[table]!.length).toBeGreaterThan(0)
    for (const p of PROMPTS) expect(snapshot.answers[`search ${p.query}`]).toContain(p.id)

    const older = await olderCopyOf(before)
    // The older schema lacks what the new migrations add.
    const probe = await makeProbe(older)
    expect(await columnsOf(probe, 'subscriptions')).not.toContain('cancel_period_end')
    if (!PG) {
      // The older indexes kept a private-use character inside a word: 0014 is what finds it.
      const privateUse = `SELECT count(*) AS n FROM prompts_fts WHERE prompts_fts MATCH '"quuxifier"'`
      expect(await sqlNumber(probe.storage, privateUse)).toBe(0)
    }
    expect(await probe.applyRest()).toEqual(NEW_TAGS)
    if (!PG) expect(await sqlNumber(probe.storage, `SELECT count(*) AS n FROM prompts_fts WHERE prompts_fts MATCH '"quuxifier"'`)).toBe(1)
    expect(await probe.applyRest()).toEqual([]) // `promptlib migrate` on an up-to-date database
    await probe.close()

    after = await makeTestApp({ DEMO_CATALOGUE: 'false', ...older.env }, older.databaseUrl ? { databaseUrl: older.databaseUrl } : {})
    opened.push(after)
    const tables = await dumpTables(after, ['subscriptions.cancel_period_end'])
    expect(Object.keys(tables)).toEqual(Object.keys(snapshot.tables))
    for (const table of Object.keys(tables)) expect({ table, rows: tables[table] }).toEqual({ table, rows: snapshot.tables[table]! })
    expect(await sqlNumber(after.storage, 'SELECT count(*) FROM subscriptions WHERE cancel_period_end IS NOT NULL')).toBe(0)
  })

  test('the upgraded database answers as before: tokens, subscriptions, favorites, history, usage, search in every script', async () => {
    expect(after).toBeDefined()
    const now = await answers(after, users, pats)
    for (const key of Object.keys(snapshot.answers)) expect({ key, answer: now[key] }).toEqual({ key, answer: snapshot.answers[key] })
    expect((snapshot.answers['pat 0'] as { status: number }).status).toBe(401) // the revoked one
    expect((snapshot.answers['pat 1'] as { status: number }).status).toBe(200)
    // Passwords (argon2id hashes written before) still log in.
    for (const u of users)
      expect((await after.request('/api/auth/login', { method: 'POST', json: { email: u.email, password: u.password } })).status).toBe(200)
    // Every prompt is found by its word, the private-use one included (0014), and by a prefix.
    for (const p of PROMPTS) expect({ q: p.query, found: await found(after, p.query) }).toEqual({ q: p.query, found: expect.arrayContaining([p.id]) })
    expect(await found(after, 'zorbulate')).toContain(PROMPTS[6]!.id)
    expect(await found(after, 'Privat')).toContain(PROMPTS[6]!.id) // a prefix of a title word
    expect(await found(after, 'creme brulee')).toContain(PROMPTS[0]!.id)
    const skills = await json(await after.request(`/api/skills/search?q=${encodeURIComponent('한국어')}`, { token: users[0]!.token }))
    expect(skills.items.map((s: { id: string }) => s.id)).toEqual(['hangul-skill'])
    if (!PG) {
      for (const fts of ['prompts_fts', 'prompts_head_fts', 'skills_fts'])
        await sqlRun(after.storage, `INSERT INTO ${fts} (${fts}, rank) VALUES ('integrity-check', 1)`)
    }
  })

  test('after the upgrade favorite_count stays exact: adds, removals, a deleted prompt, deleted accounts, concurrent deletions', async () => {
    expect(after).toBeDefined()
    expect(await countMismatches(after)).toEqual([])
    const [card, wallet, lifetime, free] = users as [Registered, Registered, Registered, Registered]
    // Adds and removals through the API.
    for (const p of PROMPTS.slice(10, 20))
      await after.request('/api/user/favorites', { method: 'POST', token: free.token, json: { prompt_id: p.id } })
    for (const p of PROMPTS.slice(10, 15)) await after.request(`/api/user/favorites/${p.id}`, { method: 'DELETE', token: free.token })
    expect(await countMismatches(after)).toEqual([])
    // Many favorites removed by one statement, several of the same prompt.
    await sqlRun(after.storage, `DELETE FROM favorites WHERE prompt_id IN ($1, $2)`, [PROMPTS[0]!.id, PROMPTS[12]!.id])
    expect(await countMismatches(after)).toEqual([])
    expect(await sqlNumber(after.storage, 'SELECT favorite_count FROM prompts WHERE id = $1', [PROMPTS[0]!.id])).toBe(0)
    // A prompt deleted: its favorites cascade (and the others' counts stay).
    const victim = PROMPTS[2]!.id
    if (!PG) await sqlRun(after.storage, 'DELETE FROM prompts_fts WHERE rowid = (SELECT seq FROM prompts WHERE id = $1)', [victim])
    await sqlRun(
      after.storage,
      PG ? 'DELETE FROM prompt_search WHERE prompt_seq = (SELECT seq FROM prompts WHERE id = $1)' : 'SELECT 1',
      PG ? [victim] : [],
    )
    await sqlRun(after.storage, 'DELETE FROM prompts WHERE id = $1', [victim])
    expect(await sqlNumber(after.storage, 'SELECT count(*) FROM favorites WHERE prompt_id = $1', [victim])).toBe(0)
    expect(await countMismatches(after)).toEqual([])
    // Two accounts deleted at once, their favorites overlapping and added in opposite orders,
    // then a third: every count is exact and every deletion answers 204.
    for (const [u, order] of [
      [card, PROMPTS.slice(3)],
      [wallet, PROMPTS.slice(3).reverse()],
    ] as const)
      for (const p of order) await after.request('/api/user/favorites', { method: 'POST', token: u.token, json: { prompt_id: p.id } })
    const counts = await sqlRows<{ id: string; favorite_count: number }>(after.storage, 'SELECT id, favorite_count FROM prompts ORDER BY id')
    expect(counts.some((c) => Number(c.favorite_count) >= 2)).toBe(true)
    // PostgreSQL: each removed favorite takes a moment, so the two deletions' lockings overlap
    // (row by row, in their opposite orders, they deadlocked before 0010).
    if (PG) {
      await sqlRun(
        after.storage,
        `CREATE FUNCTION test_slow_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.003); RETURN NULL; END $$`,
      )
      await sqlRun(after.storage, 'CREATE TRIGGER favorites_zz_slow AFTER DELETE ON favorites FOR EACH ROW EXECUTE FUNCTION test_slow_row()')
    }
    const deletions = await Promise.all([card, wallet].map((u) => after.request('/api/user/me', { method: 'DELETE', token: u.token })))
    if (PG) await sqlRun(after.storage, 'DROP TRIGGER favorites_zz_slow ON favorites')
    expect(deletions.map((r) => r.status)).toEqual([204, 204])
    expect(await countMismatches(after)).toEqual([])
    expect((await after.request('/api/user/me', { method: 'DELETE', token: lifetime.token })).status).toBe(204)
    expect(await countMismatches(after)).toEqual([])
    expect(
      await sqlNumber(after.storage, 'SELECT count(*) FROM favorites WHERE user_id IN ($1, $2, $3)', [
        card.user.id,
        wallet.user.id,
        lifetime.user.id,
      ]),
    ).toBe(0)
  })
})

describe(`${TEST_ENGINE}: several processes migrate one older database at once`, () => {
  test('each migration is applied once, every process succeeds, the data is kept', async () => {
    const t = await makeTestApp({ DEMO_CATALOGUE: 'false' })
    opened.push(t)
    await importRecords(t, {
      categories: [{ id: 'writing', name: 'Writing' }],
      prompts: PROMPTS.map((p) => ({ id: p.id, title: p.title, description: 'd', category: 'writing', tags: ['이야기'], content: p.content })),
    })
    const u = await register(t)
    for (const p of PROMPTS.slice(0, 9)) await t.request('/api/user/favorites', { method: 'POST', token: u.token, json: { prompt_id: p.id } })
    const rows = await dumpTables(t, ['subscriptions.cancel_period_end'])
    const older = await olderCopyOf(t)
    const env = { ...older.env, ...(older.databaseUrl ? { DATABASE_URL: older.databaseUrl } : {}), DEMO_CATALOGUE: 'false', LOG_LEVEL: 'warn' }
    const runs = await Promise.all(Array.from({ length: 4 }, () => cliAsync(['migrate'], env, { timeoutMs: 25_000 })))
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(runs.map(() => [0, '']))
    const said = runs.map((r) => r.stdout.trim()).sort()
    expect(said).toEqual([`applied ${NEW_TAGS.join(', ')}`, 'database is up to date', 'database is up to date', 'database is up to date'])
    const migrated = await makeTestApp({ DEMO_CATALOGUE: 'false', ...older.env }, older.databaseUrl ? { databaseUrl: older.databaseUrl } : {})
    opened.push(migrated)
    const bookkeeping = PG ? 'drizzle.__drizzle_migrations' : '__drizzle_migrations'
    expect(await sqlNumber(migrated.storage, `SELECT count(*) FROM ${bookkeeping}`)).toBe(MIGRATIONS.length)
    expect(await sqlNumber(migrated.storage, `SELECT count(DISTINCT created_at) FROM ${bookkeeping}`)).toBe(MIGRATIONS.length)
    expect(await dumpTables(migrated, ['subscriptions.cancel_period_end'])).toEqual(rows)
    for (const p of PROMPTS) expect(await found(migrated, p.query)).toContain(p.id)
    expect((await migrated.request('/api/user/me', { token: u.token })).status).toBe(200)
  }, 30_000)
})

/** A second connection to the copied database that applies the remaining migrations. */
async function makeProbe(older: { env: Record<string, string>; databaseUrl: string | null }) {
  if (older.databaseUrl) {
    const storage = openPostgres(older.databaseUrl, { max: 1 })
    return { storage, applyRest: () => runPgMigrations(storage), close: () => storage.close() }
  }
  const db = openDatabase(join(older.env.DATA_DIR!, 'promptlib.db'))
  const storage = { engine: 'sqlite', write: async <T>(fn: (d: typeof db) => T) => fn(db) } as unknown as TestApp['storage']
  return { storage, applyRest: async () => runMigrations(db), close: async () => db.$client.close() }
}
