// Daily counters through the usage service, on the engine this run tests: limits, refunds,
// items that count once, separate counters, joining a caller's transaction; and UTC days.
import { describe, expect, test } from 'bun:test'
import { todayUtc, utcDay } from '../src/features/usage'
import { makeTestApp } from './support/app'
import { sqlNumber, sqlRows } from './support/sql'

const NOW = new Date('2026-11-22T10:00:00Z')

describe('daily counters', async () => {
  const t = await makeTestApp()
  const usage = t.services.usage
  let n = 0
  const subject = (kind = 'user') => `${kind}:usage-${n++}`

  test('a limit of 3: three units, then refusals that change nothing; a refund gives one back', async () => {
    const s = subject()
    const take = () => usage.consume({ subject: s, metric: 'optimizations', limit: 3, now: NOW })
    const first = [await take(), await take(), await take()]
    expect(first.map((r) => r.allowed && r.quota.remaining)).toEqual([2, 1, 0])
    expect(await take()).toMatchObject({ allowed: false, quota: { used: 3, limit: 3, remaining: 0 } })
    expect(await usage.used(s, 'optimizations', NOW)).toBe(3)
    await usage.refund(s, 'optimizations', utcDay(NOW))
    expect(await take()).toMatchObject({ allowed: true, quota: { used: 3 } })
  })

  test('a limit of 0 refuses without writing anything', async () => {
    const s = subject()
    expect(await usage.consume({ subject: s, metric: 'optimizations', limit: 0, now: NOW })).toMatchObject({ allowed: false, quota: { used: 0 } })
    expect((await usage.consume({ subject: s, metric: 'prompts', limit: 0, item: 'p', now: NOW })).allowed).toBe(false)
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM daily_usage WHERE subject = $1', [s])).toBe(0)
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM daily_usage_items WHERE subject = $1', [s])).toBe(0)
  })

  test('unlimited still counts; subjects, metrics and days are separate counters', async () => {
    const s = subject()
    for (let i = 0; i < 5; i++) expect((await usage.consume({ subject: s, metric: 'optimizations', limit: null, now: NOW })).allowed).toBe(true)
    expect(await usage.used(s, 'optimizations', NOW)).toBe(5)
    expect(await usage.used(s, 'prompts', NOW)).toBe(0)
    expect(await usage.used(subject(), 'optimizations', NOW)).toBe(0)
    const tomorrow = new Date(NOW.getTime() + 86_400_000)
    expect(await usage.consume({ subject: s, metric: 'optimizations', limit: 1, now: tomorrow })).toMatchObject({ allowed: true, quota: { used: 1 } })
  })

  test('items: the same item twice counts once; a refused new item is not left claimed', async () => {
    const s = subject('ip')
    const view = (item: string) => usage.consume({ subject: s, metric: 'prompts', limit: 2, item, now: NOW })
    expect(await view('p1')).toMatchObject({ allowed: true, counted: true })
    expect(await view('p1')).toMatchObject({ allowed: true, counted: false, quota: { used: 1 } })
    expect(await view('p2')).toMatchObject({ allowed: true, counted: true, quota: { used: 2 } })
    expect(await view('p3')).toMatchObject({ allowed: false })
    expect(await view('p1')).toMatchObject({ allowed: true, counted: false })
    const claims = await sqlRows<{ item: string }>(t.storage, 'SELECT item FROM daily_usage_items WHERE subject = $1 ORDER BY item', [s])
    expect(claims.map((c) => c.item)).toEqual(['p1', 'p2'])
  })

  test('inside a caller’s transaction it joins it: a rollback there undoes the unit', async () => {
    const s = subject()
    await expect(
      t.storage.transaction(async (tx) => {
        expect((await usage.consume({ subject: s, metric: 'optimizations', limit: 3, now: NOW }, tx)).allowed).toBe(true)
        throw new Error('the caller refuses after all')
      }),
    ).rejects.toThrow('the caller refuses after all')
    expect(await usage.used(s, 'optimizations', NOW)).toBe(0)
    await t.storage.transaction((tx) => usage.consume({ subject: s, metric: 'optimizations', limit: 3, now: NOW }, tx))
    expect(await usage.used(s, 'optimizations', NOW)).toBe(1)
  })

  test('forgetting a subject removes its counters and items', async () => {
    const s = subject()
    await usage.consume({ subject: s, metric: 'prompts', limit: 10, item: 'x', now: NOW })
    await usage.forgetSubject(s)
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM daily_usage WHERE subject = $1', [s])).toBe(0)
    expect(await sqlNumber(t.storage, 'SELECT count(*) FROM daily_usage_items WHERE subject = $1', [s])).toBe(0)
  })
})

describe('todayUtc', () => {
  const at = (iso: string) => Date.parse(iso)
  test('is the UTC day of the given instant, across midnight and back again', () => {
    expect(todayUtc(at('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01')
    expect(todayUtc(at('2026-03-02T00:00:00.000Z'))).toBe('2026-03-02')
    expect(todayUtc(at('2026-03-02T12:00:00.000Z'))).toBe('2026-03-02')
    // a clock set back (NTP step, a test's fake time) is not stuck on the later day
    expect(todayUtc(at('2026-03-01T08:00:00.000Z'))).toBe('2026-03-01')
    expect(todayUtc(at('2024-02-29T00:00:00.000Z'))).toBe('2024-02-29')
    expect(todayUtc(at('2024-12-31T23:59:59.999Z'))).toBe('2024-12-31')
    expect(todayUtc(at('2025-01-01T00:00:00.000Z'))).toBe('2025-01-01')
  })
  test('defaults to now', () => {
    expect(todayUtc()).toBe(utcDay(new Date()))
  })
})
