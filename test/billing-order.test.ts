// Out of order, repeated, concurrent, on two instances: the same events delivered any way end in
// the same state as one serial replay (contract section 8: "Events can arrive out of order").
import { afterAll, describe, expect, test } from 'bun:test'
import { createApp } from '../src/app'
import { openStorage } from '../src/db'
import { createMemoryLogger } from '../src/log'
import { register, TEST_ENGINE, TEST_JWT_SECRET } from './support/app'
import { checkoutCompleted, paymentsApp, subscriptionEvent, subscriptionObject } from './support/billing'
import { PAYPAL_PLANS, paypalEvent, signPaypal } from './support/fake-paypal'
import { signStripe, STRIPE_PRICES } from './support/fake-stripe'
import { sqlRows } from './support/sql'

const p = await paymentsApp()
const { t } = p
afterAll(() => p.close())

const DAY = 86_400_000
const BASE = Date.now() - 10 * DAY
const iso = (ms: number) => new Date(ms).toISOString()

interface Delivery {
  provider: 'card' | 'wallet'
  body: string
}

/**
 * One user's history, in the order it happened (timestamps strictly increase). The card
 * provider's subscription objects carry the user in their metadata, as the checkout set it.
 */
function history(userId: string, tag: string, withLifetime: boolean): Delivery[] {
  const s = Math.floor(BASE / 1000)
  const sub = `sub_${tag}`
  const wsub = `I-${tag}`
  const card = (body: string): Delivery => ({ provider: 'card', body })
  const wallet = (body: string): Delivery => ({ provider: 'wallet', body })
  const end = BASE + 30 * DAY
  const out: Delivery[] = [
    card(
      checkoutCompleted({ id: userId }, 'starter', {
        subscription: sub,
        customer: `cus_${tag}`,
        session: `cs_${tag}`,
        created: s,
        id: `evt_${tag}_1`,
      }),
    ),
    card(
      subscriptionEvent('updated', subscriptionObject(sub, { userId, customer: `cus_${tag}`, periodEnd: end, price: STRIPE_PRICES.starter }), {
        created: s + 1,
        id: `evt_${tag}_2`,
      }),
    ),
    card(
      subscriptionEvent('updated', subscriptionObject(sub, { userId, customer: `cus_${tag}`, periodEnd: end, price: STRIPE_PRICES.pro }), {
        created: s + 2,
        id: `evt_${tag}_3`,
      }),
    ),
    card(
      subscriptionEvent(
        'updated',
        subscriptionObject(sub, { userId, customer: `cus_${tag}`, periodEnd: end, price: STRIPE_PRICES.pro, cancelAtPeriodEnd: true }),
        { created: s + 3, id: `evt_${tag}_4` },
      ),
    ),
    card(
      subscriptionEvent(
        'deleted',
        subscriptionObject(sub, { userId, customer: `cus_${tag}`, status: 'canceled', periodEnd: end, price: STRIPE_PRICES.pro }),
        { created: s + 4, id: `evt_${tag}_5` },
      ),
    ),
    wallet(
      paypalEvent(
        'BILLING.SUBSCRIPTION.ACTIVATED',
        { id: wsub, plan_id: PAYPAL_PLANS.starter, custom_id: userId, billing_info: { next_billing_time: iso(BASE + 20 * DAY) } },
        { id: `WH-${tag}-6`, createTime: iso(BASE + 5000) },
      ),
    ),
    wallet(
      paypalEvent(
        'PAYMENT.SALE.COMPLETED',
        {
          id: `SALE-${tag}-7`,
          amount: { total: '9.00', currency: 'USD' },
          custom: userId,
          billing_agreement_id: wsub,
          create_time: iso(BASE + 19 * DAY),
        },
        { id: `WH-${tag}-7`, createTime: iso(BASE + 6000) },
      ),
    ),
    wallet(
      paypalEvent(
        'BILLING.SUBSCRIPTION.CANCELLED',
        { id: wsub, plan_id: PAYPAL_PLANS.starter, custom_id: userId },
        { id: `WH-${tag}-8`, createTime: iso(BASE + 7000) },
      ),
    ),
  ]
  if (withLifetime) {
    out.push(
      wallet(
        paypalEvent(
          'PAYMENT.SALE.COMPLETED',
          { id: `SALE-${tag}-9`, amount: { total: '199.00', currency: 'USD' }, custom: userId },
          { id: `WH-${tag}-9`, createTime: iso(BASE + 8000) },
        ),
      ),
    )
  }
  return out
}

async function deliver(d: Delivery, instance: { request: typeof t.request } = t): Promise<number> {
  const headers: Record<string, string> =
    d.provider === 'card' ? { 'stripe-signature': await signStripe(d.body) } : signPaypal(d.body, p.paypal.certUrl)
  const path = d.provider === 'card' ? '/api/payments/webhook' : '/api/payments/altpay/webhook'
  const res = await instance.request(path, { method: 'POST', body: d.body, headers: { 'content-type': 'application/json', ...headers } })
  await res.text()
  return res.status
}

