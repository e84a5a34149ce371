// Races: a client's requests overlapping each other and other users' actions (favorites, daily
// quotas, the data export, account deletion). Every scenario fires real concurrent requests.
import { beforeAll, describe, expect, test } from 'bun:test'
import { json, makeTestApp, problem, register, setTier, TEST_ENGINE } from './support/app'
import { favoriteCount, importRecords, loadTestCatalogue, promptIds } from './support/catalogue'
import { sqlNumber, sqlRows } from './support/sql'

// More open streams than the default 3 per user: the quota, not the stream cap, is under test.
const t = await makeTestApp({}, { optimizerStream: { pingIntervalMs: 15_000, maxOpenStreamsPerUser: 50, maxStreamMs: 600_000 } })
let ids: string[] = []

beforeAll(async () => {
  await loadTestCatalogue(t)
  ids = await promptIds(t)
})

const add = (token: string, id: string) => t.request('/api/user/favorites', { method: 'POST', token, json: { prompt_id: id } })
const remove = (token: string, id: string) => t.request(`/api/user/favorites/${id}`, { method: 'DELETE', token })
const list = (token: string, q = '?limit=100') => t.request(`/api/user/favorites${q}`, { token })
const storedFavorites = (userId: string) => sqlNumber(t.storage, 'SELECT count(*) FROM favorites WHERE user_id = $1', [userId])
const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {})

describe('favorites under concurrency', () => {
  test('the same favorite added 20 times at once: one 201, nineteen 200 with the same body, counted once', async () => {
    const u = await register(t)
    const id = ids[0]!
    const before = await favoriteCount(t, id)
    const answers = await Promise.all(Array.from({ length: 20 }, () => add(u.token, id)))
    expect(tally(answers.map((r) => r.status))).toEqual({ 200: 19, 201: 1 })
    const bodies = await Promise.all(answers.map(json))
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
    expect(await storedFavorites(u.user.id)).toBe(1)
    expect(await favoriteCount(t, id)).toBe(before + 1)
  })

  test('the same favorite removed 20 times at once: one 204, nineteen 404', async () => {
    const u = await register(t)
    const id = ids[1]!
    expect((await add(u.token, id)).status).toBe(201)
    const before = await favoriteCount(t, id)
    const answers = await Promise.all(Array.from({ length: 20 }, () => remove(u.token, id)))
    expect(tally(answers.map((r) => r.status))).toEqual({ 204: 1, 404: 19 })
    expect(await storedFavorites(u.user.id)).toBe(0)
    expect(await favoriteCount(t, id)).toBe(before - 1)
  })

  test('adds and removes of one favorite interleaved: only contract answers, and the count matches the rows', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => register(t)))
    const id = ids[2]!
    const before = await favoriteCount(t, id)
    const answers = await Promise.all(users.flatMap((u) => Array.from({ length: 20 }, (_, i) => (i % 2 ? remove(u.token, id) : add(u.token, id)))))
    for (const r of answers) expect([200, 201, 204, 404]).toContain(r.status)
    const rows = await sqlNumber(t.storage, 'SELECT count(*) FROM favorites WHERE prompt_id = $1', [id])
    expect(await favoriteCount(t, id)).toBe(rows)
    expect(rows - before).toBe((await Promise.all(users.map((u) => storedFavorites(u.user.id)))).reduce((a, b) => a + b, 0))
  })

  test('favoriting while the account is deleted: no 5xx, nothing left behind, counts exact', async () => {
    for (let round = 0; round < 6; round++) {
      const u = await register(t)
      const targets = ids.slice(0, 12)
      const before = await Promise.all(targets.map((id) => favoriteCount(t, id)))
      // Adds one turn of the event loop after another for as long as the deletion runs: some are
      // authenticated before it commits and write after.
      let deleted = false
      const deletion = t.request('/api/user/me', { method: 'DELETE', token: u.token }).finally(() => {
        deleted = true
      })
      const adds: Promise<Response>[] = []
      for (let i = 0; !deleted && i < 400; i++) {
        adds.push(add(u.token, targets[i % targets.length]!))
        await new Promise((resolve) => setImmediate(resolve))
      }
      const answers = await Promise.all([...adds, deletion])
      expect(answers.at(-1)!.status).toBe(204)
      // Each add came either before the deletion (201, or 200 for a repeat; taken along) or after
      // it: the account is gone (401, as its token now gets everywhere), never "There is no prompt with this id".
      for (const r of answers.slice(0, -1)) {
        if (r.status === 201 || r.status === 200) continue
        await problem(r, 401, 'invalid_token')
        expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"')
      }
      expect(await storedFavorites(u.user.id)).toBe(0)
      expect(await Promise.all(targets.map((id) => favoriteCount(t, id)))).toEqual(before)
    }
  })

  test('the listing while favorites change: a page that holds them all has exactly `total` items', async () => {
    const u = await register(t)
    const targets = ids.slice(0, 30)
    let running = true
    const churning = (async () => {
      for (let i = 0; running; i++) {
        const id = targets[i % targets.length]!
        expect([200, 201, 204, 404]).toContain((await (i % 60 < 30 ? add(u.token, id) : remove(u.token, id))).status)
      }
    })()
    const incoherent: string[] = []
    for (let round = 0; round < 15; round++) {
      for (const r of await Promise.all(Array.from({ length: 4 }, () => list(u.token)))) {
        expect(r.status).toBe(200)
        const body = await json(r)
        if (body.items.length !== body.total) incoherent.push(`${body.items.length} items, total ${body.total}`)
      }
    }
    running = false
    await churning
    expect(incoherent).toEqual([])
    // Past the end: no items, and still the total (the count is read beside an empty page too).
    expect((await add(u.token, ids.at(-1)!)).status).toBe(201)
    const past = await json(await list(u.token, '?limit=5&offset=1000'))
    expect(past).toEqual({ items: [], total: await storedFavorites(u.user.id), limit: 5, offset: 1000 })
    expect(past.total).toBeGreaterThan(0)
  })
})

