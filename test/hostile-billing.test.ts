// Payments under hostile or unusual clients and providers: what a delivery or a checkout request
// can send that the friendlier billing-*.test.ts files do not (contract sections 2 and 8). Real
// app on real storage (SQLite, or PostgreSQL on the suite's PostgreSQL pass), signatures made by
// the real `stripe` SDK and by a real RSA key whose certificate the fake PayPal serves.
import { afterAll, describe, expect, test } from 'bun:test'
import { json, loggedSince, makeTestApp, problem, register } from './support/app'
import {
  billingCounts,
  checkoutCompleted,
  FRONTEND,
  PUBLIC,
  paymentsApp,
  subscriptionEvent,
  subscriptionObject,
  subscriptionOf,
  tierOf,
  walletSubscription,
} from './support/billing'
import { PAYPAL_PLANS, paypalEvent, signPaypal, startFakePaypal } from './support/fake-paypal'
import { signStripe, STRIPE_PRICES, stripeEvent } from './support/fake-stripe'
import { sqlRows, sqlRun } from './support/sql'

const p = await paymentsApp()
const { t, paypal } = p
// A real server on loopback for what only a socket can send (a body without a length).
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.handle })
afterAll(async () => {
  await server.stop(true)
  p.close()
})

const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
/** Every order of arrival of `items`. */
const orders = <T>(items: T[]): T[][] =>
  items.length <= 1 ? [items] : items.flatMap((item, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]))
const sec = (ms: number) => Math.floor(ms / 1000)

const outcome = async (res: Response) => {
  const body = await json(res)
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${JSON.stringify(body)}`)
  return body.outcome as string
}

/** What a problem body must never carry (contract section 2). */
function expectNoLeak(text: string) {
  for (const leak of [
    /\bat .+:\d+:\d+/,
    /\/work\/|\/src\/|node_modules/,
    /SQLITE_|constraint failed|syntax error|duplicate key|violates/i,
    /TypeError|undefined is not/,
  ]) {
    expect({ text: text.slice(0, 300), leak: leak.test(text) }).toEqual({ text: text.slice(0, 300), leak: false })
  }
}

describe('card signature games', () => {
  test('several v1 signatures pass only when one of them is ours; spaces, other schemes, a second t= and case games do not', async () => {
    const user = await register(t)
    const body = checkoutCompleted(user.user, 'starter')
    const good = await signStripe(body)
    const ts = /t=(\d+)/.exec(good)![1]!
    const sig = /v1=([0-9a-f]+)/.exec(good)![1]!
    const other = /v1=([0-9a-f]+)/.exec(await signStripe(body, { secret: 'whsec_someone_else' }))![1]!
    const before = await billingCounts(t)
    for (const header of [
      `t=${ts},v1=${other},v1=${other.replace(/.$/, '0')}`,
      `t=${ts}, v1=${sig}`,
      ` t=${ts},v1=${sig}`.replace('t=', 't ='),
      `t=${ts},v0=${sig}`,
      `t=${ts},V1=${sig}`,
      `t=${ts},v1=${sig.toUpperCase()}`,
      `t=${Number(ts) - 400},v1=${sig}`,
      `t=${ts},v1=${sig},t=${Number(ts) + 1}`,
      `v1=${sig}`,
      `t=,v1=${sig}`,
      `t=${ts}`,
      'garbage',
    ]) {
      const res = await p.deliverCard(body, { 'stripe-signature': header })
      expect({ header, status: res.status }).toEqual({ header, status: 400 })
      await problem(res, 400, 'invalid_signature')
    }
    expect(await billingCounts(t)).toEqual(before)
    // Stripe lists a signature per active secret (a secret being rolled): one of ours is enough.
    expect(await outcome(await p.deliverCard(body, { 'stripe-signature': `t=${ts},v1=${other},v1=${sig}` }))).toBe('applied')
    expect(await tierOf(t, user)).toBe('starter')
  })

  test('a signature over the same event with another timestamp, or another event’s signature, is refused', async () => {
    const user = await register(t)
    const body = checkoutCompleted(user.user, 'pro')
    const old = sec(Date.now()) - 3600
    const stale = await signStripe(body, { timestamp: old })
    // Moving t= forward does not move the signature with it.
    const moved = stale.replace(`t=${old}`, `t=${sec(Date.now())}`)
    await problem(await p.deliverCard(body, { 'stripe-signature': moved }), 400, 'invalid_signature')
    const another = await signStripe(checkoutCompleted(user.user, 'pro'))
    await problem(await p.deliverCard(body, { 'stripe-signature': another }), 400, 'invalid_signature')
    expect(await tierOf(t, user)).toBe('free')
  })

  test('bytes that are not UTF-8, signed as they are: 400, nothing stored, no error logged', async () => {
    const user = await register(t)
    const text = checkoutCompleted(user.user, 'pro')
    const bytes = Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0xff, 0xfe]), Buffer.from('}')])
    const before = await billingCounts(t)
    const lines = t.log.lines().length
    const card = await t.request('/api/payments/webhook', {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'application/json', 'stripe-signature': await signStripe(bytes.toString('latin1')) },
    })
    expect(card.status).toBe(400)
    const wallet = await t.request('/api/payments/altpay/webhook', {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'application/json', ...signPaypal(bytes.toString('latin1'), paypal.certUrl) },
    })
    expect(wallet.status).toBe(400)
    expect(await billingCounts(t)).toEqual(before)
    expect(loggedSince(t, lines)).toEqual([])
  })

  test('a body of no declared length over 1 MiB, through a real socket: 413 on both webhooks', async () => {
    for (const path of ['/api/payments/webhook', '/api/payments/altpay/webhook']) {
      const chunk = new TextEncoder().encode(`{"pad":"${'x'.repeat(64 * 1024)}`)
      let sent = 0
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 20) controller.enqueue(chunk)
          else controller.close()
        },
      })
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method: 'POST',
        body: stream,
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      })
      await problem(res, 413, 'payload_too_large')
    }
  })
})

