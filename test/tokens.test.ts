// Personal access tokens through the HTTP API (issue 4, contract section 3).
import { describe, expect, test } from 'bun:test'
import { generatePat } from '../src/features/tokens/format'
import type { Tier } from '../src/tiers'
import { json, makeTestApp, problem, register } from './support/app'
import { sqlNumber, sqlRun } from './support/sql'

const t = await makeTestApp()
const accounts = t.services.accounts

async function userWithTier(tier: Tier) {
  const r = await register(t)
  if (tier !== 'free') await accounts.setTierByEmail(r.email, tier)
  return r
}
const create = (token: string, json: unknown) => t.request('/api/user/tokens', { method: 'POST', token, json })
async function createPat(jwt: string, name = 'script') {
  const res = await create(jwt, { name })
  expect(res.status).toBe(201)
  return (await json(res)) as { token_id: string; token: string; name: string; expires_at: string }
}

describe('POST /api/user/tokens', async () => {
  test('201 with token_id, token, name, expires_at (90 days by default); no-store', async () => {
    const { token } = await userWithTier('starter')
    const before = Date.now()
    const res = await create(token, { name: '  nightly backup  ' })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = await json(res)
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'name', 'token', 'token_id'])
    expect(body.name).toBe('nightly backup')
    expect(body.token).toMatch(/^plib_pat_[0-9A-Za-z]{36}$/)
    const days = (Date.parse(body.expires_at) - before) / 86_400_000
    expect(days).toBeGreaterThan(89.99)
    expect(days).toBeLessThan(90.01)
  })

  test('expires_in_days 1–365; outside, or not an integer → 422', async () => {
    const { token } = await userWithTier('lifetime')
    const one = await json(await create(token, { name: 'a', expires_in_days: 1 }))
    expect(Date.parse(one.expires_at) - Date.now()).toBeLessThan(86_400_000 + 5000)
    expect((await create(token, { name: 'b', expires_in_days: 365 })).status).toBe(201)
    for (const bad of [0, 366, -5, 1.5, '30', null, true]) {
      await problem(await create(token, { name: 'x', expires_in_days: bad }), 422, 'validation_failed')
    }
  })

  test('bad names and bodies → 422', async () => {
    const { token } = await userWithTier('lifetime')
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 'a\u0000b' },
      { name: 5 },
      { name: 'ok', scope: 'admin' },
      [],
    ]) {
      await problem(await create(token, body), 422, 'validation_failed')
    }
    const hostile = `<script>'; DROP TABLE personal_access_tokens; -- 😈`
    expect((await json(await create(token, { name: hostile }))).name).toBe(hostile)
  })

  test('free tier → 403 upgrade_required with required_tier starter', async () => {
    const { token } = await userWithTier('free')
    const body = await problem(await create(token, { name: 'x' }), 403, 'upgrade_required')
    expect(body.required_tier).toBe('starter')
  })

  test('the tier maximum: starter 1, pro 3, lifetime 5 → then 403 token_limit_reached with limit', async () => {
    for (const [tier, limit] of [
      ['starter', 1],
      ['pro', 3],
      ['lifetime', 5],
    ] as const) {
      const { token } = await userWithTier(tier)
      for (let i = 0; i < limit; i++) await createPat(token, `t${i}`)
      const body = await problem(await create(token, { name: 'one too many' }), 403, 'token_limit_reached')
      expect(body.limit).toBe(limit)
    }
  })

  test('revoked and expired tokens do not count towards the maximum', async () => {
    const { token, user } = await userWithTier('starter')
    const first = await createPat(token)
    expect((await t.request(`/api/user/tokens/${first.token_id}`, { method: 'DELETE', token })).status).toBe(204)
    const second = await createPat(token)
    await sqlRun(t.storage, 'UPDATE personal_access_tokens SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 1000), second.token_id])
    await createPat(token)
    await problem(await create(token, { name: 'x' }), 403, 'token_limit_reached')
    expect(user.id).toBeTruthy()
  })

  test('ten simultaneous creations at the limit → exactly one 201', async () => {
    const { token } = await userWithTier('pro')
    await createPat(token, 'a')
    await createPat(token, 'b')
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(token, { name: `race ${i}` })))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 403)).toHaveLength(9)
    expect((await json(await t.request('/api/user/tokens', { token }))).items).toHaveLength(3)
  })

  test('a PAT cannot mint PATs → 403 jwt_required', async () => {
    const { token } = await userWithTier('pro')
    const pat = await createPat(token)
    await problem(await create(pat.token, { name: 'child' }), 403, 'jwt_required')
  })

  test('without a token → 401', async () => {
    await problem(await t.request('/api/user/tokens', { method: 'POST', json: { name: 'x' } }), 401, 'missing_token')
  })
})