describe('favorites against a re-import of their prompts', () => {
  test('adds and removes while an import rewrites the same prompts: no 5xx, favorite_count equals the rows', async () => {
    const records = Array.from({ length: 20 }, (_, i) => ({
      id: `dddddddd-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      title: `Reimported ${i}`,
      category: 'reimport',
      content: `Version 0 of ${i}.`,
    }))
    await importRecords(t, { categories: [{ id: 'reimport', name: 'Reimport' }], prompts: records })
    const users = await Promise.all(Array.from({ length: 3 }, () => register(t)))
    for (let version = 1; version <= 3; version++) {
      const reimport = importRecords(t, { prompts: records.map((r) => ({ ...r, content: `Version ${version} of ${r.title}.` })) })
      const changes = users.flatMap((u, j) => records.map((r, i) => ((i + j + version) % 3 === 0 ? remove(u.token, r.id) : add(u.token, r.id))))
      const [, answers] = await Promise.all([reimport, Promise.all(changes)])
      for (const r of answers) expect([200, 201, 204, 404]).toContain(r.status)
    }
    for (const r of records) {
      const rows = await sqlNumber(t.storage, 'SELECT count(*) FROM favorites WHERE prompt_id = $1', [r.id])
      expect(await favoriteCount(t, r.id)).toBe(rows)
    }
    const listed = await json(await list(users[0]!.token))
    expect(listed.items.length).toBe(listed.total)
    for (const item of listed.items.filter((f: { category_id: string }) => f.category_id === 'reimport')) expect(item.title).toMatch(/^Reimported /)
  })
})

describe('the data export while the data changes', () => {
  test('favorites beyond one page: none twice, none that existed throughout missing', async () => {
    const extra = Array.from({ length: 1100 }, (_, i) => ({
      id: `eeeeeeee-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      title: `Bulk ${i}`,
      category: 'bulk',
      content: `Bulk prompt ${i}.`,
    }))
    await importRecords(t, { categories: [{ id: 'bulk', name: 'Bulk' }], prompts: extra })
    const u = await register(t)
    const steady = extra.slice(0, 1050).map((p) => p.id)
    await sqlRows(
      t.storage,
      `INSERT INTO favorites (user_id, prompt_id, created_at) SELECT $1, id, $2 FROM prompts WHERE title LIKE 'Bulk %' AND id <= $3`,
      [u.user.id, new Date(Date.now() - 60_000), steady.at(-1)!],
    )
    expect(await storedFavorites(u.user.id)).toBe(1050)
    const churn = extra.slice(1050).map((p) => p.id)
    // Favorites come and go one after another for as long as the exports run.
    let running = true
    const churning = (async () => {
      for (let i = 0; running; i++) {
        const id = churn[i % churn.length]!
        expect([200, 201, 204, 404]).toContain((await (i % 100 < 50 ? add(u.token, id) : remove(u.token, id))).status)
      }
    })()
    const answers: Response[] = []
    for (let round = 0; round < 8; round++) answers.push(await t.request('/api/user/export', { token: u.token }))
    running = false
    await churning
    for (const r of answers) {
      expect(r.status).toBe(200)
      const doc = await json(r)
      const got: string[] = doc.favorites.map((f: { prompt_id: string }) => f.prompt_id)
      expect(got.length - new Set(got).size).toBe(0)
      const present = new Set(got)
      expect(steady.filter((id) => !present.has(id))).toEqual([])
    }
  })
})

