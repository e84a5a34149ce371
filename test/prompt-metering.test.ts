// "Prompts per day": free and anonymous callers open 10 distinct prompts per UTC day (contract section 5).
import { beforeAll, describe, expect, test } from 'bun:test'
import { utcDay } from '../src/features/usage'
import { json, makeTestApp, problem, register } from './support/app'
import { loadTestCatalogue, promptIds, setTier } from './support/catalogue'

const t = await makeTestApp({ TRUST_PROXY: 'true' })
let ids: string[] = []
let ipCounter = 0
const freshIp = () => `203.0.113.${++ipCounter}`
const open = (id: string, init: { ip?: string; token?: string } = {}) =>
  t.request(`/api/prompts/${id}`, { token: init.token, headers: init.ip ? { 'x-forwarded-for': init.ip } : {} })

beforeAll(async () => {
  await loadTestCatalogue(t)
  ids = await promptIds(t)
})

describe('anonymous callers (per client address)', async () => {
  test('10 distinct prompts, re-opening is free, the 11th → 429 with Retry-After and RateLimit headers', async () => {
    const ip = freshIp()
    for (let i = 0; i < 10; i++) {
      const res = await open(ids[i]!, { ip })
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-limit')).toBe('10')
      expect(res.headers.get('ratelimit-remaining')).toBe(String(9 - i))
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
    }
    const again = await open(ids[3]!, { ip })
    expect(again.status).toBe(200)
    expect(again.headers.get('ratelimit-remaining')).toBe('0')
    const refused = await open(ids[10]!, { ip })
    const body = await problem(refused, 429, 'daily_limit_reached')
    expect(body).toMatchObject({ limit: 10, used: 10 })
    const midnight = new Date(`${utcDay(new Date())}T00:00:00.000Z`).getTime() + 86_400_000
    expect(new Date(body.resets_at as string).getTime()).toBe(midnight)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    // Another address has its own budget.
    expect((await open(ids[10]!, { ip: freshIp() })).status).toBe(200)
  })

  test('HEAD answers what GET would (status, RateLimit headers, no body) without counting a view', async () => {
    const ip = freshIp()
    const head = (id: string) => t.request(`/api/prompts/${id}`, { method: 'HEAD', headers: { 'x-forwarded-for': ip } })
    for (let i = 0; i < 12; i++) {
      const res = await head(ids[i]!)
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-remaining')).toBe('10')
      expect(await res.text()).toBe('')
    }
    for (let i = 0; i < 10; i++) expect((await open(ids[i]!, { ip })).headers.get('ratelimit-remaining')).toBe(String(9 - i))
    // Used up: a prompt opened today is still free, a new one is refused, and HEAD says so.
    const opened = await head(ids[4]!)
    expect({ status: opened.status, remaining: opened.headers.get('ratelimit-remaining') }).toEqual({ status: 200, remaining: '0' })
    const refused = await head(ids[11]!)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await head('99999999-9999-4999-8999-999999999999')).status).toBe(404)
  })

  test('unknown prompts and invalid ids cost nothing', async () => {
    const ip = freshIp()
    for (let i = 0; i < 15; i++) await open('99999999-9999-4999-8999-999999999999', { ip })
    await open('not-a-uuid', { ip })
    const res = await open(ids[0]!, { ip })
    expect(res.headers.get('ratelimit-remaining')).toBe('9')
  })

  test('with 9 used, 20 concurrent opens of different prompts let exactly one through', async () => {
    const ip = freshIp()
    for (let i = 0; i < 9; i++) expect((await open(ids[i]!, { ip })).status).toBe(200)
    const results = await Promise.all(ids.slice(20, 40).map((id) => open(id, { ip })))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 429)).toHaveLength(19)
  })
})

describe('signed-in users', async () => {
  test('free: counted per user, whatever the address; /api/user/me shows the count', async () => {
    const { token } = await register(t, { ip: freshIp() })
    for (let i = 0; i < 10; i++) expect((await open(ids[i]!, { token, ip: freshIp() })).status).toBe(200)
    await problem(await open(ids[10]!, { token, ip: freshIp() }), 429, 'daily_limit_reached')
    const me = await json(await t.request('/api/user/me', { token }))
    expect(me.usage.prompts_today).toBe(10)
  })

  test('starter and above: unlimited, still counted', async () => {
    const { token, user } = await register(t, { ip: freshIp() })
    await setTier(t, user.id, 'starter')
    for (let i = 0; i < 15; i++) {
      const res = await open(ids[i]!, { token })
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-limit')).toBeNull()
    }
    expect((await json(await t.request('/api/user/me', { token }))).usage.prompts_today).toBe(15)
  })

  test('a user over the limit through another path (the counter is in the database)', async () => {
    const { token, user } = await register(t, { ip: freshIp() })
    for (let i = 0; i < 10; i++) await t.services.usage.consume({ subject: `user:${user.id}`, metric: 'prompts', limit: 10, item: `elsewhere-${i}` })
    await problem(await open(ids[0]!, { token }), 429, 'daily_limit_reached')
  })
})