describe('wallet signature games', () => {
  test('a certificate URL under an allowed prefix that serves no certificate: 400 invalid_signature, not a 5xx', async () => {
    const fake = startFakePaypal()
    try {
      const app = await makeTestApp({ ...fake.env({ PAYPAL_CERT_URL_PREFIXES: `${fake.url}/` }), FRONTEND_URL: FRONTEND, PUBLIC_URL: PUBLIC })
      const user = await register(app)
      const body = paypalEvent('PAYMENT.SALE.COMPLETED', {
        id: `SALE-${crypto.randomUUID()}`,
        amount: { total: '199.00', currency: 'USD' },
        custom: user.user.id,
      })
      // Anyone can name such a URL: PayPal answers 404 (here: the fake's 401) for a certificate it never issued.
      for (const certUrl of [`${fake.url}/v1/notifications/certs/CERT-made-up`, `${fake.url}/`]) {
        const res = await app.request('/api/payments/altpay/webhook', {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...signPaypal(body, certUrl) },
        })
        const text = await res.clone().text()
        expect({ certUrl, status: res.status }).toEqual({ certUrl, status: 400 })
        await problem(res, 400, 'invalid_signature')
        expectNoLeak(text)
      }
      expect(await tierOf(app, user)).toBe('free')
    } finally {
      fake.close()
    }
  })

  test('a signature does not carry another transmission time; the algorithm name is exact; a certificate URL cannot climb out of its prefix', async () => {
    const user = await register(t)
    const body = paypalEvent('PAYMENT.SALE.COMPLETED', {
      id: `SALE-${crypto.randomUUID()}`,
      amount: { total: '199.00', currency: 'USD' },
      custom: user.user.id,
    })
    const good = signPaypal(body, paypal.certUrl)
    const before = await billingCounts(t)
    for (const headers of [
      { ...good, 'paypal-transmission-time': new Date(Date.now() + 1000).toISOString() },
      { ...good, 'paypal-auth-algo': 'sha256withrsa' },
      { ...good, 'paypal-auth-algo': 'none' },
      { ...good, 'paypal-transmission-sig': '!!!not base64!!!' },
      { ...good, 'paypal-cert-url': `${paypal.certUrl}/../../../v1/oauth2/token` },
    ]) {
      await problem(await p.deliverWallet(body, headers), 400, 'invalid_signature')
    }
    expect(await billingCounts(t)).toEqual(before)
  })
})