describe('daily quotas at the boundary', () => {
  test('a free user with 9 prompt views used: 20 concurrent opens of new prompts admit exactly one, re-opens stay free', async () => {
    const u = await register(t)
    for (const id of ids.slice(0, 9)) expect((await t.request(`/api/prompts/${id}`, { token: u.token })).status).toBe(200)
    const fresh = ids.slice(9, 29)
    const again = ids.slice(0, 9)
    const answers = await Promise.all([...fresh, ...again].map((id) => t.request(`/api/prompts/${id}`, { token: u.token })))
    expect(tally(answers.slice(0, 20).map((r) => r.status))).toEqual({ 200: 1, 429: 19 })
    expect(tally(answers.slice(20).map((r) => r.status))).toEqual({ 200: 9 })
    const me = await json(await t.request('/api/user/me', { token: u.token }))
    expect(me.usage.prompts_today).toBe(10)
  })

  test('one new prompt opened 20 times at once with 9 used: all 200, counted once', async () => {
    const u = await register(t)
    for (const id of ids.slice(0, 9)) expect((await t.request(`/api/prompts/${id}`, { token: u.token })).status).toBe(200)
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.request(`/api/prompts/${ids[9]}`, { token: u.token })))
    expect(tally(answers.map((r) => r.status))).toEqual({ 200: 20 })
    expect((await json(await t.request('/api/user/me', { token: u.token }))).usage.prompts_today).toBe(10)
    expect((await t.request(`/api/prompts/${ids[10]}`, { token: u.token })).status).toBe(429)
  })

  test('optimizations: 20 at once admit exactly the tier’s limit (free 3, starter 10)', async () => {
    for (const [tier, limit] of [
      ['free', 3],
      ['starter', 10],
    ] as const) {
      const u = await register(t)
      await setTier(t, u.user.id, tier)
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.request('/api/optimizer/optimize', { method: 'POST', token: u.token, json: { prompt: 'Write a poem', mode: 'enhance' } }),
        ),
      )
      await Promise.all(answers.map((r) => r.text()))
      expect(tally(answers.map((r) => r.status))).toEqual({ 200: limit, 429: 20 - limit })
      expect((await json(await t.request('/api/user/me', { token: u.token }))).usage.optimizations_today).toBe(limit)
    }
  })
  test('an upgrade in the middle of a burst: never more than the new limit, the counter equals what was admitted', async () => {
    const u = await register(t)
    const optimize = () => t.request('/api/optimizer/optimize', { method: 'POST', token: u.token, json: { prompt: 'Write a poem', mode: 'enhance' } })
    const burst = Array.from({ length: 10 }, optimize)
    await setTier(t, u.user.id, 'starter')
    const answers = [...(await Promise.all(burst)), ...(await Promise.all(Array.from({ length: 10 }, optimize)))]
    await Promise.all(answers.map((r) => r.text()))
    const admitted = answers.filter((r) => r.status === 200).length
    expect(tally(answers.map((r) => r.status))).toEqual({ 200: 10, 429: 10 })
    expect((await json(await t.request('/api/user/me', { token: u.token }))).usage.optimizations_today).toBe(admitted)
  })

  test('across UTC midnight: each day admits exactly its limit, and each answer names its own day', async () => {
    const subject = `user:midnight-${Date.now()}`
    const before = new Date('2031-03-01T23:59:59.999Z')
    const after = new Date('2031-03-02T00:00:00.000Z')
    const takes = Array.from({ length: 20 }, (_, i) =>
      t.services.usage.consume({ subject, metric: 'optimizations', limit: 3, now: i % 2 ? after : before }),
    )
    const results = await Promise.all(takes)
    for (const [i, r] of results.entries()) {
      expect(r.quota.day).toBe(i % 2 ? '2031-03-02' : '2031-03-01')
      expect(r.quota.resetsAt.toISOString()).toBe(i % 2 ? '2031-03-03T00:00:00.000Z' : '2031-03-02T00:00:00.000Z')
    }
    expect(results.filter((r, i) => r.allowed && i % 2 === 0).length).toBe(3)
    expect(results.filter((r, i) => r.allowed && i % 2 === 1).length).toBe(3)
    expect(await t.services.usage.used(subject, 'optimizations', before)).toBe(3)
    expect(await t.services.usage.used(subject, 'optimizations', after)).toBe(3)
  })
})

