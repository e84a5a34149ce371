// Registration, login, the current user, password change and deletion (contract section 3).
import { describe, expect, test } from 'bun:test'
import { GOOD_PASSWORD, json, makeTestApp, problem, register, setTier, uniqueEmail } from './support/app'

const t = await makeTestApp()
const registerBody = (overrides: Record<string, unknown> = {}) => ({ email: uniqueEmail(), password: GOOD_PASSWORD, name: 'Ada', ...overrides })
const postRegister = (json: unknown) => t.request('/api/auth/register', { method: 'POST', json })
const postLogin = (json: unknown) => t.request('/api/auth/login', { method: 'POST', json })

describe('POST /api/auth/register', async () => {
  test('201 with token, bearer type and the user; no-store', async () => {
    const email = uniqueEmail('Reg')
    const res = await postRegister({ email: `  ${email.toUpperCase()}  `, password: GOOD_PASSWORD, name: '  Ada Lovelace ' })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = await json(res)
    expect(Object.keys(body).sort()).toEqual(['access_token', 'token_type', 'user'])
    expect(body.token_type).toBe('bearer')
    expect(body.user).toEqual({ id: expect.any(String), email: email.toLowerCase(), name: 'Ada Lovelace', tier: 'free' })
    expect(body.access_token.split('.')).toHaveLength(3)
    expect(JSON.stringify(body)).not.toContain(GOOD_PASSWORD)
  })

  test('the token carries user_id, email, iat and exp (7 days), signed HS256', async () => {
    const { token, user } = await register(t)
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()))
    expect(header.alg).toBe('HS256')
    expect(payload.user_id).toBe(user.id)
    expect(payload.email).toBe(user.email)
    expect(payload.exp - payload.iat).toBe(7 * 24 * 3600)
    expect(Math.abs(payload.iat - Date.now() / 1000)).toBeLessThan(5)
  })

  test('the same e-mail twice (any case, any spaces) → 409 email_taken', async () => {
    const email = uniqueEmail()
    await register(t, { email })
    await problem(await postRegister(registerBody({ email: ` ${email.toUpperCase()}` })), 409, 'email_taken')
  })

  test('twenty concurrent registrations of one e-mail: exactly one 201, the rest 409', async () => {
    const body = registerBody()
    const results = await Promise.all(Array.from({ length: 20 }, () => postRegister(body)))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(19)
  })

  test('invalid e-mails → 422 validation_failed on /email', async () => {
    for (const email of ['', 'plain', 'a@b', '@example.com', 'a b@example.com', 'a@exa mple.com', `${'x'.repeat(250)}@example.com`]) {
      const body = await problem(await postRegister(registerBody({ email })), 422, 'validation_failed')
      expect(body.errors).toEqual([{ path: '/email', message: expect.any(String) }])
    }
  })

  test('password policy: every failure is 422 weak_password', async () => {
    const email = uniqueEmail()
    const blank = [' '.repeat(8), ' '.repeat(128), '\t\n \r\t\n \r', '\u00a0'.repeat(10), '\u3000'.repeat(8)]
    const weak = ['short', '1234567', 'x'.repeat(129), 'password', 'Password1', 'iloveyou', 'qwertyuiop', email, ...blank]
    for (const password of weak) {
      const body = await problem(await postRegister({ email, password, name: 'x' }), 422, 'weak_password')
      expect(body.errors).toEqual([{ path: '/password', message: expect.any(String) }])
    }
    // 8 and 128 characters (code points, emoji included) are accepted
    expect((await postRegister(registerBody({ password: 'ünïcödé😀!' }))).status).toBe(201)
    expect((await postRegister(registerBody({ password: 'y'.repeat(128) }))).status).toBe(201)
    // spaces are characters like any other, alongside something else
    expect((await postRegister(registerBody({ password: '       .' }))).status).toBe(201)
  })

  test('name: 1–100 characters after trimming, no control characters', async () => {
    for (const name of ['', '   ', 'x'.repeat(101), 'bad\u0000name', 'tab\there']) {
      const body = await problem(await postRegister(registerBody({ name })), 422, 'validation_failed')
      expect((body.errors as { path: string }[])[0]!.path).toBe('/name')
    }
    expect((await postRegister(registerBody({ name: ` ${'n'.repeat(100)} ` }))).status).toBe(201)
  })

  test('hostile strings are stored verbatim and returned as data', async () => {
    const name = `<script>alert(1)</script> '; DROP TABLE users; -- 😈 {{x}}`
    const res = await postRegister(registerBody({ name }))
    expect(res.status).toBe(201)
    expect((await json(res)).user.name).toBe(name)
  })

  test('wrong types, missing and extra fields → 422 with the field paths', async () => {
    const wrongType = await problem(await postRegister(registerBody({ password: 12345678 })), 422, 'validation_failed')
    expect(JSON.stringify(wrongType.errors)).toContain('/password')
    const missing = await problem(await postRegister({ email: uniqueEmail(), password: GOOD_PASSWORD }), 422, 'validation_failed')
    expect(JSON.stringify(missing.errors)).toContain('/name')
    const extra = await problem(await postRegister(registerBody({ tier: 'pro' })), 422, 'validation_failed')
    expect(JSON.stringify(extra.errors)).toContain('/tier')
    await problem(await postRegister(registerBody({ email: ['a@b.co'] })), 422, 'validation_failed')
    await problem(await postRegister(registerBody({ name: null })), 422, 'validation_failed')
  })

  test('a 1 MiB string field is refused and nothing is stored', async () => {
    const email = uniqueEmail()
    const res = await postRegister({ email, password: GOOD_PASSWORD, name: 'n'.repeat(1024 * 1024 - 200) })
    expect([413, 422]).toContain(res.status)
    await problem(await postLogin({ email, password: GOOD_PASSWORD }), 401, 'invalid_credentials')
  })
})

