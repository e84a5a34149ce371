// What comes before a request body is read: authentication and permissions (401/403 before
// 400/413/415/422), the login/register rate limit (every attempt counts), and the nesting limit
// that keeps a deep body from reaching validation.
import { describe, expect, test } from 'bun:test'
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonText } from '../src/http/body'
import { ProblemError } from '../src/http/problem'
import { makeTestApp, problem, register, uniqueEmail } from './support/app'
import { setTier } from './support/catalogue'

const t = await makeTestApp()
const JSON_TYPE = { 'content-type': 'application/json' }
const nested = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth)
const ONE_MIB = 1024 * 1024

/** Every body route, with whether it is open to anonymous callers. A new body route belongs here. */
const PUBLIC_BODY_ROUTES = ['POST /api/auth/register', 'POST /api/auth/login']
/**
 * The payment providers' webhooks: no bearer token, the provider's signature over the raw body is
 * checked before the body is parsed (with the same nesting limit), so an unsigned body is a 400
 * invalid_signature whatever it holds (test/billing-card-webhook.test.ts, billing-wallet-webhook.test.ts).
 */
const SIGNED_BODY_ROUTES = ['POST /api/payments/webhook', 'POST /api/payments/altpay/webhook']
const bodyRoutes = () =>
  t.app.routes
    .filter((r) => !['GET', 'HEAD', 'DELETE'].includes(r.method))
    .map((r) => `${r.method} ${r.path}`)
    .filter((r) => !SIGNED_BODY_ROUTES.includes(r))
const guardedBodyRoutes = () => bodyRoutes().filter((r) => !PUBLIC_BODY_ROUTES.includes(r))

const send = (route: string, body: RequestInit['body'], headers: Record<string, string> = JSON_TYPE) => {
  const [method, path] = route.split(' ') as [string, string]
  return t.request(path, { method, body, headers })
}

