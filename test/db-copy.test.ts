// `promptlib db copy --to postgres://…`: a grown SQLite install moves to PostgreSQL with nothing
// lost (password hashes, tokens, favorites, history, usage, the catalogue and its search), and a
// target that holds data is refused. Runs on the suite's PostgreSQL pass (it needs a cluster).
import { describe, expect, test } from 'bun:test'
import { GOOD_PASSWORD, json, makeTestApp, register, setTier, TEST_ENGINE, TEST_JWT_SECRET } from './support/app'
import { loadTestCatalogue, promptIds } from './support/catalogue'
import { optimizeAll } from './support/optimizer'
import { emptyDatabaseUrl } from './support/postgres'
import { cli, startServer } from './support/process'
import { sqlNumber } from './support/sql'

describe.skipIf(TEST_ENGINE !== 'postgres')('promptlib db copy', () => {
  test('everything arrives, every count matches, and the copy serves the same answers', async () => {
    // The source: a SQLite install with some life in it.
    const source = await makeTestApp({}, { databaseUrl: null })
    await loadTestCatalogue(source)
    const ada = await register(source)
    await setTier(source, ada.user.id, 'pro')
    const pat = await json(await source.request('/api/user/tokens', { method: 'POST', token: ada.token, json: { name: 'laptop' } }))
    const [first, second] = await promptIds(source)
    for (const id of [first, second]) await source.request('/api/user/favorites', { method: 'POST', token: ada.token, json: { prompt_id: id } })
    await source.request(`/api/prompts/${first}`, { token: ada.token })
    await optimizeAll(source, ada.token, { prompt: 'Summarise this meeting in five bullet points.', mode: 'structured' })
    // A NUL that SQLite keeps in a prompt: PostgreSQL keeps optimizer prompts as bytes, so it travels too.
    await optimizeAll(source, ada.token, { prompt: 'Before the NUL\u0000after it.', mode: 'enhance' })
    const before = {
      me: await json(await source.request('/api/user/me', { token: ada.token })),
      favorites: await json(await source.request('/api/user/favorites', { token: ada.token })),
      history: await json(await source.request('/api/optimizer/history', { token: ada.token })),
      search: await json(await source.request('/api/search?q=email')),
      categories: await json(await source.request('/api/categories')),
    }

    const target = (await emptyDatabaseUrl())!
    const env = { DATA_DIR: source.dataDir }
    const copied = cli(['db', 'copy', '--to', target], env)
    expect(copied.stderr).not.toContain('promptlib:')
    expect(copied.code).toBe(0)
    expect(copied.stdout).toContain('every count matches')

    // The same requests against a server on the copy.
    const server = await startServer({ DATA_DIR: source.dataDir, DATABASE_URL: target, JWT_SECRET: TEST_JWT_SECRET, DEMO_CATALOGUE: 'false' })
    try {
      const get = async (path: string, token?: string) =>
        json(await fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }))
      expect(await get('/api/user/me', ada.token)).toEqual(before.me)
      expect(await get('/api/user/me', pat.token)).toEqual(before.me)
      expect(await get('/api/user/favorites', ada.token)).toEqual(before.favorites)
      expect(await get('/api/optimizer/history', ada.token)).toEqual(before.history)
      expect(before.history.items.map((h: { prompt: string }) => h.prompt)).toContain('Before the NUL\u0000after it.')
      expect(await get('/api/categories')).toEqual(before.categories)
      const search = await get('/api/search?q=email')
      expect(search.total).toBe(before.search.total)
      expect(new Set(search.items.map((p: { id: string }) => p.id))).toEqual(new Set(before.search.items.map((p: { id: string }) => p.id)))
      // the password hash came along
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ada.email, password: GOOD_PASSWORD }),
      })
      expect(login.status).toBe(200)
      // new rows continue after the copied ids (identity columns moved on)
      const newcomer = await fetch(`${server.url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'after-copy@example.com', password: GOOD_PASSWORD, name: 'After' }),
      })
      expect(newcomer.status).toBe(201)
      const favorite = await fetch(`${server.url}/api/user/favorites`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ada.token}` },
        body: JSON.stringify({ prompt_id: (await promptIds(source))[2] }),
      })
      expect(favorite.status).toBe(201)
    } finally {
      server.kill()
      await server.exited
    }

    // A second copy into the same (now full) database is refused, changing nothing.
    const users = await sqlNumber(source.storage, 'SELECT count(*) FROM users')
    const again = cli(['db', 'copy', '--to', target], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('not empty')
    expect(await sqlNumber(source.storage, 'SELECT count(*) FROM users')).toBe(users)
  }, 60_000)

  test('bad arguments are usage errors; a source on PostgreSQL is refused', async () => {
    expect(cli(['db', 'copy'], {}).code).toBe(2)
    expect(cli(['db', 'copy', '--to', 'mysql://x/y'], {}).code).toBe(2)
    // No host, or a password with a bare %: a usage error naming what is wrong, never a stack trace.
    for (const url of ['postgres://app:pw@/promptlib', 'postgres://app:p%ss@127.0.0.1/x'])
      expect(cli(['db', 'copy', '--to', url], {})).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^--to (is not a URL|needs a host name|has a % that starts no escape)/),
      })
    expect(cli(['db', 'frobnicate'], {}).code).toBe(2)
    const onPostgres = cli(['db', 'copy', '--to', 'postgres://127.0.0.1/x'], { DATABASE_URL: 'postgres://127.0.0.1/y' })
    expect(onPostgres.code).toBe(2)
    expect(onPostgres.stderr).toContain('unset DATABASE_URL')
  })
})