describe('events that name someone else, or no one', () => {
  test('a checkout whose Stripe customer is already linked to another user still grants the tier it paid for', async () => {
    const first = await register(t)
    const second = await register(t)
    const customer = `cus_shared_${crypto.randomUUID()}`
    const t0 = sec(Date.now()) - 100
    expect(await outcome(await p.deliverCard(checkoutCompleted(first.user, 'starter', { customer, created: t0 })))).toBe('applied')
    const lines = t.log.lines().length
    // The second user's checkout names the same customer (a shared card account, a support merge).
    const res = await p.deliverCard(checkoutCompleted(second.user, 'pro', { customer, created: t0 + 1 }))
    const text = await res.clone().text()
    expectNoLeak(text)
    expect(await outcome(res)).toBe('applied')
    expect(await tierOf(t, second)).toBe('pro')
    // A lifetime checkout the same way.
    const third = await register(t)
    expect(await outcome(await p.deliverCard(checkoutCompleted(third.user, 'lifetime', { customer, created: t0 + 2 })))).toBe('applied')
    expect(await tierOf(t, third)).toBe('lifetime')
    // The first link stands.
    expect(await sqlRows(t.storage, 'SELECT user_id FROM billing_customers WHERE customer_id = $1', [customer])).toEqual([{ user_id: first.user.id }])
    expect(loggedSince(t, lines)).toEqual([])
  })

  test('updates, deletions and renewals of a subscription and customer never seen, with no user: 200 unknown_user, nothing but the record', async () => {
    const before = await billingCounts(t)
    const sub = `sub_${crypto.randomUUID()}`
    const bodies = [
      subscriptionEvent('updated', subscriptionObject(sub, { customer: 'cus_nobody', periodEnd: Date.now() + DAY })),
      subscriptionEvent('deleted', subscriptionObject(sub, { customer: 'cus_nobody', status: 'canceled' })),
      stripeEvent('invoice.paid', {
        id: `in_${crypto.randomUUID()}`,
        customer: 'cus_nobody',
        amount_paid: 2000,
        currency: 'usd',
        billing_reason: 'subscription_cycle',
        parent: { subscription_details: { subscription: sub } },
      }),
    ]
    for (const body of bodies) expect(await outcome(await p.deliverCard(body))).toBe('unknown_user')
    const wallet = [
      paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', { ...walletSubscription(`I-${crypto.randomUUID()}`, ''), custom_id: null }),
      paypalEvent('PAYMENT.SALE.COMPLETED', {
        id: `SALE-${crypto.randomUUID()}`,
        amount: { total: '9.00', currency: 'USD' },
        billing_agreement_id: `I-${crypto.randomUUID()}`,
      }),
      paypalEvent('PAYMENT.CAPTURE.COMPLETED', {
        id: `CAP-${crypto.randomUUID()}`,
        amount: { value: '199.00', currency_code: 'USD' },
        custom_id: 'no-such-user',
      }),
    ]
    for (const body of wallet) expect(await outcome(await p.deliverWallet(body))).toBe('unknown_user')
    const after = await billingCounts(t)
    expect(after).toEqual({ ...before, webhook_events: before.webhook_events! + bodies.length + wallet.length })
  })

  test('a renewal naming another user’s subscription is that subscription’s payment; it never moves the other user', async () => {
    const owner = await register(t)
    const intruder = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    await outcome(
      await p.deliverWallet(
        paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, owner.user.id), { createTime: iso(Date.now() - DAY) }),
      ),
    )
    const renewal = {
      id: `SALE-${crypto.randomUUID()}`,
      amount: { total: '20.00', currency: 'USD' },
      custom: intruder.user.id,
      billing_agreement_id: subId,
    }
    await outcome(await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', renewal)))
    // And a cancellation of the owner's subscription that names the intruder.
    await outcome(await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.SUSPENDED', walletSubscription(subId, intruder.user.id))))
    expect(await t.services.billing.payments(intruder.user.id)).toEqual([])
    expect((await t.services.billing.payments(owner.user.id)).map((x) => x.providerPaymentId)).toEqual([renewal.id])
    expect(await tierOf(t, intruder)).toBe('free')
    expect(await subscriptionOf(t, intruder)).toMatchObject({ status: 'none' })
    expect(await subscriptionOf(t, owner)).toMatchObject({ status: 'paused' })
  })
})

