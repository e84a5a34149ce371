// The payment state machine's pure parts (src/features/billing/state.ts): money, order keys,
// merging events in any order, and the tier a user's purchases grant.
import { describe, expect, test } from 'bun:test'
import {
  addOneMonth,
  applyChange,
  grantsAt,
  minorToDecimal,
  newSubscription,
  orderKey,
  planTier,
  RANK,
  sameAmount,
  type SubscriptionChange,
  type SubscriptionRecord,
  subscriptionView,
} from '../src/features/billing/state'

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 15, 12)

describe('money', () => {
  test('amounts compare exactly as decimals', () => {
    expect(sameAmount('199.00', '199.00')).toBe(true)
    expect(sameAmount('199', '199.00')).toBe(true)
    expect(sameAmount('0199.0', '199')).toBe(true)
    expect(sameAmount('199.01', '199.00')).toBe(false)
    expect(sameAmount('1990', '199.0')).toBe(false)
    expect(sameAmount('199.00000000000001', '199')).toBe(false)
    expect(sameAmount('-199', '199')).toBe(false)
    expect(sameAmount('1e2', '100')).toBe(false)
  })

  test('minor units to a decimal string per currency', () => {
    expect(minorToDecimal(19900, 'usd')).toBe('199.00')
    expect(minorToDecimal(5, 'EUR')).toBe('0.05')
    expect(minorToDecimal(19900, 'JPY')).toBe('19900')
    expect(minorToDecimal(1234, 'KWD')).toBe('1.234')
  })

  test('one billing cycle later: the same day next month, clamped to the month’s end', () => {
    expect(addOneMonth(new Date('2026-01-31T10:00:00Z')).toISOString()).toBe('2026-02-28T10:00:00.000Z')
    expect(addOneMonth(new Date('2026-12-15T00:00:00Z')).toISOString()).toBe('2027-01-15T00:00:00.000Z')
  })
})

describe('order keys', () => {
  test('sort by time, then rank, then id', () => {
    const keys = [
      orderKey(2000, RANK.start, 'b'),
      orderKey(1000, RANK.end, 'a'),
      orderKey(2000, RANK.end, 'a'),
      orderKey(2000, RANK.update, 'z'),
      orderKey(999_999_999_999_999, 0, 'a'),
    ]
    expect([...keys].sort()).toEqual([keys[1]!, keys[0]!, keys[3]!, keys[2]!, keys[4]!])
  })
})

function rnd(seed: number) {
  let x = seed
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return x / 2 ** 31
  }
}

describe('applying changes', () => {
  const change = (over: Partial<SubscriptionChange>): SubscriptionChange => ({ provider: 'wallet', subscriptionId: 'I-1', version: null, ...over })

  test('any order of the same changes gives the same subscription', () => {
    const changes: SubscriptionChange[] = [
      change({
        version: orderKey(NOW, RANK.start, 'e1'),
        status: 'active',
        tier: 'pro',
        periodEndAtLeast: new Date(NOW + 30 * DAY),
        suspension: 'resumed',
      }),
      change({ periodEndAtLeast: new Date(NOW + 60 * DAY) }),
      change({ version: orderKey(NOW + 1000, RANK.update, 'e3'), status: 'paused', suspension: 'suspended' }),
      change({ version: orderKey(NOW + 2000, RANK.update, 'e4'), status: 'active', suspension: 'resumed' }),
      change({
        version: orderKey(NOW + 3000, RANK.end, 'e5'),
        status: 'canceled',
        cancelAtPeriodEnd: true,
        periodEndAtLeast: new Date(NOW + 45 * DAY),
      }),
      change({ periodEndAtLeast: new Date(NOW + 10 * DAY) }),
    ]
    const run = (order: SubscriptionChange[]) => {
      let sub: SubscriptionRecord = newSubscription('x', 'u', order[0]!, new Date(NOW))
      for (const c of order) sub = applyChange(sub, c, new Date(NOW)).next
      const { updatedAt: _, ...rest } = sub
      return rest
    }
    const expected = run(changes)
    expect(expected).toMatchObject({
      status: 'canceled',
      tier: 'pro',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: new Date(NOW + 60 * DAY),
      suspendedVersion: orderKey(NOW + 1000, RANK.update, 'e3'),
      resumedVersion: orderKey(NOW + 2000, RANK.update, 'e4'),
    })
    expect(grantsAt(expected as SubscriptionRecord, NOW)).toBe(true)
    const r = rnd(42)
    for (let i = 0; i < 200; i++) {
      const order = [...changes].sort(() => r() - 0.5)
      expect(run(order)).toEqual(expected)
    }
  })

  test('an older status event is stale and changes nothing; a tier still fills an empty one', () => {
    const base = newSubscription('x', 'u', change({}), new Date(NOW))
    const cancelled = applyChange(base, change({ version: orderKey(NOW, RANK.end, 'b'), status: 'canceled' }), new Date(NOW)).next
    const older = applyChange(cancelled, change({ version: orderKey(NOW - 1, RANK.start, 'a'), status: 'active' }), new Date(NOW))
    expect(older).toMatchObject({ changed: false, stale: true })
    const filled = applyChange(cancelled, change({ version: orderKey(NOW - 1, RANK.start, 'a'), status: 'active', tier: 'starter' }), new Date(NOW))
    expect(filled).toMatchObject({ changed: true, stale: false, next: { status: 'canceled', tier: 'starter' } })
  })
})