describe('GET /api/user/tokens', async () => {
  test('lists token_id, name, created_at, expires_at, last_used_at — never the secret', async () => {
    const { token } = await userWithTier('lifetime')
    const a = await createPat(token, 'first')
    const b = await createPat(token, 'second')
    const res = await t.request('/api/user/tokens', { token })
    expect(res.status).toBe(200)
    const text = await res.clone().text()
    expect(text).not.toContain(a.token)
    expect(text).not.toContain(b.token)
    const { items } = await json(res)
    expect(items.map((i: { name: string }) => i.name).sort()).toEqual(['first', 'second'])
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['created_at', 'expires_at', 'last_used_at', 'name', 'token_id'])
      expect(item.last_used_at).toBeNull()
    }
  })

  test('last_used_at is set on use, and not rewritten on every request', async () => {
    const { token } = await userWithTier('starter')
    const pat = await createPat(token)
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
    const first = (await json(await t.request('/api/user/tokens', { token }))).items[0].last_used_at
    expect(Date.now() - Date.parse(first)).toBeLessThan(5000)
    await Bun.sleep(5)
    await t.request('/api/user/me', { token: pat.token })
    const second = (await json(await t.request('/api/user/tokens', { token }))).items[0].last_used_at
    expect(second).toBe(first)
    // once the minute has passed it moves on
    await sqlRun(t.storage, 'UPDATE personal_access_tokens SET last_used_at = $1 WHERE id = $2', [new Date(Date.now() - 61_000), pat.token_id])
    await t.request('/api/user/me', { token: pat.token })
    const third = (await json(await t.request('/api/user/tokens', { token }))).items[0].last_used_at
    expect(Date.parse(third)).toBeGreaterThan(Date.parse(first))
  })
})

describe('DELETE /api/user/tokens/{token_id}', async () => {
  test('204; the PAT then answers 401 token_revoked; a second delete is 404', async () => {
    const { token } = await userWithTier('starter')
    const pat = await createPat(token)
    // Used once first: the server then knows its user and reads it beside the token.
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
    const res = await t.request(`/api/user/tokens/${pat.token_id}`, { method: 'DELETE', token })
    expect(res.status).toBe(204)
    await problem(await t.request('/api/user/me', { token: pat.token }), 401, 'token_revoked')
    await problem(await t.request(`/api/user/tokens/${pat.token_id}`, { method: 'DELETE', token }), 404, 'not_found')
    expect((await json(await t.request('/api/user/tokens', { token }))).items).toEqual([])
  })

  test('another user’s token id → 404, and the token keeps working', async () => {
    const owner = await userWithTier('starter')
    const other = await userWithTier('starter')
    const pat = await createPat(owner.token)
    await problem(await t.request(`/api/user/tokens/${pat.token_id}`, { method: 'DELETE', token: other.token }), 404, 'not_found')
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
  })

  test('unknown and hostile ids → 404 or 422, never 500', async () => {
    const { token } = await userWithTier('starter')
    await problem(await t.request('/api/user/tokens/nope', { method: 'DELETE', token }), 404, 'not_found')
    await problem(await t.request(`/api/user/tokens/${encodeURIComponent("' OR 1=1 --")}`, { method: 'DELETE', token }), 404, 'not_found')
    await problem(await t.request(`/api/user/tokens/${'x'.repeat(65)}`, { method: 'DELETE', token }), 422, 'validation_failed')
  })
})