describe('POST /api/auth/login', async () => {
  test('200 with the same shape as register; e-mail normalised', async () => {
    const { email, user } = await register(t)
    const res = await postLogin({ email: ` ${email.toUpperCase()} `, password: GOOD_PASSWORD })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = await json(res)
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'bearer', user })
  })

  test('unknown e-mail and wrong password fail identically', async () => {
    const { email } = await register(t)
    const unknown = await postLogin({ email: uniqueEmail('nobody'), password: GOOD_PASSWORD })
    const wrong = await postLogin({ email, password: 'not the right password' })
    const a = await problem(unknown, 401, 'invalid_credentials')
    const b = await problem(wrong, 401, 'invalid_credentials')
    expect(a).toEqual(b)
    expect(unknown.headers.get('www-authenticate')).toBe(wrong.headers.get('www-authenticate'))
  })

  test('bad input → 422, never 500', async () => {
    await problem(await postLogin({ email: 'a@b.co' }), 422, 'validation_failed')
    await problem(await postLogin({ email: 1, password: 2 }), 422, 'validation_failed')
    await problem(await postLogin([]), 422, 'validation_failed')
  })
})

describe('GET /api/user/me', async () => {
  test('the profile, limits of the tier and today’s usage', async () => {
    const { token, user } = await register(t)
    const res = await t.request('/api/user/me', { token })
    expect(res.status).toBe(200)
    const me = await json(res)
    expect(me).toEqual({
      ...user,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      providers: ['password'],
      limits: { prompts_per_day: 10, optimizations_per_day: 3, api_access: false, skills_access: false, max_tokens: 0 },
      usage: { prompts_today: 0, optimizations_today: 0 },
    })
  })

  test('many users at once, by JWT and by PAT: each gets its own account, tier and usage', async () => {
    // On PostgreSQL the lookups of one turn go as one query (src/db/postgres/batched-lookup.ts).
    const users = await Promise.all(Array.from({ length: 12 }, () => register(t)))
    const pats: string[] = []
    for (const [i, u] of users.entries()) {
      await setTier(t, u.user.id, i % 2 ? 'pro' : 'starter')
      for (let k = 0; k < i; k++) await t.services.usage.consume({ subject: `user:${u.user.id}`, metric: 'prompts', limit: null })
      const created = await t.request('/api/user/tokens', { method: 'POST', token: u.token, json: { name: 'script' } })
      pats.push(((await json(created)) as { token: string }).token)
    }
    const asked = [...users.map((u) => u.token), ...pats]
    const answers = await Promise.all(asked.map(async (token) => json(await t.request('/api/user/me', { token }))))
    for (const [n, me] of answers.entries()) {
      const i = n % users.length
      expect(me).toMatchObject({ id: users[i]!.user.id, email: users[i]!.email, tier: i % 2 ? 'pro' : 'starter', usage: { prompts_today: i } })
    }
  })
})