describe('the tier a user holds', () => {
  const sub = (over: Partial<SubscriptionRecord>): SubscriptionRecord => ({
    ...newSubscription('s', 'u', { provider: 'card', subscriptionId: 'x', version: null }, new Date(NOW)),
    tier: 'starter',
    status: 'active',
    ...over,
  })

  test('lifetime beats everything and is never lowered; else the highest granting subscription; else free', () => {
    expect(planTier({ lifetime: true, currentTier: 'free', subscriptions: [] }, NOW)).toEqual({ tier: 'lifetime', next: null })
    expect(planTier({ lifetime: false, currentTier: 'lifetime', subscriptions: [sub({ status: 'canceled' })] }, NOW)).toEqual({
      tier: 'lifetime',
      next: null,
    })
    expect(planTier({ lifetime: false, currentTier: 'pro', subscriptions: [] }, NOW).tier).toBe('free')
    const subs = [sub({ tier: 'starter' }), sub({ tier: 'pro', status: 'trialing' }), sub({ tier: 'pro', status: 'unpaid' })]
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: subs }, NOW)).toEqual({ tier: 'pro', next: null })
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [sub({ tier: 'pro', status: 'past_due' })] }, NOW).tier).toBe('pro')
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [sub({ tier: null })] }, NOW).tier).toBe('free')
  })

  test('a cancelled wallet subscription grants until its period end, and the change after it is scheduled', () => {
    const end1 = new Date(NOW + 5 * DAY)
    const end2 = new Date(NOW + 9 * DAY)
    const wallet = (tier: 'starter' | 'pro', end: Date) => sub({ provider: 'wallet', tier, status: 'canceled', currentPeriodEnd: end })
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [wallet('pro', end1)] }, NOW)).toEqual({
      tier: 'pro',
      next: { at: end1, tier: 'free' },
    })
    // Two: pro until end1, then starter until end2 (the sweep schedules the second step).
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [wallet('pro', end1), wallet('starter', end2)] }, NOW)).toEqual({
      tier: 'pro',
      next: { at: end1, tier: 'starter' },
    })
    // An active starter under a cancelled pro: starter follows, for good.
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [wallet('pro', end1), sub({ tier: 'starter' })] }, NOW)).toEqual({
      tier: 'pro',
      next: { at: end1, tier: 'starter' },
    })
    // Suspended when it was cancelled: nothing to keep (re-activated before, it keeps its tier).
    const suspended = { suspendedVersion: orderKey(NOW - 2, RANK.update, 's'), resumedVersion: orderKey(NOW - 3, RANK.start, 'a') }
    expect(planTier({ lifetime: false, currentTier: 'pro', subscriptions: [{ ...wallet('pro', end1), ...suspended }] }, NOW)).toEqual({
      tier: 'free',
      next: null,
    })
    const resumed = { ...suspended, resumedVersion: orderKey(NOW - 1, RANK.update, 'r') }
    expect(planTier({ lifetime: false, currentTier: 'pro', subscriptions: [{ ...wallet('pro', end1), ...resumed }] }, NOW).tier).toBe('pro')
    // A cancelled card subscription grants nothing; a wallet one past its end neither.
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [sub({ status: 'canceled', currentPeriodEnd: end1 })] }, NOW).tier).toBe(
      'free',
    )
    expect(planTier({ lifetime: false, currentTier: 'free', subscriptions: [wallet('pro', new Date(NOW - 1))] }, NOW).tier).toBe('free')
  })
})

// Found by scripts/storm.ts: the same events in another order of arrival showed another
// subscription, because the view picked by when a row was last written, not by the events.
describe('the subscription shown does not depend on the order the events arrived in', () => {
  const sub = (id: string, over: Partial<SubscriptionRecord>): SubscriptionRecord => ({
    ...newSubscription(id, 'u', { provider: 'card', subscriptionId: id, version: null }, new Date(NOW)),
    tier: 'starter',
    ...over,
  })
  const both = (a: SubscriptionRecord, b: SubscriptionRecord) => [
    subscriptionView('free', null, [a, b], NOW),
    subscriptionView('free', null, [b, a], NOW),
  ]

  test('none grants: the one whose last event is the latest, whichever row was written last', () => {
    const card = sub('sub_1', { status: 'canceled', version: orderKey(NOW - 5 * DAY, RANK.end, 'evt_1'), updatedAt: new Date(NOW) })
    const wallet = sub('I-1', {
      provider: 'wallet',
      status: 'paused',
      version: orderKey(NOW - 2 * DAY, RANK.update, 'WH-1'),
      currentPeriodEnd: new Date(NOW - DAY),
      updatedAt: new Date(NOW - 3 * DAY),
    })
    for (const view of both(card, wallet)) expect(view).toMatchObject({ provider: 'wallet', status: 'paused' })
  })

  test('two that grant the same tier until the same end: always the same one', () => {
    const end = new Date(NOW + 10 * DAY)
    const a = sub('sub_a', { status: 'active', currentPeriodEnd: end, version: orderKey(NOW - DAY, RANK.update, 'evt_a'), cancelAtPeriodEnd: true })
    const b = sub('sub_b', {
      status: 'active',
      currentPeriodEnd: end,
      version: orderKey(NOW - 2 * DAY, RANK.update, 'evt_b'),
      updatedAt: new Date(NOW + 1),
    })
    const [first, second] = both(a, b)
    expect(first).toEqual(second!)
    expect(first).toMatchObject({ cancel_at_period_end: true })
  })
})
