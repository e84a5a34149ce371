// The one error shape (contract section 2) for everything a client can get wrong, and the
// request id on every response.
import { describe, expect, test } from 'bun:test'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { t as tType } from 'elysia'
import { json, makeTestApp, problem, uniqueEmail, GOOD_PASSWORD } from './support/app'
import { sqlRows } from './support/sql'

const t = await makeTestApp()
// A route that fails unexpectedly, to see what a 500 looks like (mounted after the plumbing,
// like every feature).
t.app.get('/api/test-only/boom', () => {
  throw new Error('SELECT * FROM users WHERE secret at /srv/promptlib/src/db.ts:42')
})

// A NUL that reaches a statement: PostgreSQL refuses it for real; SQLite stores it, so there the
// route throws what PostgreSQL's driver would (drizzle's error around code 22021).
t.app.get('/api/test-only/nul', async () => {
  if (t.storage.engine === 'postgres') return sqlRows(t.storage, 'SELECT $1::text AS v', ['a\u0000b'])
  const refusal = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })
  throw new DrizzleQueryError('SELECT $1::text AS v', ['a\u0000b'], refusal)
})

// A route whose answer breaks its own schema (a defect on our side), holding a secret-like value.
t.app.get('/api/test-only/bad-answer', () => ({ token: 42, note: 'plib_pat_secret-value' }) as unknown as { token: string; note: string }, {
  response: { 200: tType.Object({ token: tType.String(), note: tType.String() }) },
})

const post = (body: string | Uint8Array | null, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  t.request('/api/auth/register', { method: 'POST', body, headers })

describe('error shape', async () => {
  test('unknown route → 404 not_found problem', async () => {
    const res = await t.request('/api/does-not-exist')
    const body = await problem(res, 404, 'not_found')
    expect(body.type).toBe('about:blank')
    expect(body.title).toBe('Not Found')
    expect(body.status).toBe(404)
  })

  test('outside /api the web app answers (its page); a missing file there is a 404 problem', async () => {
    const page = await t.request('/nothing/here')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toStartWith('text/html')
    await problem(await t.request('/nothing/here.js'), 404, 'not_found')
    await problem(await t.request('/api'), 404, 'not_found')
  })

  test('malformed JSON → 400 malformed_json', async () => {
    await problem(await post('{"email": "a@b.c",'), 400, 'malformed_json')
  })

  test('empty body → 400 malformed_json', async () => {
    await problem(await post(''), 400, 'malformed_json')
  })

  test('invalid UTF-8 → 400 malformed_json', async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) // {"a":"\xff\xfe"}
    const body = await problem(await post(bytes), 400, 'malformed_json')
    expect(String(body.detail)).toContain('UTF-8')
  })

  test('a JSON array instead of an object → 422 validation_failed', async () => {
    const body = await problem(await post('[1,2,3]'), 422, 'validation_failed')
    expect(Array.isArray(body.errors)).toBe(true)
  })

  test('JSON null and a bare string → 422', async () => {
    await problem(await post('null'), 422, 'validation_failed')
    await problem(await post('"hello"'), 422, 'validation_failed')
  })

  test('wrong content type → 415 unsupported_media_type', async () => {
    const res = await post(JSON.stringify({ email: uniqueEmail(), password: GOOD_PASSWORD, name: 'x' }), { 'content-type': 'text/plain' })
    await problem(res, 415, 'unsupported_media_type')
    const form = await post('email=a%40b.c', { 'content-type': 'application/x-www-form-urlencoded' })
    await problem(form, 415, 'unsupported_media_type')
  })

  test('body over 1 MiB → 413 payload_too_large, before anything is stored', async () => {
    const email = uniqueEmail()
    const huge = JSON.stringify({ email, password: GOOD_PASSWORD, name: 'x'.repeat(1024 * 1024) })
    await problem(await post(huge), 413, 'payload_too_large')
    const login = await t.request('/api/auth/login', { method: 'POST', json: { email, password: GOOD_PASSWORD } })
    await problem(login, 401, 'invalid_credentials')
  })

  test('body over 1 MiB without Content-Length (chunked) → 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close()
        sent++
        controller.enqueue(chunk)
      },
    })
    const res = await t.handle(
      new Request('http://localhost/api/auth/register', { method: 'POST', body: stream, headers: { 'content-type': 'application/json' } }),
    )
    await problem(res, 413, 'payload_too_large')
  })

  test('unexpected exception → 500 internal_error, nothing internal in the body, logged with the request id', async () => {
    const res = await t.request('/api/test-only/boom', { headers: { 'x-request-id': 'boom-request-1' } })
    const text = await res.clone().text()
    await problem(res, 500, 'internal_error')
    for (const leak of ['SELECT', 'secret', '/srv/', 'db.ts', 'at ']) expect(text).not.toContain(leak)
    const logged = t.log.lines().find((l) => l.msg === 'unhandled error' && l.request_id === 'boom-request-1')
    expect(logged).toBeDefined()
  })

  test('a query integer out of range names its parameter (Elysia checks it alone, without a path)', async () => {
    const cases: [string, string][] = [
      ['limit=0', '/limit'],
      ['limit=%20', '/limit'],
      ['limit=99999999999999999999', '/limit'],
      ['offset=-1', '/offset'],
      ['limit=abc', '/limit'],
    ]
    for (const [query, path] of cases) {
      const body = await problem(await t.request(`/api/search?q=a&${query}`), 422, 'validation_failed')
      expect({ query, paths: (body.errors as { path: string }[]).map((e) => e.path) }).toEqual({ query, paths: [path] })
    }
  })

  test('a query integer is decimal digits: hex, exponents, signs, spaces and fractions are 422 naming the parameter, not read by Number()', async () => {
    for (const value of ['0x10', '1e1', '%205', '5%20', '5.0', '+5', '0b11', '0o7', '-0', 'Infinity']) {
      for (const name of ['limit', 'offset']) {
        const body = await problem(await t.request(`/api/search?q=a&${name}=${value}`), 422, 'validation_failed')
        expect({ value, errors: body.errors }).toEqual({
          value,
          errors: [{ path: `/${name}`, message: `Property '${name}' must be a whole number in decimal digits` }],
        })
      }
    }
    // Digits are read as written, leading zeros included.
    const page = await json(await t.request('/api/search?q=a&limit=010&offset=0'))
    expect({ limit: page.limit, offset: page.offset }).toEqual({ limit: 10, offset: 0 })
  })

  test('an answer that fails its own schema → 500 internal_error, logged with its fields but not its values', async () => {
    const res = await t.request('/api/test-only/bad-answer', { headers: { 'x-request-id': 'bad-answer-1' } })
    const text = await res.clone().text()
    await problem(res, 500, 'internal_error')
    for (const leak of ['token', 'plib_pat_', '42']) expect(text).not.toContain(leak)
    const logged = t.log.lines().find((l) => l.msg === 'an answer failed its own schema' && l.request_id === 'bad-answer-1')
    expect(logged?.fields).toEqual([{ path: '/token', message: expect.any(String) }])
    expect(JSON.stringify(logged)).not.toContain('plib_pat_')
  })

  test('a failure in a check that runs before the body (the login rate limit, on a closed database) is 500, not malformed_json', async () => {
    const broken = await makeTestApp({ AUTH_RATE_LIMIT: '10' })
    await broken.storage.close()
    const res = await broken.request('/api/auth/login', {
      method: 'POST',
      json: { email: uniqueEmail(), password: GOOD_PASSWORD },
      headers: { 'x-request-id': 'before-body-1' },
    })
    await problem(res, 500, 'internal_error')
    expect(broken.log.lines().find((l) => l.msg === 'unhandled error' && l.request_id === 'before-body-1')).toBeDefined()
    // A body that is not JSON is still the client's mistake.
    await problem(await post('{"email": '), 400, 'malformed_json')
  })
})

