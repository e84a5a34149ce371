// What an adversarial review of the edge found (CORS, methods, request bodies, the user export);
// each test failed before its fix. On both engines.
import { describe, expect, test } from 'bun:test'
import { gzipSync } from 'node:zlib'
import { json, makeTestApp, problem, register, setTier, type TestApp } from './support/app'
import { sqlRun } from './support/sql'

describe('CORS: Vary: Origin on every answer once CORS is on', async () => {
  const origin = 'https://app.example.com'
  const listed = await makeTestApp({ CORS_ORIGINS: origin })
  const any = await makeTestApp({ CORS_ORIGINS: '*' })

  // A cache that stored an answer without Vary (no Origin, or an origin not listed) serves it to a
  // listed origin without Access-Control-Allow-Origin (Fetch standard, "CORS protocol and HTTP caches").
  test('without an Origin, from an origin not listed, on errors, 405s and web pages', async () => {
    const cases: [TestApp, string, RequestInit][] = [
      [listed, '/api/health', {}],
      [listed, '/api/health', { headers: { origin: 'https://evil.example.com' } }],
      [listed, '/api/health', { headers: { origin: 'null' } }],
      [listed, '/api/categories', {}],
      [listed, '/api/user/me', {}],
      [listed, '/api/no/such/path', {}],
      [listed, '/api/user/me', { method: 'PUT' }],
      [listed, '/api/user/me', { method: 'OPTIONS', headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' } }],
      [listed, '/', {}],
      [any, '/api/health', {}],
    ]
    for (const [t, path, init] of cases) {
      const res = await t.request(path, init)
      const vary = (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase())
      expect({ path, method: init.method ?? 'GET', vary }).toEqual({ path, method: init.method ?? 'GET', vary: expect.arrayContaining(['origin']) })
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  test('an allowed origin still gets its headers, Origin named once in Vary; without CORS_ORIGINS nothing changes', async () => {
    const res = await listed.request('/api/health', { headers: { origin } })
    expect(res.headers.get('access-control-allow-origin')).toBe(origin)
    expect(res.headers.get('vary')).toBe('Origin')
    const page = await listed.request('/', { headers: { origin } })
    expect(page.headers.get('vary')).toBe('Accept-Encoding, Origin')
    const plain = await makeTestApp()
    const off = await plain.request('/api/health', { headers: { origin } })
    expect(off.headers.get('vary')).toBeNull()
    expect(off.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('a path with a trailing slash is the same route (Elysia answers it)', async () => {
  const t = await makeTestApp()

  test('other methods → 405 with Allow, OPTIONS → 204 with Allow, and the access log names the route', async () => {
    const refused = await t.request('/api/user/me/', { method: 'POST' })
    expect(refused.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS')
    await problem(refused, 405, 'method_not_allowed')
    const options = await t.request('/api/user/tokens/some-id/', { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('DELETE, OPTIONS')

    const { token } = await register(t)
    const ok = await t.request('/api/user/me/', { token, headers: { 'x-request-id': 'trailing-slash-1' } })
    expect(ok.status).toBe(200)
    expect(t.log.lines().find((l) => l.request_id === 'trailing-slash-1')).toMatchObject({ route: '/api/user/me', status: 200 })
    // Only one slash: a path Elysia does not answer stays unknown.
    await problem(await t.request('/api/user/me//', { method: 'POST' }), 404, 'not_found')
  })
})

describe('a compressed request body', async () => {
  const t = await makeTestApp()
  const gzipped = (value: unknown) => gzipSync(JSON.stringify(value))

  // Never decoded: its bytes were read as if they were the JSON (400 "not valid UTF-8").
  test('Content-Encoding: gzip → 415 with Accept-Encoding: identity (RFC 7694), on open and guarded routes', async () => {
    const login = await t.request('/api/auth/login', {
      method: 'POST',
      body: gzipped({ email: 'a@example.com', password: 'a long passphrase' }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    expect(login.headers.get('accept-encoding')).toBe('identity')
    expect(login.headers.get('x-request-id')).toBeTruthy()
    await problem(login, 415, 'unsupported_media_type')

    const { token } = await register(t)
    const favorite = await t.request('/api/user/favorites', {
      method: 'POST',
      token,
      body: gzipped({ prompt_id: '11111111-1111-4111-8111-111111111111' }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    })
    await problem(favorite, 415, 'unsupported_media_type')
    // Authentication still comes first.
    const anonymous = await t.request('/api/user/favorites', {
      method: 'POST',
      body: gzipped({}),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    await problem(anonymous, 401, 'missing_token')
  })

  test('Content-Encoding: identity is no coding: the body is read as usual', async () => {
    const res = await t.request('/api/auth/login', {
      method: 'POST',
      body: JSON.stringify({ email: 'nobody@example.com', password: 'a long passphrase' }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
    })
    await problem(res, 401, 'invalid_credentials')
  })
})

describe('GET /api/user/export of a long optimizer history', async () => {
  const t = await makeTestApp()

  /** `count` finished history rows for `userId`, newest `newest`, one millisecond apart, in one statement. */
  async function history(userId: string, count: number, newest: Date, prefix: string) {
    const query =
      t.storage.engine === 'postgres'
        ? `INSERT INTO optimization_history (id, user_id, mode, prompt, optimized_prompt, engine, status, created_at)
           SELECT $4 || i, $1, 'enhance', convert_to('prompt ' || i, 'UTF8'), convert_to('better ' || i, 'UTF8'), 'builtin', 'completed',
                  $3::timestamptz - i * interval '1 millisecond'
           FROM generate_series(1, $2::int) AS i`
        : `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
           INSERT INTO optimization_history (id, user_id, mode, prompt, optimized_prompt, engine, status, created_at)
           SELECT $4 || i, $1, 'enhance', 'prompt ' || i, 'better ' || i, 'builtin', 'completed', $3 - i FROM n`
    await sqlRun(t.storage, query, [userId, count, newest, prefix])
  }

  // Read by offset, a hundred at a time, each page with its own count: 7.8 s for 100,000 entries here.
  test('100,000 entries: every one, in one document, in well under the time a page-by-page read took', async () => {
    const me = await register(t)
    await setTier(t, me.user.id, 'pro')
    await history(me.user.id, 100_000, new Date(), `${me.user.id}-`)
    const started = performance.now()
    const res = await t.request('/api/user/export', { token: me.token })
    const body = await json(res)
    const elapsed = performance.now() - started
    expect(body.optimizer_history).toHaveLength(100_000)
    expect(body.optimizer_history[0].prompt).toBe('prompt 1')
    expect(body.optimizer_history.at(-1).prompt).toBe('prompt 100000')
    expect(elapsed).toBeLessThan(3_000)
  }, 60_000)

  // Each page was its own read: an optimization that started meanwhile (newest first; a stream on
  // another instance, or this one's on PostgreSQL, whose reads wait on the network) pushed the
  // entries down, and the last entry of a page came back as the first of the next. (SQLite in one
  // process read every page before another write could land: there the test cannot fail.)
  test('entries written during the export do not make it list one twice', async () => {
    const me = await register(t)
    await setTier(t, me.user.id, 'pro')
    await history(me.user.id, 2_000, new Date(Date.now() - 60_000), `${me.user.id}-old-`)
    let done = false
    let written = 0
    const writer = (async () => {
      while (!done && written < 1_000) {
        await history(me.user.id, 1, new Date(Date.now() + 1_000 + written), `${me.user.id}-new-${written++}-`)
        // a turn of the event loop for the export (a SQLite write can complete without one)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const exported = await json(await t.request('/api/user/export', { token: me.token }))
    done = true
    await writer
    const ids: string[] = exported.optimizer_history.map((entry: { id: string }) => entry.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.filter((id) => id.includes('-old-'))).toHaveLength(2_000)
  }, 30_000)
})
