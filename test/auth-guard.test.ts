// The bearer guard: 401s with the RFC 6750 challenge, fresh tier on every request, and the
// macros later features use ({ minTier }, { jwtOnly }).
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { authGuard } from '../src/http/auth'
import { JwtCodec } from '../src/http/jwt'
import { makeTestApp, problem, register, TEST_JWT_SECRET, json } from './support/app'
import { createHmac } from 'node:crypto'

const t = await makeTestApp()
const accounts = t.services.accounts
const jwt = new JwtCodec(TEST_JWT_SECRET)

// A route for each macro, mounted the way a feature mounts its routes.
t.app.use(
  new Elysia()
    .use(authGuard((token) => accounts.authenticateJwt(token)))
    .get('/api/test-only/pro', ({ user }) => ({ tier: user.tier }), { minTier: 'pro' })
    .get('/api/test-only/jwt', ({ principal }) => ({ via: principal.via }), { jwtOnly: true })
    .get('/api/test-only/optional', ({ user }) => ({ user: user?.id ?? null }), { optionalAuth: true }),
)

const me = (headers: Record<string, string>) => t.request('/api/user/me', { headers })
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

describe('401 answers', async () => {
  test('no Authorization header → missing_token with a plain Bearer challenge', async () => {
    const res = await me({})
    await problem(res, 401, 'missing_token')
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="promptlib"')
  })

  test('Authorization: Basic … → missing_token', async () => {
    const res = await me({ authorization: `Basic ${btoa('user:pass')}` })
    await problem(res, 401, 'missing_token')
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="promptlib"')
  })

  test('"Bearer" with no token, or junk → invalid_token with error="invalid_token"', async () => {
    for (const header of ['Bearer', 'Bearer ', 'Bearer    ', 'Bearer not-a-jwt', 'Bearer a.b.c', `Bearer ${'x'.repeat(5000)}`]) {
      const res = await me({ authorization: header })
      await problem(res, 401, 'invalid_token')
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="promptlib", error="invalid_token"')
    }
  })

  test('the scheme is case-insensitive', async () => {
    const { token } = await register(t)
    expect((await me({ authorization: `bearer ${token}` })).status).toBe(200)
    expect((await me({ authorization: `BEARER ${token}` })).status).toBe(200)
  })

  test('a JWT signed with another key', async () => {
    const { user } = await register(t)
    const foreign = new JwtCodec('some-other-secret-some-other-secret-000').sign({ user_id: user.id, email: user.email })
    await problem(await me({ authorization: `Bearer ${foreign}` }), 401, 'invalid_token')
  })

  test('alg none and HS512 tokens for a real user', async () => {
    const { user } = await register(t)
    const now = Math.floor(Date.now() / 1000)
    const claims = { user_id: user.id, email: user.email, iat: now, exp: now + 3600 }
    await problem(await me({ authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.` }), 401, 'invalid_token')
    const input = `${b64({ alg: 'HS512', typ: 'JWT' })}.${b64(claims)}`
    const hs512 = `${input}.${createHmac('sha512', TEST_JWT_SECRET).update(input).digest('base64url')}`
    await problem(await me({ authorization: `Bearer ${hs512}` }), 401, 'invalid_token')
  })

  test('expired by one second → token_expired', async () => {
    const { user } = await register(t)
    const issued = Math.floor(Date.now() / 1000) - 7 * 24 * 3600 - 1
    const expired = jwt.sign({ user_id: user.id, email: user.email }, issued)
    const res = await me({ authorization: `Bearer ${expired}` })
    await problem(res, 401, 'token_expired')
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    // one second later it would still have been valid
    const valid = jwt.sign({ user_id: user.id, email: user.email }, issued + 2)
    expect((await me({ authorization: `Bearer ${valid}` })).status).toBe(200)
  })

  test('a deleted user’s token → 401', async () => {
    const { token } = await register(t)
    expect((await t.request('/api/user/me', { method: 'DELETE', token })).status).toBe(204)
    await problem(await me({ authorization: `Bearer ${token}` }), 401, 'invalid_token')
  })
})

describe('order of checks', async () => {
  test('authentication comes before validation: no token + a bad body → 401, not 422', async () => {
    const res = await t.request('/api/user/password', { method: 'POST', json: { bogus: 1 } })
    await problem(res, 401, 'missing_token')
  })

  test('validation errors list each field once', async () => {
    const { token } = await register(t)
    const body = await problem(await t.request('/api/user/password', { method: 'POST', token, json: { bogus: 1 } }), 422, 'validation_failed')
    expect((body.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(['/bogus', '/new_password'])
  })
})

describe('fresh tier', async () => {
  test('a tier change shows on the next request with the same token', async () => {
    const { token, email } = await register(t)
    expect((await json(await me({ authorization: `Bearer ${token}` }))).tier).toBe('free')
    await accounts.setTierByEmail(email, 'pro')
    const body = await json(await me({ authorization: `Bearer ${token}` }))
    expect(body.tier).toBe('pro')
    expect(body.limits).toMatchObject({ optimizations_per_day: null, skills_access: true, max_tokens: 3 })
  })
})

describe('macros', async () => {
  test('minTier: below → 403 upgrade_required with required_tier; at or above → 200; no token → 401 first', async () => {
    await problem(await t.request('/api/test-only/pro'), 401, 'missing_token')
    const { token, email } = await register(t)
    const body = await problem(await t.request('/api/test-only/pro', { token }), 403, 'upgrade_required')
    expect(body.required_tier).toBe('pro')
    await accounts.setTierByEmail(email, 'starter')
    await problem(await t.request('/api/test-only/pro', { token }), 403, 'upgrade_required')
    await accounts.setTierByEmail(email, 'pro')
    expect(await json(await t.request('/api/test-only/pro', { token }))).toEqual({ tier: 'pro' })
    await accounts.setTierByEmail(email, 'lifetime')
    expect(await json(await t.request('/api/test-only/pro', { token }))).toEqual({ tier: 'lifetime' })
  })

  test('optionalAuth: anonymous → null user; a valid token → the user; a bad token → 401, not anonymous', async () => {
    expect(await json(await t.request('/api/test-only/optional'))).toEqual({ user: null })
    const { token, user } = await register(t)
    expect(await json(await t.request('/api/test-only/optional', { token }))).toEqual({ user: user.id })
    await problem(await t.request('/api/test-only/optional', { token: 'garbage' }), 401, 'invalid_token')
    await problem(await t.request('/api/test-only/optional', { headers: { authorization: 'Basic eDp5' } }), 401, 'missing_token')
  })

  test('jwtOnly: a JWT passes', async () => {
    const { token } = await register(t)
    expect(await json(await t.request('/api/test-only/jwt', { token }))).toEqual({ via: 'jwt' })
  })
})

describe('login and register rate limit (per client address)', async () => {
  const limited = await makeTestApp({ AUTH_RATE_LIMIT: '3', TRUST_PROXY: 'true' })
  const attempt = (ip: string) =>
    limited.request('/api/auth/login', {
      method: 'POST',
      json: { email: 'x@example.com', password: 'whatever123' },
      headers: { 'x-forwarded-for': `203.0.113.9, ${ip}` },
    })

  test('the fourth attempt in a minute → 429 rate_limited with Retry-After; other addresses unaffected', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('198.51.100.1')).status).toBe(401)
    const res = await attempt('198.51.100.1')
    await problem(res, 429, 'rate_limited')
    const retry = Number(res.headers.get('retry-after'))
    expect(retry).toBeGreaterThanOrEqual(1)
    expect(retry).toBeLessThanOrEqual(60)
    expect((await attempt('198.51.100.2')).status).toBe(401)
  })

  test('register shares the budget, and invalid bodies count too', async () => {
    const ip = '198.51.100.3'
    const headers = { 'x-forwarded-for': ip }
    await limited.request('/api/auth/register', { method: 'POST', json: { nonsense: true }, headers })
    await limited.request('/api/auth/register', { method: 'POST', json: { nonsense: true }, headers })
    await limited.request('/api/auth/login', { method: 'POST', json: { nonsense: true }, headers })
    await problem(await limited.request('/api/auth/register', { method: 'POST', json: { nonsense: true }, headers }), 429, 'rate_limited')
  })

  // One IPv6 host holds a /64 and may use a new address for every request: each was a new client.
  test('one client however its address is written: an IPv6 /64, a port, IPv4 inside IPv6', async () => {
    for (const [first, ...others] of [
      ['2001:db8:77:1::1', '2001:DB8:77:1::2', '[2001:db8:77:1:abcd::9]:4433', '2001:db8:77:1:0:0:0:ff'],
      ['198.51.100.77:40001', '198.51.100.77', '::ffff:198.51.100.77', '198.51.100.77:40002'],
    ]) {
      expect((await attempt(first!)).status).toBe(401)
      for (const other of others.slice(0, 2)) expect((await attempt(other!)).status).toBe(401)
      await problem(await attempt(others[2]!), 429, 'rate_limited')
    }
    // Another /64 is another client.
    expect((await attempt('2001:db8:77:2::1')).status).toBe(401)
  })

  test('only the right-most X-Forwarded-For entry counts (the left ones are client-supplied)', async () => {
    for (let i = 0; i < 3; i++) {
      await limited.request('/api/auth/login', {
        method: 'POST',
        json: { email: 'x@example.com', password: 'whatever123' },
        headers: { 'x-forwarded-for': `10.0.0.${i}, 198.51.100.4` },
      })
    }
    await problem(
      await limited.request('/api/auth/login', {
        method: 'POST',
        json: { email: 'x@example.com', password: 'whatever123' },
        headers: { 'x-forwarded-for': '10.9.9.9, 198.51.100.4' },
      }),
      429,
      'rate_limited',
    )
  })
})