describe('tier changes', () => {
  // SPEC's row is "active subscription → CANCELLED → unchanged until period end": cancelling a
  // SUSPENDED subscription gave the tier back until the period end, and mailed "You keep its features".
  test('a wallet subscription suspended, then cancelled, grants nothing more (in any order of arrival)', async () => {
    const t0 = Date.now() - 10 * DAY
    const next = Date.now() + 20 * DAY
    /** Delivers the events (type, days after t0) in the order given; the user's tier and cancellation mail after. */
    const deliver = async (events: [string, number][]) => {
      const user = await register(t)
      const subId = `I-${crypto.randomUUID()}`
      for (const [type, day] of events) {
        const event = paypalEvent(type, walletSubscription(subId, user.user.id, { next }), { createTime: iso(t0 + day * DAY) })
        expect(await outcome(await p.deliverWallet(event))).not.toBe('error')
      }
      const [mail] = await sqlRows<{ body_text: string }>(t.storage, 'SELECT body_text FROM mail_outbox WHERE user_id = $1', [user.user.id])
      return { tier: await tierOf(t, user), keeps: mail?.body_text.includes('You keep its features') ?? null }
    }
    const suspendedThenCancelled: [string, number][] = [
      ['BILLING.SUBSCRIPTION.ACTIVATED', 0],
      ['BILLING.SUBSCRIPTION.SUSPENDED', 1],
      ['BILLING.SUBSCRIPTION.CANCELLED', 2],
    ]
    // Every order of arrival: the same state as the events in time order.
    for (const order of orders(suspendedThenCancelled)) {
      const result = await deliver(order)
      expect({ order: order.map(([type]) => type), tier: result.tier }).toEqual({ order: order.map(([type]) => type), tier: 'free' })
      // The notice goes out with the cancellation: when the suspension had arrived by then, it promises nothing.
      const types = order.map(([type]) => type)
      if (types.indexOf('BILLING.SUBSCRIPTION.SUSPENDED') < types.indexOf('BILLING.SUBSCRIPTION.CANCELLED')) expect(result.keeps).toBe(false)
    }
    // Re-activated before the cancellation: it was active, and keeps its tier until the period end.
    const reactivated: [string, number][] = [
      ...suspendedThenCancelled.slice(0, 2),
      ['BILLING.SUBSCRIPTION.RE-ACTIVATED', 1.5],
      suspendedThenCancelled[2]!,
    ]
    expect(await deliver(reactivated)).toEqual({ tier: 'pro', keeps: true })
    expect((await deliver([...reactivated].reverse())).tier).toBe('pro')
  })

  // Contract section 8: after a wallet cancellation the tier holds until "the event's
  // billing_info.next_billing_time when present, else the stored one". The period end only ever
  // moved forward, so a cancellation stating an earlier end than the activation's kept the tier.
  test('a wallet cancellation sets the period end it states, earlier ones included, in any order of arrival', async () => {
    const t0 = Date.now() - 10 * DAY
    /** (type, days after t0, next_billing_time or null for none) in the order given; the user's tier and subscription after. */
    const deliver = async (events: [string, number, number | null][]) => {
      const user = await register(t)
      const subId = `I-${crypto.randomUUID()}`
      for (const [type, day, next] of events) {
        const event = paypalEvent(type, walletSubscription(subId, user.user.id, { next }), { createTime: iso(t0 + day * DAY) })
        expect(await outcome(await p.deliverWallet(event))).not.toBe('error')
      }
      return { tier: await tierOf(t, user), view: await subscriptionOf(t, user) }
    }
    const later = Date.now() + 20 * DAY
    const past = Date.now() - 1000
    const soon = Date.now() + 5 * DAY
    const cases: { events: [string, number, number | null][]; tier: string; end: number | null }[] = [
      // The cancellation ends the period now: free at once.
      {
        events: [
          ['BILLING.SUBSCRIPTION.ACTIVATED', 0, later],
          ['BILLING.SUBSCRIPTION.CANCELLED', 1, past],
        ],
        tier: 'free',
        end: past,
      },
      // It states an end sooner than the activation's: the tier holds until then.
      {
        events: [
          ['BILLING.SUBSCRIPTION.ACTIVATED', 0, later],
          ['BILLING.SUBSCRIPTION.CANCELLED', 1, soon],
        ],
        tier: 'pro',
        end: soon,
      },
      // It states none: the stored one.
      {
        events: [
          ['BILLING.SUBSCRIPTION.ACTIVATED', 0, later],
          ['BILLING.SUBSCRIPTION.CANCELLED', 1, null],
        ],
        tier: 'pro',
        end: later,
      },
      // Re-activated after the cancellation: the cancellation's end no longer holds.
      {
        events: [
          ['BILLING.SUBSCRIPTION.ACTIVATED', 0, later],
          ['BILLING.SUBSCRIPTION.CANCELLED', 1, past],
          ['BILLING.SUBSCRIPTION.RE-ACTIVATED', 2, later],
        ],
        tier: 'pro',
        end: later,
      },
    ]
    for (const { events, tier, end } of cases) {
      for (const order of orders(events)) {
        const { tier: got, view } = await deliver(order)
        const label = order.map(([type]) => type.slice(21))
        expect({ label, tier: got, end: view.current_period_end }).toEqual({ label, tier, end: end === null ? null : iso(end) })
      }
    }
  })

  test('a subscription moved to the lifetime price or another product’s price never grants lifetime; it keeps its tier', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const customer = `cus_${crypto.randomUUID()}`
    const t0 = sec(Date.now()) - 1000
    const end = Date.now() + 30 * DAY
    await outcome(await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, customer, created: t0 })))
    for (const [i, price] of [STRIPE_PRICES.lifetime, 'price_other_product'].entries()) {
      const foreign = subscriptionEvent('updated', subscriptionObject(sub, { customer, price, periodEnd: end }), { created: t0 + 10 + i })
      expect(await outcome(await p.deliverCard(foreign))).toBe('applied')
      expect(await subscriptionOf(t, user)).toMatchObject({ tier: 'pro', status: 'active', current_period_end: iso(sec(end) * 1000) })
    }
    expect(await t.services.billing.payments(user.user.id)).toMatchObject([{ kind: 'subscription', grantsLifetime: false }])
  })
})