describe('nesting limit', async () => {
  test('flat scan: brackets inside strings and escaped quotes do not count', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false)
    expect(nestsDeeperThan(nested(65), 64)).toBe(true)
    expect(nestsDeeperThan(`{"a":${nested(63)}}`, 64)).toBe(false)
    expect(nestsDeeperThan(`{"a":${nested(64)}}`, 64)).toBe(true)
    expect(nestsDeeperThan(JSON.stringify({ text: '['.repeat(1000) }), 64)).toBe(false)
    expect(nestsDeeperThan(JSON.stringify({ text: 'say \\"[[[[\\" and \\\\', more: '{{{{' }), 2)).toBe(false)
    // siblings do not add up: depth, not count
    expect(nestsDeeperThan(`[${Array.from({ length: 1000 }, () => '[1]').join(',')}]`, 2)).toBe(false)
    // an escaped quote does not end the string; an escaped backslash before the quote does
    expect(nestsDeeperThan('["\\"", [[', 2)).toBe(true)
    expect(nestsDeeperThan('["\\\\", [[', 2)).toBe(true)
    expect(nestsDeeperThan('["\\\\\\" [[[', 2)).toBe(false)
  })

  test('parseJsonText: 64 deep parses, 65 is 400 malformed_json', () => {
    expect(MAX_JSON_DEPTH).toBe(64)
    expect(parseJsonText(nested(64))).toBeArray()
    const refused = (() => {
      try {
        parseJsonText(nested(65))
      } catch (error) {
        return error
      }
    })() as ProblemError
    expect(refused).toBeInstanceOf(ProblemError)
    expect([refused.status, refused.code]).toEqual([400, 'malformed_json'])
  })

  test('a body nested 20,000 deep → 400 malformed_json on every body route, never a 5xx', async () => {
    const { token, email, password, user } = await register(t)
    await setTier(t, user.id, 'starter') // POST /api/user/tokens would refuse a free user first
    const bodies = [nested(20_000), `{"email":${nested(20_000)},"password":"x"}`, `{"prompt_id":${nested(65)}}`]
    for (const route of bodyRoutes()) {
      for (const body of bodies) {
        // Accept as an MCP client sends it (POST /api/mcp checks its headers before the body); the other routes ignore it.
        const res = await send(route, body, { ...JSON_TYPE, accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` })
        const detail = await problem(res, 400, 'malformed_json')
        expect({ route, detail: detail.detail }).toEqual({ route, detail: expect.stringContaining('64 deep') })
      }
    }
    // the refusals changed nothing: the password still works
    expect((await t.request('/api/auth/login', { method: 'POST', json: { email, password } })).status).toBe(200)
  })

  test('the routes the issue names are among them', () => {
    for (const route of ['/api/auth/register', '/api/auth/login', '/api/user/favorites', '/api/user/password', '/api/optimizer/optimize']) {
      expect(bodyRoutes()).toContain(`POST ${route}`)
    }
  })

  test('as deep as the limit is still a body: validated as usual (422)', async () => {
    await problem(await send('POST /api/auth/register', `{"email":${nested(63)},"password":"x","name":"n"}`), 422, 'validation_failed')
  })
})

describe('authentication before the body', async () => {
  const bad: [string, RequestInit['body'], Record<string, string>][] = [
    ['malformed', '{"prompt_id":', JSON_TYPE],
    ['empty', '', JSON_TYPE],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), JSON_TYPE],
    ['too deep', nested(20_000), JSON_TYPE],
    ['wrong media type', 'prompt_id=1', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['text/plain (a string body’s default)', '{}', {}],
    ['announced over 1 MiB', 'x'.repeat(ONE_MIB + 1), JSON_TYPE],
    ['invalid', '{"bogus":1}', JSON_TYPE],
  ]

  test('every guarded body route: no token + a bad body → 401, never 400/413/415/422', async () => {
    expect(guardedBodyRoutes().length).toBeGreaterThanOrEqual(4)
    for (const route of guardedBodyRoutes()) {
      for (const [what, body, headers] of bad) {
        const res = await send(route, body, headers)
        expect({ route, what, status: res.status }).toEqual({ route, what, status: 401 })
        await problem(res, 401, 'missing_token')
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="promptlib"')
      }
      // a bad token likewise
      const res = await send(route, '{"prompt_id":', { ...JSON_TYPE, authorization: 'Bearer not-a-token' })
      await problem(res, 401, 'invalid_token')
    }
  })

  test('a streamed body over 1 MiB without a token → 401, and the body is not read', async () => {
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 20) return controller.close()
        pulled++
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20))
      },
    })
    const res = await t.handle(new Request('http://localhost/api/user/favorites', { method: 'POST', body: stream, headers: JSON_TYPE }))
    await problem(res, 401, 'missing_token')
    expect(pulled).toBeLessThanOrEqual(2) // at most what the stream pre-fills, never the megabyte
  })

  test('permissions come before the body too: 403 before 400/415', async () => {
    const free = await register(t)
    // POST /api/user/tokens needs the starter tier
    const tokens = await send('POST /api/user/tokens', '{"name":', { ...JSON_TYPE, authorization: `Bearer ${free.token}` })
    expect((await problem(tokens, 403, 'upgrade_required')).required_tier).toBe('starter')
    // POST /api/user/password needs a JWT, not a PAT
    await setTier(t, free.user.id, 'starter')
    const pat = await t.request('/api/user/tokens', { method: 'POST', token: free.token, json: { name: 'script' } })
    const { token: patToken } = (await pat.json()) as { token: string }
    const password = await send('POST /api/user/password', 'x=1', { 'content-type': 'text/plain', authorization: `Bearer ${patToken}` })
    await problem(password, 403, 'jwt_required')
    // with the right credentials the body is judged as before
    await problem(
      await send('POST /api/user/password', '{"current_password":', { ...JSON_TYPE, authorization: `Bearer ${free.token}` }),
      400,
      'malformed_json',
    )
    await problem(
      await send('POST /api/user/favorites', 'x', { 'content-type': 'text/plain', authorization: `Bearer ${free.token}` }),
      415,
      'unsupported_media_type',
    )
    await problem(
      await send('POST /api/user/favorites', 'x'.repeat(ONE_MIB + 1), { ...JSON_TYPE, authorization: `Bearer ${free.token}` }),
      413,
      'payload_too_large',
    )
  })

  test('a valid call still works on each guarded body route', async () => {
    const { token, password } = await register(t)
    const ok = await t.request('/api/user/password', {
      method: 'POST',
      token,
      json: { current_password: password, new_password: 'another long passphrase' },
    })
    expect(ok.status).toBe(204)
  })
})

describe('login and register: every attempt counts, the malformed ones too', async () => {
  const limited = await makeTestApp({ AUTH_RATE_LIMIT: '10', TRUST_PROXY: 'true' })
  const attempt = (path: string, ip: string, body: RequestInit['body'], headers: Record<string, string> = JSON_TYPE) =>
    limited.request(path, { method: 'POST', body, headers: { ...headers, 'x-forwarded-for': ip } })

  test('ten refused bodies (400/413/415) use up the budget: the 11th attempt, even a good one → 429', async () => {
    const ip = '198.51.100.20'
    const refused = [
      ['{"email":', JSON_TYPE, 400],
      [nested(20_000), JSON_TYPE, 400],
      ['', JSON_TYPE, 400],
      ['email=a', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
      ['x'.repeat(ONE_MIB + 1), JSON_TYPE, 413],
    ] as const
    for (let i = 0; i < 10; i++) {
      const [body, headers, status] = refused[i % refused.length]!
      const res = await attempt(i % 2 ? '/api/auth/login' : '/api/auth/register', ip, body, headers)
      expect({ i, status: res.status }).toEqual({ i, status })
    }
    const good = JSON.stringify({ email: uniqueEmail(), password: 'a sufficiently long passphrase', name: 'N' })
    const res = await attempt('/api/auth/register', ip, good)
    await problem(res, 429, 'rate_limited')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // another address is not affected
    expect((await attempt('/api/auth/register', '198.51.100.21', good)).status).toBe(201)
  })

  test('a malformed attempt over the budget is a 429, not a 400', async () => {
    const ip = '198.51.100.22'
    for (let i = 0; i < 10; i++) await attempt('/api/auth/login', ip, '{')
    await problem(await attempt('/api/auth/login', ip, '{'), 429, 'rate_limited')
  })
})