describe('authenticating with a PAT', async () => {
  test('works like a JWT: /api/user/me shows the same user', async () => {
    const { token, user } = await userWithTier('pro')
    const pat = await createPat(token)
    const viaPat = await json(await t.request('/api/user/me', { token: pat.token }))
    const viaJwt = await json(await t.request('/api/user/me', { token }))
    expect(viaPat).toEqual(viaJwt)
    expect(viaPat.id).toBe(user.id)
  })

  test('expired → 401 token_expired', async () => {
    const { token } = await userWithTier('starter')
    const pat = await createPat(token)
    await sqlRun(t.storage, 'UPDATE personal_access_tokens SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 1), pat.token_id])
    const res = await t.request('/api/user/me', { token: pat.token })
    await problem(res, 401, 'token_expired')
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  test('a tier without API access → 403 api_access_required; access returns with the tier', async () => {
    const { token, email } = await userWithTier('starter')
    const pat = await createPat(token)
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
    await accounts.setTierByEmail(email, 'free')
    await problem(await t.request('/api/user/me', { token: pat.token }), 403, 'api_access_required')
    await accounts.setTierByEmail(email, 'starter')
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
  })

  test('well-formed but unknown, wrong checksum, or truncated → 401 invalid_token', async () => {
    await problem(await t.request('/api/user/me', { token: generatePat() }), 401, 'invalid_token')
    const { token } = await userWithTier('starter')
    const pat = await createPat(token)
    const wrongChecksum = pat.token.slice(0, -1) + (pat.token.endsWith('0') ? '1' : '0')
    await problem(await t.request('/api/user/me', { token: wrongChecksum }), 401, 'invalid_token')
    await problem(await t.request('/api/user/me', { token: pat.token.slice(0, 20) }), 401, 'invalid_token')
  })

  test('a wrong checksum is refused without touching the database', async () => {
    const isolated = await makeTestApp()
    const token = generatePat()
    const mangled = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0')
    await sqlRun(isolated.storage, 'DROP TABLE personal_access_tokens') // any token lookup would now fail with a 500
    await problem(await isolated.request('/api/user/me', { token: mangled }), 401, 'invalid_token')
    expect((await isolated.request('/api/user/me', { token })).status).toBe(500)
  })

  test('a known token whose user can no longer be read: still a clear 401, nothing left unhandled', async () => {
    // The user of a token used before is read beside the token; when the token is refused, that
    // read is not awaited, and its failure must not escape as an unhandled rejection.
    const isolated = await makeTestApp()
    const r = await register(isolated)
    await isolated.services.accounts.setTierByEmail(r.email, 'pro')
    const res = await isolated.request('/api/user/tokens', { method: 'POST', token: r.token, json: { name: 'script' } })
    const pat = (await json(res)) as { token_id: string; token: string }
    expect((await isolated.request('/api/user/me', { token: pat.token })).status).toBe(200)
    expect((await isolated.request(`/api/user/tokens/${pat.token_id}`, { method: 'DELETE', token: r.token })).status).toBe(204)
    await sqlRun(isolated.storage, 'ALTER TABLE users RENAME TO users_gone')
    await problem(await isolated.request('/api/user/me', { token: pat.token }), 401, 'token_revoked')
    await Bun.sleep(10) // an unhandled rejection would surface here and fail the test
  })

  test('deleting the account revokes its tokens: the PAT then gets 401', async () => {
    const { token } = await userWithTier('lifetime')
    const pat = await createPat(token)
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
    expect((await t.request('/api/user/me', { method: 'DELETE', token })).status).toBe(204)
    await problem(await t.request('/api/user/me', { token: pat.token }), 401, 'invalid_token')
    const left = { n: await sqlNumber(t.storage, 'SELECT count(*) AS n FROM personal_access_tokens WHERE id = $1', [pat.token_id]) }
    expect(left.n).toBe(0)
  })

  test('a PAT cannot delete the account or change the password (jwt_required)', async () => {
    const { token } = await userWithTier('pro')
    const pat = await createPat(token)
    await problem(await t.request('/api/user/me', { method: 'DELETE', token: pat.token }), 403, 'jwt_required')
    await problem(
      await t.request('/api/user/password', { method: 'POST', token: pat.token, json: { current_password: 'x', new_password: 'y' } }),
      403,
      'jwt_required',
    )
  })

  test('a password change leaves PATs working', async () => {
    const { token, password } = await userWithTier('starter')
    const pat = await createPat(token)
    const res = await t.request('/api/user/password', {
      method: 'POST',
      token,
      json: { current_password: password, new_password: 'another long passphrase' },
    })
    expect(res.status).toBe(204)
    expect((await t.request('/api/user/me', { token: pat.token })).status).toBe(200)
  })

  test('the secret never reaches the log', async () => {
    const { token } = await userWithTier('starter')
    const pat = await createPat(token)
    await t.request('/api/user/me', { token: pat.token })
    await t.request(`/api/user/tokens/${pat.token_id}`, { method: 'DELETE', token })
    await t.request('/api/user/me', { token: pat.token })
    await Bun.sleep(5)
    expect(t.log.text()).not.toContain(pat.token.slice(9))
  })
})