describe('account deletion against metered requests', () => {
  test('prompt views while the account is deleted: each answered 200 or 401, never 5xx', async () => {
    for (let round = 0; round < 3; round++) {
      const u = await register(t)
      const views = ids.slice(0, 8).map((id) => t.request(`/api/prompts/${id}`, { token: u.token }))
      const answers = await Promise.all([...views, t.request('/api/user/me', { method: 'DELETE', token: u.token })])
      expect(answers.at(-1)!.status).toBe(204)
      for (const r of answers.slice(0, -1)) expect([200, 401]).toContain(r.status)
    }
  })

  // The history row of a call authenticated just before the deletion was inserted after it; its
  // foreign key failed and the client got 500. Now the call is refused as the token is: 401.
  test('optimizations while the account is deleted: 200 or 401, never 500', async () => {
    const u = await register(t)
    const runs = Array.from({ length: 4 }, () =>
      t.request('/api/optimizer/optimize', { method: 'POST', token: u.token, json: { prompt: 'Hi there', mode: 'enhance' } }),
    )
    const answers = await Promise.all([...runs, t.request('/api/user/me', { method: 'DELETE', token: u.token })])
    await Promise.all(answers.map((r) => r.text()))
    expect(answers.at(-1)!.status).toBe(204)
    // 429: a free user's fourth run of the day, when all four come before the deletion.
    for (const r of answers.slice(0, -1)) expect([200, 401, 429]).toContain(r.status)
  })

  // On PostgreSQL the cascade deleted the user's favorites in the order of the rows, and each
  // deletion's trigger locked its prompt: two accounts that favorited the same prompts in other
  // orders deadlocked (40P01) and one DELETE /api/user/me answered 500 after a second's wait.
  // The count trigger now locks the prompts of a statement by id first (migration pg 0010).
  test('accounts with the same favorites deleted at once: every deletion 204', async () => {
    const targets = ids.slice(0, 20)
    const statuses: number[] = []
    for (let round = 0; round < 5; round++) {
      const users = await Promise.all(Array.from({ length: 4 }, () => register(t)))
      for (let k = 0; k < targets.length; k++) {
        await Promise.all(users.map((u, j) => add(u.token, targets[j % 2 ? k : targets.length - 1 - k]!)))
      }
      const answers = await Promise.all(users.map((u) => t.request('/api/user/me', { method: 'DELETE', token: u.token })))
      statuses.push(...answers.map((r) => r.status))
    }
    expect(statuses.filter((s) => s !== 204)).toEqual([])
  })

  test('the export while the account is deleted: 200 with a whole document or 401, never 5xx', async () => {
    for (let round = 0; round < 3; round++) {
      const u = await register(t)
      await add(u.token, ids[0]!)
      const exports = Array.from({ length: 6 }, () => t.request('/api/user/export', { token: u.token }))
      const answers = await Promise.all([...exports, t.request('/api/user/me', { method: 'DELETE', token: u.token })])
      expect(answers.at(-1)!.status).toBe(204)
      for (const r of answers.slice(0, -1)) {
        if (r.status === 401) continue
        expect(r.status).toBe(200)
        const doc = await json(r)
        expect(doc.account.id).toBe(u.user.id)
        for (const key of ['subscription', 'favorites', 'tokens', 'optimizer_history', 'payments']) expect(doc[key]).toBeDefined()
      }
    }
  })
})

describe('beyond this area', () => {
  // On PostgreSQL the history's page and its total were two queries on two connections, as
  // favorites' were: while calls ran, a page holding every entry disagreed with its total.
  test('the optimizer history while calls run: a page that holds them all has exactly `total` items', async () => {
    const u = await register(t)
    await setTier(t, u.user.id, 'pro')
    let calling = true
    const calls = (async () => {
      for (let i = 0; i < 60; i++) {
        await (await t.request('/api/optimizer/optimize', { method: 'POST', token: u.token, json: { prompt: `Poem ${i}`, mode: 'enhance' } })).text()
      }
      calling = false
    })()
    const incoherent: string[] = []
    // A turn of the event loop between rounds: in-process requests that only read never yield to it.
    for (let round = 0; calling && round < 300; round++) {
      await new Promise((resolve) => setImmediate(resolve))
      for (const r of await Promise.all(Array.from({ length: 4 }, () => t.request('/api/optimizer/history?limit=100', { token: u.token })))) {
        const body = await json(r)
        if (body.items.length !== body.total) incoherent.push(`${body.items.length} items, total ${body.total}`)
      }
    }
    await calls
    expect(incoherent).toEqual([])
  })
})