/** Everything billing keeps about a user, without ids and creation times, the tag replaced. */
async function stateOf(userId: string, tag: string) {
  const clean = (v: unknown) =>
    typeof v === 'string'
      ? v.replaceAll(tag, 'TAG')
      : v instanceof Date
        ? v.getTime()
        : v === null
          ? null
          : Number.isFinite(Number(v)) && typeof v !== 'boolean'
            ? Number(v)
            : v
  const rows = async (q: string) =>
    (await sqlRows(t.storage, q, [userId])).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, clean(v)])))
  return {
    user: await rows('SELECT tier, tier_until, tier_after FROM users WHERE id = $1'),
    subscriptions: await rows(
      'SELECT provider, provider_subscription_id, tier, status, current_period_end, cancel_at_period_end, version FROM subscriptions WHERE user_id = $1 ORDER BY provider, provider_subscription_id',
    ),
    payments: await rows(
      'SELECT provider, provider_payment_id, kind, amount, currency, grants_lifetime FROM payments WHERE user_id = $1 ORDER BY provider_payment_id',
    ),
    mail: await rows('SELECT dedupe_key, subject FROM mail_outbox WHERE user_id = $1 ORDER BY dedupe_key'),
  }
}

/** A small seeded generator, so a failing order can be replayed. */
function random(seed: number) {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

describe('shuffled, repeated and concurrent deliveries end as the serial replay does', () => {
  for (const withLifetime of [false, true]) {
    test(`${withLifetime ? 'with' : 'without'} a lifetime purchase: 8 shuffles`, async () => {
      const serialUser = await register(t)
      const serialTag = `s${serialUser.user.id}`
      for (const d of history(serialUser.user.id, serialTag, withLifetime)) expect(await deliver(d)).toBe(200)
      const expected = await stateOf(serialUser.user.id, serialTag)
      expect(expected.user[0]!.tier).toBe(withLifetime ? 'lifetime' : 'starter')

      for (let seed = 1; seed <= 8; seed++) {
        const rnd = random(seed * 7919 + (withLifetime ? 1 : 0))
        const user = await register(t)
        const tag = `r${seed}${user.user.id}`
        const events = history(user.user.id, tag, withLifetime)
        // Shuffle, then add repeats of random events.
        const order = [...events]
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(rnd() * (i + 1))
          ;[order[i], order[j]] = [order[j]!, order[i]!]
        }
        for (let k = 0; k < 3; k++) order.splice(Math.floor(rnd() * order.length), 0, events[Math.floor(rnd() * events.length)]!)
        // Deliver in batches of 1–4 sent at once.
        for (let i = 0; i < order.length; ) {
          const n = 1 + Math.floor(rnd() * 4)
          const statuses = await Promise.all(order.slice(i, i + n).map((d) => deliver(d)))
          expect(statuses.every((s) => s === 200)).toBe(true)
          i += n
        }
        expect({ seed, ...(await stateOf(user.user.id, tag)) }).toEqual({ seed, ...expected })
      }
    })
  }
})

// Several instances share a database only on PostgreSQL (docs/scaling.md); two SQLite storages in
// one process would wait for each other's lock on one JavaScript thread.
describe.skipIf(TEST_ENGINE === 'sqlite')('two instances on one PostgreSQL database', () => {
  test('a delivery that reaches both at once is applied once', async () => {
    const { storage } = await openStorage(t.config, { poolSize: 4 })
    const other = createApp({ config: t.config, storage, log: createMemoryLogger('warn'), jwtSecret: TEST_JWT_SECRET })
    const second = {
      request: (path: string, init: RequestInit = {}) => other.handle(new Request(`http://localhost${path}`, init)),
    } as unknown as { request: typeof t.request }
    try {
      for (let round = 0; round < 5; round++) {
        const user = await register(t)
        const events = history(user.user.id, `i${round}${user.user.id}`, true)
        // Every event to both instances at the same moment, all events at once.
        await Promise.all(events.flatMap((d) => [deliver(d), deliver(d, second)]))
        const [counts] = await sqlRows<{ payments: number; mails: number }>(
          t.storage,
          'SELECT (SELECT count(*) FROM payments WHERE user_id = $1) AS payments, (SELECT count(*) FROM mail_outbox WHERE user_id = $1) AS mails',
          [user.user.id],
        )
        expect({ payments: Number(counts!.payments), mails: Number(counts!.mails) }).toEqual({ payments: 3, mails: 2 })
        const [row] = await sqlRows<{ n: number }>(t.storage, `SELECT count(*) AS n FROM webhook_events WHERE event_id LIKE $1`, [
          `%i${round}${user.user.id}%`,
        ])
        expect(Number(row!.n)).toBe(events.length)
        expect((await sqlRows(t.storage, 'SELECT tier FROM users WHERE id = $1', [user.user.id]))[0]).toEqual({ tier: 'lifetime' })
      }
    } finally {
      await storage.close()
    }
  })
})