describe('the same delivery ten times at once', () => {
  test('card checkout, wallet activation and wallet lifetime: applied once, one subscription, one payment, one e-mail', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const card = checkoutCompleted(user.user, 'pro', { subscription: sub })
    const wsub = `I-${crypto.randomUUID()}`
    const activation = paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(wsub, user.user.id, { plan: PAYPAL_PLANS.starter }))
    const buyer = await register(t)
    const lifetime = paypalEvent('PAYMENT.SALE.COMPLETED', {
      id: `SALE-${crypto.randomUUID()}`,
      amount: { total: '199.00', currency: 'USD' },
      custom: buyer.user.id,
    })
    const [a, b, c] = await Promise.all(
      [card, activation, lifetime].map((body, i) =>
        Promise.all(Array.from({ length: 10 }, () => (i === 0 ? p.deliverCard(body) : p.deliverWallet(body)).then(outcome))),
      ),
    )
    for (const outcomes of [a!, b!, c!]) expect(outcomes.sort()).toEqual(['applied', ...Array(9).fill('duplicate')])
    expect(await sqlRows(t.storage, 'SELECT provider, tier, status FROM subscriptions WHERE user_id = $1 ORDER BY provider', [user.user.id])).toEqual(
      [
        { provider: 'card', tier: 'pro', status: 'active' },
        { provider: 'wallet', tier: 'starter', status: 'active' },
      ],
    )
    expect(await t.services.billing.payments(user.user.id)).toHaveLength(1)
    expect(await t.services.billing.payments(buyer.user.id)).toHaveLength(1)
    expect(await sqlRows(t.storage, 'SELECT id FROM mail_outbox WHERE user_id = $1', [buyer.user.id])).toHaveLength(1)
    expect(await tierOf(t, user)).toBe('pro')
    expect(await tierOf(t, buyer)).toBe('lifetime')
  })

  test('the return page reloaded five times at once while the capture’s webhook arrives: one payment, one e-mail', async () => {
    const user = await register(t)
    const order = await json(await t.request('/api/payments/altpay/checkout', { method: 'POST', token: user.token, json: { tier: 'lifetime' } }))
    const returns = Array.from({ length: 5 }, () => t.request(`/api/payments/altpay/return?token=${order.id}&PayerID=X`))
    const locations = (await Promise.all(returns)).map((r) => r.headers.get('location'))
    const capture = paypal.orders.get(order.id)!.capture!
    const hooks = await Promise.all(Array.from({ length: 3 }, () => p.deliverWallet(paypalEvent('PAYMENT.CAPTURE.COMPLETED', capture)).then(outcome)))
    expect(locations.every((l) => l === `${FRONTEND}/billing?status=success`)).toBe(true)
    expect(hooks).toEqual(['duplicate_payment', 'duplicate_payment', 'duplicate_payment'])
    expect(await t.services.billing.payments(user.user.id)).toHaveLength(1)
    expect(await sqlRows(t.storage, 'SELECT id FROM mail_outbox WHERE user_id = $1', [user.user.id])).toHaveLength(1)
  })
})