describe('a NUL (U+0000) that gets as far as PostgreSQL', () => {
  test('is the client’s 422, not a 500; logged as a warning without the statement’s parameters', async () => {
    const before = t.log.lines().length
    const body = await problem(await t.request('/api/test-only/nul'), 422, 'validation_failed')
    expect(body.detail).toContain('NUL')
    const lines = t.log.lines().slice(before)
    expect(lines.filter((l) => l.level === 'error')).toEqual([])
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['a NUL reached PostgreSQL; refused'])
  })
})

describe('X-Request-Id', async () => {
  test('generated when absent, on success and on errors', async () => {
    const ok = await t.request('/api/health')
    const err = await t.request('/api/nope')
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(err.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(ok.headers.get('x-request-id')).not.toBe(err.headers.get('x-request-id'))
  })

  test('a valid incoming id is echoed', async () => {
    const res = await t.request('/api/health', { headers: { 'x-request-id': 'abc.DEF_123-xyz' } })
    expect(res.headers.get('x-request-id')).toBe('abc.DEF_123-xyz')
  })

  test('an invalid incoming id is replaced', async () => {
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '<script>']) {
      const res = await t.request('/api/health', { headers: { 'x-request-id': bad } })
      expect(res.headers.get('x-request-id')).not.toBe(bad)
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })
})

describe('access log', async () => {
  test('one JSON line per request with method, route, status, duration and request id', async () => {
    await t.request('/api/health', { headers: { 'x-request-id': 'log-check-1' } })
    await Bun.sleep(5) // the line is written after the response
    const line = t.log.lines().find((l) => l.msg === 'request' && l.request_id === 'log-check-1')
    expect(line).toMatchObject({ method: 'GET', route: '/api/health', status: 200, level: 'info' })
    expect(typeof line!.duration_ms).toBe('number')
  })
})

describe('requests without a body', async () => {
  test('a POST with no body and no content type → 400 malformed_json (not 415, not 500)', async () => {
    const res = await t.handle(new Request('http://localhost/api/auth/login', { method: 'POST' }))
    await problem(res, 400, 'malformed_json')
  })
})