describe('POST /api/user/password', async () => {
  test('204; earlier JWTs stop working, the new password logs in', async () => {
    const { token, email } = await register(t)
    const res = await t.request('/api/user/password', {
      method: 'POST',
      token,
      json: { current_password: GOOD_PASSWORD, new_password: 'a brand new passphrase' },
    })
    expect(res.status).toBe(204)
    await problem(await t.request('/api/user/me', { token }), 401, 'token_revoked')
    await problem(await postLogin({ email, password: GOOD_PASSWORD }), 401, 'invalid_credentials')
    const login = await postLogin({ email, password: 'a brand new passphrase' })
    expect(login.status).toBe(200)
    const fresh = (await json(login)).access_token
    expect((await t.request('/api/user/me', { token: fresh })).status).toBe(200)
  })

  // A JWT carries its issue time in whole seconds: one issued in the second of a change carried
  // exactly the not-before time a second change in that second set again, and survived it.
  test('a JWT issued after a change stops working at the next change, even within the same second', async () => {
    const { token, email } = await register(t)
    const change = (bearer: string, from: string, to: string) =>
      t.request('/api/user/password', { method: 'POST', token: bearer, json: { current_password: from, new_password: to } })
    const loginWith = async (password: string) => (await json(await postLogin({ email, password }))).access_token as string
    let bearer = token
    for (const [from, to, next] of [
      [GOOD_PASSWORD, 'second good passphrase', 'third good passphrase'],
      ['third good passphrase', 'fourth good passphrase', 'fifth good passphrase'],
    ] as const) {
      // The start of a second, so that both changes and the login between them share it.
      await Bun.sleep(1000 - (Date.now() % 1000))
      expect((await change(bearer, from, to)).status).toBe(204)
      const issued = await loginWith(to)
      expect((await t.request('/api/user/me', { token: issued })).status).toBe(200)
      expect((await change(issued, to, next)).status).toBe(204)
      await problem(await t.request('/api/user/me', { token: issued }), 401, 'token_revoked')
      bearer = await loginWith(next)
      expect((await t.request('/api/user/me', { token: bearer })).status).toBe(200)
    }
  })

  test('wrong current password → 422 invalid_current_password (never 401)', async () => {
    const { token } = await register(t)
    await problem(
      await t.request('/api/user/password', {
        method: 'POST',
        token,
        json: { current_password: 'wrong wrong wrong', new_password: 'another good passphrase' },
      }),
      422,
      'invalid_current_password',
    )
    expect((await t.request('/api/user/me', { token })).status).toBe(200)
  })

  test('a weak new password → 422 weak_password; the old one still works', async () => {
    const { token, email } = await register(t)
    const body = await problem(
      await t.request('/api/user/password', { method: 'POST', token, json: { current_password: GOOD_PASSWORD, new_password: 'password' } }),
      422,
      'weak_password',
    )
    expect(body.errors).toEqual([{ path: '/new_password', message: expect.any(String) }])
    const blank = await t.request('/api/user/password', {
      method: 'POST',
      token,
      json: { current_password: GOOD_PASSWORD, new_password: ' '.repeat(12) },
    })
    await problem(blank, 422, 'weak_password')
    expect((await postLogin({ email, password: GOOD_PASSWORD })).status).toBe(200)
  })

  test('needs authentication and a valid body', async () => {
    await problem(await t.request('/api/user/password', { method: 'POST', json: { current_password: 'a', new_password: 'b' } }), 401, 'missing_token')
    const { token } = await register(t)
    await problem(
      await t.request('/api/user/password', { method: 'POST', token, json: { current_password: GOOD_PASSWORD } }),
      422,
      'validation_failed',
    )
  })
})

describe('DELETE /api/user/me', async () => {
  test('204; the token then gets 401; the e-mail can register again', async () => {
    const { token, email } = await register(t)
    const res = await t.request('/api/user/me', { method: 'DELETE', token })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    const after = await t.request('/api/user/me', { token })
    await problem(after, 401, 'invalid_token')
    expect(after.headers.get('www-authenticate')).toBe('Bearer realm="promptlib", error="invalid_token"')
    expect((await postRegister(registerBody({ email }))).status).toBe(201)
  })
})

describe('secrets never reach the log', async () => {
  test('passwords and tokens are absent from every log line', async () => {
    const password = 'log-check passphrase 42'
    const { token, email } = await register(t, { password })
    await postLogin({ email, password })
    await t.request('/api/user/me', { token })
    await Bun.sleep(5)
    const text = t.log.text()
    expect(text).not.toContain(password)
    expect(text).not.toContain(token)
    expect(text).not.toContain(token.split('.')[2]!)
  })
})

describe('login timing', async () => {
  // Real argon2 cost here (the other tests use a cheap one): an unknown e-mail must cost the
  // same hash verification as a wrong password, or response times reveal who has an account.
  const real = await makeTestApp({}, { passwordHash: {} })
  test('unknown e-mail and wrong password take about the same time', async () => {
    const { email } = await register(real)
    const timeLogin = async (body: object) => {
      const start = performance.now()
      await real.request('/api/auth/login', { method: 'POST', json: body })
      return performance.now() - start
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const unknown: number[] = []
    const wrong: number[] = []
    for (let i = 0; i < 5; i++) {
      unknown.push(await timeLogin({ email: uniqueEmail('ghost'), password: 'not a real password' }))
      wrong.push(await timeLogin({ email, password: 'not a real password' }))
    }
    const ratio = median(unknown) / median(wrong)
    expect(median(wrong)).toBeGreaterThan(20) // a real hash verification happened
    expect(ratio).toBeGreaterThan(0.5)
    expect(ratio).toBeLessThan(2)
  })
})
