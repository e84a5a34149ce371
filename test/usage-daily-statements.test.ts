// consumeDaily on prepared statements: the same semantics whether called on the database or
// inside a transaction, for limited, unlimited and item-metered counters.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase, writeTransaction } from '../src/db/sqlite/client'
import { runMigrations } from '../src/db/sqlite/migrate'
import { consumeDaily, dailyUsed, refundDaily, todayUtc, utcDay } from '../src/features/usage/daily'
import { tempDir } from './support/app'

function freshDb() {
  const db = openDatabase(join(tempDir(), 'daily.db'))
  runMigrations(db)
  return db
}

const NOW = new Date('2026-11-22T10:00:00Z')

describe('consumeDaily', () => {
  test('a limit of 3: three units, then refusals that change nothing; a refund gives one back', () => {
    const db = freshDb()
    const take = () => consumeDaily(db, { subject: 'user:a', metric: 'optimizations', limit: 3, now: NOW })
    expect([take(), take(), take()].map((r) => r.allowed && r.quota.remaining)).toEqual([2, 1, 0])
    const refused = take()
    expect(refused).toMatchObject({ allowed: false, quota: { used: 3, limit: 3, remaining: 0 } })
    expect(dailyUsed(db, 'user:a', 'optimizations', NOW)).toBe(3)
    refundDaily(db, 'user:a', 'optimizations', utcDay(NOW))
    expect(take()).toMatchObject({ allowed: true, quota: { used: 3 } })
  })

  test('a limit of 0 refuses without writing anything', () => {
    const db = freshDb()
    expect(consumeDaily(db, { subject: 'user:z', metric: 'optimizations', limit: 0, now: NOW })).toMatchObject({ allowed: false, quota: { used: 0 } })
    expect(consumeDaily(db, { subject: 'user:z', metric: 'prompts', limit: 0, item: 'p', now: NOW }).allowed).toBe(false)
    expect(db.$client.query('SELECT count(*) AS n FROM daily_usage').get()).toEqual({ n: 0 })
    expect(db.$client.query('SELECT count(*) AS n FROM daily_usage_items').get()).toEqual({ n: 0 })
  })

  test('concurrent callers on separate connections never exceed the limit', async () => {
    const file = join(tempDir(), 'shared.db')
    const first = openDatabase(file)
    runMigrations(first)
    const connections = [first, openDatabase(file), openDatabase(file)]
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        await Bun.sleep(i % 3)
        return consumeDaily(connections[i % 3]!, { subject: 'user:x', metric: 'optimizations', limit: 10, now: NOW }).allowed
      }),
    )
    expect(results.filter(Boolean)).toHaveLength(10)
    expect(dailyUsed(first, 'user:x', 'optimizations', NOW)).toBe(10)
  })

  test('unlimited still counts; subjects, metrics and days are separate counters', () => {
    const db = freshDb()
    for (let i = 0; i < 5; i++) expect(consumeDaily(db, { subject: 'user:b', metric: 'optimizations', limit: null, now: NOW }).allowed).toBe(true)
    expect(dailyUsed(db, 'user:b', 'optimizations', NOW)).toBe(5)
    expect(dailyUsed(db, 'user:b', 'prompts', NOW)).toBe(0)
    expect(dailyUsed(db, 'user:c', 'optimizations', NOW)).toBe(0)
    const tomorrow = new Date(NOW.getTime() + 86_400_000)
    expect(consumeDaily(db, { subject: 'user:b', metric: 'optimizations', limit: 1, now: tomorrow })).toMatchObject({ allowed: true, quota: { used: 1 } })
  })

  test('items: the same item twice counts once; a refused new item is not left claimed', () => {
    const db = freshDb()
    const view = (item: string) => consumeDaily(db, { subject: 'ip:1.2.3.4', metric: 'prompts', limit: 2, item, now: NOW })
    expect(view('p1')).toMatchObject({ allowed: true, counted: true })
    expect(view('p1')).toMatchObject({ allowed: true, counted: false, quota: { used: 1 } })
    expect(view('p2')).toMatchObject({ allowed: true, counted: true, quota: { used: 2 } })
    expect(view('p3')).toMatchObject({ allowed: false })
    expect(view('p1')).toMatchObject({ allowed: true, counted: false })
    const claims = db.$client.query("SELECT item FROM daily_usage_items WHERE subject = 'ip:1.2.3.4' ORDER BY item").all()
    expect(claims).toEqual([{ item: 'p1' }, { item: 'p2' }])
  })

  test('inside an outer transaction it joins it: a rollback there undoes the unit', () => {
    const db = freshDb()
    expect(() =>
      writeTransaction(db, (tx) => {
        expect(consumeDaily(tx, { subject: 'user:d', metric: 'optimizations', limit: 3, now: NOW }).allowed).toBe(true)
        throw new Error('the caller refuses after all')
      }),
    ).toThrow('the caller refuses after all')
    expect(dailyUsed(db, 'user:d', 'optimizations', NOW)).toBe(0)
    writeTransaction(db, (tx) => consumeDaily(tx, { subject: 'user:d', metric: 'optimizations', limit: 3, now: NOW }))
    expect(dailyUsed(db, 'user:d', 'optimizations', NOW)).toBe(1)
  })

  test('two databases keep their own statements', () => {
    const one = freshDb()
    const two = freshDb()
    consumeDaily(one, { subject: 'user:e', metric: 'optimizations', limit: null, now: NOW })
    consumeDaily(two, { subject: 'user:e', metric: 'optimizations', limit: null, now: NOW })
    consumeDaily(two, { subject: 'user:e', metric: 'optimizations', limit: null, now: NOW })
    expect([dailyUsed(one, 'user:e', 'optimizations', NOW), dailyUsed(two, 'user:e', 'optimizations', NOW)]).toEqual([1, 2])
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
