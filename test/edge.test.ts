// The server edge: CORS, early 413, security headers, the route template in the access log.
import { describe, expect, test } from 'bun:test'
import { ACTS_ON_GET, indexRoutes, pathnameOf } from '../src/http/routes-index'
import { makeTestApp, problem, register, TEST_ENGINE } from './support/app'

describe('CORS', async () => {
  const t = await makeTestApp({ CORS_ORIGINS: 'https://app.example.com' })

  test('an allowed origin gets the CORS headers, on errors too', async () => {
    for (const path of ['/api/health', '/api/user/me']) {
      const res = await t.request(path, { headers: { origin: 'https://app.example.com' } })
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      expect(res.headers.get('access-control-expose-headers')).toContain('x-request-id')
      expect(res.headers.get('vary')).toContain('Origin')
    }
  })

  test('another origin gets none', async () => {
    const res = await t.request('/api/health', { headers: { origin: 'https://evil.example.com' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('a preflight from an allowed origin → 204 with methods and headers', async () => {
    const res = await t.request('/api/user/tokens', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization')
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  test('without CORS_ORIGINS no CORS headers are sent at all', async () => {
    const plain = await makeTestApp()
    const res = await plain.request('/api/health', { headers: { origin: 'https://app.example.com' } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('CORS_ORIGINS=* allows any origin', async () => {
    const any = await makeTestApp({ CORS_ORIGINS: '*' })
    const res = await any.request('/api/health', { headers: { origin: 'https://anything.example.org' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anything.example.org')
  })
})

describe('edge answers', async () => {
  const t = await makeTestApp()

  test('an announced body over 1 MiB is refused before it is read, with the usual headers', async () => {
    const res = await t.request('/api/auth/login', {
      method: 'POST',
      body: 'x'.repeat(1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    })
    const id = res.headers.get('x-request-id')
    await problem(res, 413, 'payload_too_large')
    expect(id).toBeTruthy()
  })

  test('every response says nosniff: plain, fixed, created, refused and unknown', async () => {
    const responses = [
      await t.request('/api/health'),
      await t.request('/api/health', { method: 'HEAD' }),
      await t.request('/api/docs'),
      await t.request('/api/openapi.json'),
      await t.request('/api/auth/register', {
        method: 'POST',
        json: { email: 'nosniff@example.com', password: 'Correct-Horse-Battery-9', name: 'N' },
      }),
      await t.request('/api/auth/register', { method: 'POST', json: { email: 'nope' } }),
      await t.request('/api/nope'),
      await t.request('/api/user/me'),
    ]
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 201, 422, 404, 401])
    for (const res of responses) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  test('the access log names the route template, never the raw path or query', async () => {
    const { token } = await register(t)
    await t.request('/api/user/tokens/some-token-id?x=secret-query', { method: 'DELETE', token, headers: { 'x-request-id': 'edge-log-1' } })
    await t.request('/api/no/such/thing', { headers: { 'x-request-id': 'edge-log-2' } })
    const lines = t.log.lines()
    expect(lines.find((l) => l.request_id === 'edge-log-1')).toMatchObject({ route: '/api/user/tokens/:token_id', method: 'DELETE', status: 404 })
    expect(lines.find((l) => l.request_id === 'edge-log-2')).toMatchObject({ route: null, status: 404 })
    expect(t.log.text()).not.toContain('secret-query')
    expect(t.log.text()).not.toContain('some-token-id')
  })
})

describe('request ids', async () => {
  const t = await makeTestApp()
  const idOf = (res: Response) => res.headers.get('x-request-id')

  test('each response carries its own id: generated, or the incoming one echoed', async () => {
    const paths = ['/api/health', '/api/docs', '/api/openapi.json', '/api/nope', '/api/user/me', '/api/categories']
    for (const path of paths) {
      const [a, b] = [await t.request(path), await t.request(path)]
      expect(idOf(a)).toMatch(/^[0-9a-f-]{36}$/)
      expect(idOf(b)).toMatch(/^[0-9a-f-]{36}$/)
      expect(idOf(a)).not.toBe(idOf(b))
      expect(idOf(await t.request(path, { headers: { 'x-request-id': `echo.${path.length}` } }))).toBe(`echo.${path.length}`)
    }
    // HEAD is answered from the GET handler, the fixed docs page included
    expect(idOf(await t.request('/api/docs', { method: 'HEAD', headers: { 'x-request-id': 'head-1' } }))).toBe('head-1')
  })

  test('an incoming id outside [A-Za-z0-9._-]{1,128} is replaced', async () => {
    for (const bad of ['a b', 'x'.repeat(129), 'id"quote', 'a/b', '{{x}}']) {
      const id = idOf(await t.request('/api/health', { headers: { 'x-request-id': bad } }))
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  test('concurrent requests, fast and slow, never swap ids', async () => {
    const { token } = await register(t)
    const sent = Array.from({ length: 60 }, (_, i) => `concurrent-${i}`)
    const responses = await Promise.all(
      sent.map((id, i) =>
        t.request(i % 3 === 0 ? '/api/health' : i % 3 === 1 ? '/api/user/me' : '/api/auth/login', {
          method: i % 3 === 2 ? 'POST' : 'GET',
          token: i % 3 === 1 ? token : undefined,
          json: i % 3 === 2 ? { email: 'nobody@example.com', password: 'wrong-password-123' } : undefined,
          headers: { 'x-request-id': id },
        }),
      ),
    )
    expect(responses.map(idOf)).toEqual(sent)
  })
})

describe('synchronous answers', async () => {
  const t = await makeTestApp()

  // A promise per request costs light endpoints a visible share of their throughput: health
  // checks (SQLite: a synchronous query; PostgreSQL's is a round trip) and the cached category
  // tree (once the first request has loaded it) are answered synchronously, straight through the edge.
  test('GET /api/health (SQLite) and /api/categories are answered without a promise', async () => {
    const first = t.handle(new Request('http://localhost/api/categories'))
    expect((await first).status).toBe(200)
    for (const path of TEST_ENGINE === 'sqlite' ? ['/api/health', '/api/categories'] : ['/api/categories']) {
      const answer = t.handle(new Request(`http://localhost${path}`))
      expect(answer).toBeInstanceOf(Response)
      expect((answer as Response).status).toBe(200)
    }
  })

  test('/api/categories waits for the database only the first time, and after a second without requests', async () => {
    const fresh = await makeTestApp()
    const first = fresh.handle(new Request('http://localhost/api/categories'))
    expect(first).toBeInstanceOf(Promise)
    expect((await first).status).toBe(200)
    expect(fresh.handle(new Request('http://localhost/api/categories'))).toBeInstanceOf(Response)
    await Bun.sleep(1050)
    const late = fresh.handle(new Request('http://localhost/api/categories'))
    expect(late).toBeInstanceOf(Promise)
    expect(await (await late).json()).toEqual({ items: [] })
  })
})

describe('hosts', async () => {
  const t = await makeTestApp()
  // Behind a proxy the Host is often an upstream or service name ("api", "web") on port 80.
  // Elysia by default assumes hosts of 4+ characters (elysiajs/elysia#748) and would route
  // http://api/api/health as /health.
  test('short host names route like any other', async () => {
    for (const host of ['a', 'db', 'api', 'a:1', 'web.', 'localhost', '[::1]']) {
      const res = await t.handle(new Request(`http://${host}/api/health`))
      expect({ host, status: res.status }).toEqual({ host, status: 200 })
      // a parameter and a query string, parsed from the same URL
      const prompts = await t.handle(new Request(`http://${host}/api/categories/no-such/prompts?limit=1`))
      expect({ host, status: prompts.status }).toEqual({ host, status: 404 })
      expect(await prompts.json()).toMatchObject({ code: 'not_found', detail: 'There is no category "no-such".' })
    }
  })
})

describe('route index', async () => {
  const index = indexRoutes([
    { method: 'GET', path: '/api/skills/search' },
    { method: 'GET', path: '/api/skills/:skill_id' },
    { method: 'GET', path: '/api/categories/:category_id/prompts' },
    { method: 'DELETE', path: '/api/user/me' },
  ])

  test('static paths win over parameters; methods are distinct', () => {
    expect(index.find('GET', '/api/skills/search')).toBe('/api/skills/search')
    expect(index.find('GET', '/api/skills/code-review')).toBe('/api/skills/:skill_id')
    expect(index.find('GET', '/api/categories/writing/prompts')).toBe('/api/categories/:category_id/prompts')
    expect(index.find('GET', '/api/categories/writing/prompts/x')).toBeNull()
    expect(index.find('GET', '/api/user/me')).toBeNull()
    expect(index.find('DELETE', '/api/user/me')).toBe('/api/user/me')
  })

  test('HEAD is logged as the GET route it is answered by', () => {
    expect(index.find('HEAD', '/api/skills/code-review')).toBe('/api/skills/:skill_id')
    expect(index.find('HEAD', '/api/user/me')).toBeNull()
  })

  test('methodsAt: every method a path has, HEAD wherever GET; none for an unknown path', () => {
    const more = indexRoutes([
      { method: 'DELETE', path: '/api/user/me' },
      { method: 'GET', path: '/api/user/me' },
      { method: 'POST', path: '/api/user/favorites' },
      { method: 'GET', path: '/api/user/favorites' },
      { method: 'DELETE', path: '/api/user/favorites/:prompt_id' },
    ])
    expect(more.methodsAt('/api/user/me')).toEqual(['GET', 'HEAD', 'DELETE'])
    expect(more.methodsAt('/api/user/favorites')).toEqual(['GET', 'HEAD', 'POST'])
    expect(more.methodsAt('/api/user/favorites/123')).toEqual(['DELETE'])
    expect(more.methodsAt('/api/user/nothing')).toEqual([])
  })

  test('a GET that acts (ACTS_ON_GET) does not answer HEAD: no route, and HEAD is not among its methods', () => {
    const acting = indexRoutes([
      { method: 'GET', path: '/api/auth/callback/a', hooks: { detail: { ...ACTS_ON_GET, summary: 'x' } } },
      { method: 'GET', path: '/api/prompts/:id', hooks: { detail: { summary: 'y' } } },
      { method: 'ALL', path: '/*' },
    ])
    expect(acting.find('GET', '/api/auth/callback/a')).toBe('/api/auth/callback/a')
    expect(acting.find('HEAD', '/api/auth/callback/a')).toBeNull()
    expect(acting.methodsAt('/api/auth/callback/a')).toEqual(['GET', 'ALL'])
    expect(acting.find('HEAD', '/api/prompts/1')).toBe('/api/prompts/:id')
    expect(acting.find('HEAD', '/elsewhere')).toBe('/*')
  })

  test('a route of any method (ALL) answers every method', () => {
    const all = indexRoutes([{ method: 'ALL', path: '/api/mcp' }])
    expect(all.find('PATCH', '/api/mcp')).toBe('/api/mcp')
    expect(all.find('GET', '/api/other')).toBeNull()
  })

  test('pathnameOf drops the query string', () => {
    expect(pathnameOf('http://localhost/api/search?q=a/b')).toBe('/api/search')
    expect(pathnameOf('http://127.0.0.1:8000/')).toBe('/')
    expect(pathnameOf('http://h')).toBe('/')
  })
})

describe('methods', async () => {
  const t = await makeTestApp()

  test('a known path with another method → 405 method_not_allowed with Allow, before authentication', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/user/me', 'GET, HEAD, DELETE, OPTIONS'],
      ['PUT', '/api/user/tokens/some-id', 'DELETE, OPTIONS'],
      ['GET', '/api/auth/login', 'POST, OPTIONS'],
      ['PATCH', '/api/user/favorites', 'GET, HEAD, POST, OPTIONS'],
      ['DELETE', '/api/health', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/api/categories/writing', 'GET, HEAD, OPTIONS'],
    ]
    for (const [method, path, allow] of cases) {
      const res = await t.request(path, { method, headers: { 'x-request-id': `method-${method}` } })
      expect({ method, path, allow: res.headers.get('allow') }).toEqual({ method, path, allow })
      expect(res.headers.get('x-request-id')).toBe(`method-${method}`)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      const body = await problem(res, 405, 'method_not_allowed')
      expect(body.title).toBe('Method Not Allowed')
    }
  })

  test('HEAD on a path without GET → 405 too, with no body', async () => {
    const res = await t.request('/api/auth/login', { method: 'HEAD' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST, OPTIONS')
  })

  test('an unknown path stays 404 whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
      const res = await t.request('/api/no/such/path', { method })
      expect(res.headers.get('allow')).toBeNull()
      await problem(res, 404, 'not_found')
    }
  })

  test('OPTIONS on a known path (not a CORS preflight) → 204 with Allow', async () => {
    const res = await t.request('/api/user/me', { method: 'OPTIONS' })
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS')
    expect(await res.text()).toBe('')
  })

  test('a preflight from an allowed origin is still the CORS answer, and Allow is readable cross-origin', async () => {
    const cors = await makeTestApp({ CORS_ORIGINS: 'https://app.example.com' })
    const origin = 'https://app.example.com'
    const preflight = await cors.request('/api/user/me', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'DELETE' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE')
    const refused = await cors.request('/api/user/me', { method: 'PUT', headers: { origin } })
    expect(refused.status).toBe(405)
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin)
    expect(refused.headers.get('access-control-expose-headers')).toContain('allow')
  })

  test('the access log shows the 405 with no route', async () => {
    await t.request('/api/user/me', { method: 'POST', headers: { 'x-request-id': 'method-log-1' } })
    expect(t.log.lines().find((l) => l.request_id === 'method-log-1')).toMatchObject({ method: 'POST', route: null, status: 405 })
  })
})