describe('the wallet return URL', () => {
  test('a token that is no order id never reaches PayPal’s API; the browser goes to status=error', async () => {
    const before = paypal.requests.length
    for (const token of ['..', '.', '%2e%2e', 'ORDER-1%2F..%2F..', 'ORDER-1%0D%0AX-Evil:%201', 'ORDER%201', '%00']) {
      const res = await t.request(`/api/payments/altpay/return?token=${token}&PayerID=X`)
      expect({ token, status: res.status, location: res.headers.get('location') }).toEqual({
        token,
        status: 302,
        location: `${FRONTEND}/billing?status=error`,
      })
    }
    // Far too long for an order id: a browser still gets its redirect, never a 422 page.
    const long = await t.request(`/api/payments/altpay/return?token=${'A'.repeat(201)}`)
    expect([long.status, long.headers.get('location')]).toEqual([302, `${FRONTEND}/billing?status=error`])
    expect(paypal.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([])
  })
})

describe('checkout requests a client can send', () => {
  const routes = ['/api/payments/checkout', '/api/payments/altpay/checkout']

  test('wrong types, hostile strings, extra fields and odd bodies: 4xx problem+json, never a 5xx, nothing sent to a provider', async () => {
    const user = await register(t)
    const sentBefore = p.stripe.requests.length + paypal.requests.length
    const bodies: [string, Record<string, string>, number, string][] = [
      ['{"tier":"PRO"}', {}, 422, 'validation_failed'],
      ['{"tier":" pro"}', {}, 422, 'validation_failed'],
      ['{"tier":null}', {}, 422, 'validation_failed'],
      ['{"tier":["pro"]}', {}, 422, 'validation_failed'],
      ['{"tier":{"$ne":"free"}}', {}, 422, 'validation_failed'],
      ['{"tier":"__proto__"}', {}, 422, 'validation_failed'],
      ['{"tier":"constructor"}', {}, 422, 'validation_failed'],
      ['{"__proto__":{"tier":"pro"}}', {}, 422, 'validation_failed'],
      ['{"tier":"pro","price":"price_starter"}', {}, 422, 'validation_failed'],
      ['{"tier":"pro\\u0000"}', {}, 422, 'validation_failed'],
      ['["pro"]', {}, 422, 'validation_failed'],
      ['"pro"', {}, 422, 'validation_failed'],
      ['null', {}, 422, 'validation_failed'],
      ['{"tier":"pro"', {}, 400, 'malformed_json'],
      ['{"tier":"pro"}', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      ['tier=pro', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type'],
      [`{"tier":"${'p'.repeat(2 * 1024 * 1024)}"}`, {}, 413, 'payload_too_large'],
    ]
    for (const route of routes) {
      for (const [body, headers, status, code] of bodies) {
        const res = await t.request(route, { method: 'POST', token: user.token, body, headers: { 'content-type': 'application/json', ...headers } })
        const text = await res.clone().text()
        expect({ route, body: body.slice(0, 40), status: res.status }).toEqual({ route, body: body.slice(0, 40), status })
        await problem(res, status, code)
        expectNoLeak(text)
      }
    }
    expect(p.stripe.requests.length + paypal.requests.length).toBe(sentBefore)
  })

  test('a tier the user holds through a webhook (a cancelled wallet subscription still running) → 409 on both providers; a higher tier is sold; once the period ended, the tier is sold again', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    await p.deliverWallet(
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id), { createTime: iso(Date.now() - DAY) }),
    )
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', walletSubscription(subId, user.user.id)))
    expect(await tierOf(t, user)).toBe('pro')
    for (const route of routes) {
      for (const tier of ['starter', 'pro'])
        await problem(await t.request(route, { method: 'POST', token: user.token, json: { tier } }), 409, 'already_subscribed')
      expect((await t.request(route, { method: 'POST', token: user.token, json: { tier: 'lifetime' } })).status).toBe(200)
    }
    // The period ends before any sweep has run: the tier is gone, so it is on sale again.
    const past = new Date(Date.now() - 1000)
    await sqlRun(t.storage, 'UPDATE users SET tier_until = $1 WHERE id = $2', [past, user.user.id])
    await sqlRun(t.storage, 'UPDATE subscriptions SET current_period_end = $1 WHERE provider_subscription_id = $2', [past, subId])
    for (const route of routes) expect((await t.request(route, { method: 'POST', token: user.token, json: { tier: 'pro' } })).status).toBe(200)
  })
})
