// POST /api/payments/altpay/webhook and GET /api/payments/altpay/return: PayPal's deliveries
// verified offline against a self-made certificate served by the fake PayPal on loopback, the
// wallet transitions and their traps (contract sections 8 and 10).
import { afterAll, describe, expect, test } from 'bun:test'
import { json, problem, register } from './support/app'
import { billingCounts, FRONTEND, paymentsApp, subscriptionOf, tierOf, walletSubscription } from './support/billing'
import { PAYPAL_PLANS, paypalEvent, signPaypal } from './support/fake-paypal'
import { sqlRows, sqlRun } from './support/sql'

const p = await paymentsApp()
const { t, paypal } = p
afterAll(() => p.close())

const DAY = 86_400_000
const outcome = async (res: Response) => {
  const body = await json(res)
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${JSON.stringify(body)}`)
  return body.outcome as string
}
const iso = (ms: number) => new Date(ms).toISOString()

const sale = (userId: string, fields: { total?: string; currency?: string; agreement?: string; id?: string; at?: number } = {}) => ({
  id: fields.id ?? `SALE-${crypto.randomUUID()}`,
  state: 'completed',
  amount: { total: fields.total ?? '199.00', currency: fields.currency ?? 'USD' },
  custom: userId,
  ...(fields.agreement ? { billing_agreement_id: fields.agreement } : {}),
  create_time: iso(fields.at ?? Date.now()),
})

describe('signature (offline, with the certificate from PAYPAL-CERT-URL)', () => {
  test('missing headers, a wrong signature, another webhook id, another key, a changed body → 400 invalid_signature; nothing stored', async () => {
    const user = await register(t)
    const body = paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id))
    const good = signPaypal(body, paypal.certUrl)
    const before = await billingCounts(t)
    await problem(await p.deliverWallet(body, {}), 400, 'invalid_signature')
    const { 'paypal-transmission-sig': _, ...noSig } = good
    await problem(await p.deliverWallet(body, noSig), 400, 'invalid_signature')
    await problem(
      await p.deliverWallet(body, { ...good, 'paypal-transmission-sig': Buffer.from('nope').toString('base64') }),
      400,
      'invalid_signature',
    )
    await problem(await p.deliverWallet(body, signPaypal(body, paypal.certUrl, { webhookId: 'WH-OTHER' })), 400, 'invalid_signature')
    await problem(await p.deliverWallet(body, { ...good, 'paypal-transmission-id': 'another-id' }), 400, 'invalid_signature')
    await problem(await p.deliverWallet(body.replace('199.00', '1.00'), good), 400, 'invalid_signature')
    await problem(await p.deliverWallet(body, { ...good, 'paypal-auth-algo': 'SHA1withRSA' }), 400, 'invalid_signature')
    expect(await billingCounts(t)).toEqual(before)
    expect(await tierOf(t, user)).toBe('free')
  })

  test('a certificate URL outside PAYPAL_CERT_URL_PREFIXES is refused without being fetched; the allowed one is fetched once and cached', async () => {
    const user = await register(t)
    const body = paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id))
    const fetches = paypal.certFetches
    for (const url of [`${paypal.url}/elsewhere/cert`, `${paypal.url}.evil.example/certs/x`, `http://user:pw@127.0.0.1:1/certs/x`, 'not a url']) {
      await problem(await p.deliverWallet(body, signPaypal(body, url)), 400, 'invalid_signature')
    }
    expect(paypal.certFetches).toBe(fetches)
    expect(await outcome(await p.deliverWallet(body))).toBe('applied')
    const other = await register(t)
    expect(await outcome(await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', sale(other.user.id))))).toBe('applied')
    expect(paypal.certFetches).toBeLessThanOrEqual(fetches + 1)
  })

  test('an allowed certificate URL that redirects is refused, the redirect not followed: a prefix vouches for its own host only', async () => {
    const user = await register(t)
    const body = paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id))
    const fetches = paypal.certFetches
    await problem(await p.deliverWallet(body, signPaypal(body, `${paypal.url}/certs/hop`)), 400, 'invalid_signature')
    // The hop was asked; where it pointed was not.
    expect(paypal.certFetches).toBe(fetches + 1)
    expect(await tierOf(t, user)).toBe('free')
  })
})

describe('lifetime', () => {
  test('PAYMENT.SALE.COMPLETED without billing_agreement_id: lifetime, payment recorded, confirmation e-mail queued', async () => {
    const user = await register(t)
    const resource = sale(user.user.id, { id: `SALE-L-${user.user.id}` })
    expect(await outcome(await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', resource)))).toBe('applied')
    expect(await tierOf(t, user)).toBe('lifetime')
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'lifetime',
      status: 'active',
      provider: 'wallet',
      current_period_end: null,
      cancel_at_period_end: false,
    })
    expect(await t.services.billing.payments(user.user.id)).toMatchObject([
      { provider: 'wallet', providerPaymentId: `SALE-L-${user.user.id}`, kind: 'lifetime', amount: '199.00', currency: 'USD', grantsLifetime: true },
    ])
    expect(await sqlRows(t.storage, 'SELECT subject FROM mail_outbox WHERE user_id = $1', [user.user.id])).toEqual([
      { subject: 'Your promptlib lifetime access' },
    ])
  })

  test('granted only at the lifetime price in the configured currency; otherwise recorded, not granted', async () => {
    for (const [total, currency, granted] of [
      ['199', 'USD', true],
      ['199.000', 'usd', true],
      ['198.99', 'USD', false],
      ['1990.00', 'USD', false],
      ['199.00', 'EUR', false],
      ['0.00', 'USD', false],
    ] as const) {
      const user = await register(t)
      const res = await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id, { total, currency })))
      expect({ total, currency, outcome: await outcome(res) }).toEqual({ total, currency, outcome: granted ? 'applied' : 'amount_mismatch' })
      expect(await tierOf(t, user)).toBe(granted ? 'lifetime' : 'free')
      expect((await t.services.billing.payments(user.user.id)).map((x) => x.grantsLifetime)).toEqual([granted])
    }
  })

  test('PAYMENT.CAPTURE.COMPLETED (v2 order): user in custom_id, amount in value/currency_code', async () => {
    const user = await register(t)
    const capture = {
      id: `CAP-${crypto.randomUUID()}`,
      status: 'COMPLETED',
      amount: { value: '199.00', currency_code: 'USD' },
      custom_id: user.user.id,
      create_time: iso(Date.now()),
    }
    expect(await outcome(await p.deliverWallet(paypalEvent('PAYMENT.CAPTURE.COMPLETED', capture)))).toBe('applied')
    expect(await tierOf(t, user)).toBe('lifetime')
  })

  test('a sale with billing_agreement_id is a renewal: it moves the period end, never grants lifetime', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    const activated = Date.now() - 40 * DAY
    await outcome(
      await p.deliverWallet(
        paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id, { next: activated + 30 * DAY }), {
          createTime: iso(activated),
        }),
      ),
    )
    const paidAt = Date.UTC(2026, 0, 31, 12)
    const res = await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id, { agreement: subId, at: paidAt, total: '199.00' })))
    expect(await outcome(res)).toBe('recorded')
    expect(await tierOf(t, user)).toBe('pro')
    const later = Date.now() + 5 * DAY
    expect(
      await outcome(
        await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id, { agreement: subId, at: later, total: '20.00' }))),
      ),
    ).toBe('applied')
    const view = await subscriptionOf(t, user)
    expect(view.tier).toBe('pro')
    const expected = new Date(later)
    expected.setUTCMonth(expected.getUTCMonth() + 1)
    expect(Math.abs(Date.parse(view.current_period_end!) - expected.getTime())).toBeLessThan(4 * DAY)
    expect((await t.services.billing.payments(user.user.id)).map((x) => [x.kind, x.grantsLifetime])).toEqual([
      ['renewal', false],
      ['renewal', false],
    ])
  })

  test('the return URL captures the approved order and redirects; its webhook later is the same payment', async () => {
    const user = await register(t)
    const checkout = await json(await t.request('/api/payments/altpay/checkout', { method: 'POST', token: user.token, json: { tier: 'lifetime' } }))
    // A HEAD first (a link checker, a prefetch): refused, nothing captured.
    const head = await t.request(`/api/payments/altpay/return?token=${checkout.id}&PayerID=PAYER1`, { method: 'HEAD' })
    expect({ status: head.status, allow: head.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, OPTIONS' })
    expect(paypal.orders.get(checkout.id)!.capture).toBeNull()
    expect(await tierOf(t, user)).toBe('free')
    const res = await t.request(`/api/payments/altpay/return?token=${checkout.id}&PayerID=PAYER1`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${FRONTEND}/billing?status=success`)
    expect(await tierOf(t, user)).toBe('lifetime')
    // A reload of the return page: the order is already captured; still one payment.
    expect((await t.request(`/api/payments/altpay/return?token=${checkout.id}`)).headers.get('location')).toBe(`${FRONTEND}/billing?status=success`)
    const capture = paypal.orders.get(checkout.id)!.capture!
    expect(await outcome(await p.deliverWallet(paypalEvent('PAYMENT.CAPTURE.COMPLETED', capture)))).toBe('duplicate_payment')
    expect(await t.services.billing.payments(user.user.id)).toHaveLength(1)
    expect(await sqlRows(t.storage, 'SELECT id FROM mail_outbox WHERE user_id = $1', [user.user.id])).toHaveLength(1)
  })

  test('the webhook first, the return second: one payment; a tampered amount, a pending capture, no token, an unknown order', async () => {
    const user = await register(t)
    const order = await json(await t.request('/api/payments/altpay/checkout', { method: 'POST', token: user.token, json: { tier: 'lifetime' } }))
    await t.request(`/api/payments/altpay/return?token=${order.id}`)
    expect(await tierOf(t, user)).toBe('lifetime')

    const tampered = await register(t)
    const cheap = await json(await t.request('/api/payments/altpay/checkout', { method: 'POST', token: tampered.token, json: { tier: 'lifetime' } }))
    paypal.orders.get(cheap.id)!.amount = { currency_code: 'USD', value: '1.00' }
    expect((await t.request(`/api/payments/altpay/return?token=${cheap.id}`)).headers.get('location')).toBe(`${FRONTEND}/billing?status=error`)
    expect(await tierOf(t, tampered)).toBe('free')

    const pending = await register(t)
    const held = await json(await t.request('/api/payments/altpay/checkout', { method: 'POST', token: pending.token, json: { tier: 'lifetime' } }))
    paypal.captureStatus = 'PENDING'
    try {
      expect((await t.request(`/api/payments/altpay/return?token=${held.id}`)).headers.get('location')).toBe(`${FRONTEND}/billing?status=pending`)
    } finally {
      paypal.captureStatus = 'COMPLETED'
    }
    expect(await tierOf(t, pending)).toBe('free')
    expect((await t.request('/api/payments/altpay/return')).headers.get('location')).toBe(`${FRONTEND}/billing?status=error`)
    expect((await t.request('/api/payments/altpay/return?token=ORDER-NOPE')).headers.get('location')).toBe(`${FRONTEND}/billing?status=error`)
    // A browser landing here is redirected whatever the address carries, a token far too long included.
    const long = await t.request(`/api/payments/altpay/return?token=${'x'.repeat(5000)}`)
    expect([long.status, long.headers.get('location')]).toEqual([302, `${FRONTEND}/billing?status=error`])
  })
})

describe('subscriptions', () => {
  test('ACTIVATED: the plan’s tier, subscription id stored; an unknown plan is recorded and changes nothing', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    const next = Date.now() + 30 * DAY
    expect(
      await outcome(
        await p.deliverWallet(
          paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id, { plan: PAYPAL_PLANS.starter, next })),
        ),
      ),
    ).toBe('applied')
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'starter',
      status: 'active',
      provider: 'wallet',
      current_period_end: iso(next),
      cancel_at_period_end: false,
    })
    expect(await sqlRows(t.storage, 'SELECT provider_subscription_id FROM subscriptions WHERE user_id = $1', [user.user.id])).toEqual([
      { provider_subscription_id: subId },
    ])
    const other = await register(t)
    const res = await p.deliverWallet(
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(`I-${crypto.randomUUID()}`, other.user.id, { plan: 'P-UNKNOWN' })),
    )
    expect(await outcome(res)).toBe('ignored')
    expect(await tierOf(t, other)).toBe('free')
    // Logged where an operator sees it (contract section 8): a mistyped PAYPAL_PLAN_* leaves payers without their tier.
    expect(t.log.lines().some((l) => l.level === 'warn' && l.plan === 'P-UNKNOWN')).toBe(true)
  })

  test('any later event of a subscription on a plan this server does not sell changes nothing: no row, no e-mail, no view', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    const foreign = walletSubscription(subId, user.user.id, { plan: 'P-NOT-OURS' })
    expect(await outcome(await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', foreign)))).toBe('ignored')
    for (const type of ['BILLING.SUBSCRIPTION.SUSPENDED', 'BILLING.SUBSCRIPTION.CANCELLED', 'BILLING.SUBSCRIPTION.EXPIRED'])
      expect(await outcome(await p.deliverWallet(paypalEvent(type, { ...foreign, status: 'CANCELLED' })))).toBe('ignored')
    expect(await subscriptionOf(t, user)).toMatchObject({ tier: 'free', status: 'none', provider: null })
    expect(await sqlRows(t.storage, 'SELECT id FROM subscriptions WHERE user_id = $1', [user.user.id])).toEqual([])
    expect(await sqlRows(t.storage, 'SELECT id FROM mail_outbox WHERE user_id = $1', [user.user.id])).toEqual([])
    expect(t.log.lines().filter((l) => l.level === 'warn' && l.plan === 'P-NOT-OURS')).toHaveLength(4)
  })

  test('a cancellation that names no plan and comes before its activation: the notice reads as it would in order', async () => {
    const notices: string[] = []
    for (const order of ['in order', 'cancellation first']) {
      const user = await register(t, { name: 'Same Name' })
      const subId = `I-${crypto.randomUUID()}`
      const end = Date.now() + 20 * DAY
      const activated = paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id, { next: end }), {
        createTime: iso(Date.now() - DAY),
      })
      const { plan_id: _, ...withoutPlan } = walletSubscription(subId, user.user.id, { next: end })
      const cancelled = paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', { ...withoutPlan, status: 'CANCELLED' })
      for (const event of order === 'in order' ? [activated, cancelled] : [cancelled, activated]) await p.deliverWallet(event)
      expect(await tierOf(t, user)).toBe('pro')
      const [mail] = await sqlRows<{ body_text: string }>(t.storage, 'SELECT body_text FROM mail_outbox WHERE user_id = $1', [user.user.id])
      notices.push(mail!.body_text.replace(user.user.email, ''))
    }
    expect(notices[1]).toBe(notices[0]!)
    expect(notices[0]).toContain('your promptlib subscription has been cancelled.')
    expect(notices[0]).toContain('You keep its features until')
  })

  test('CANCELLED: the tier holds until the period end, then free (on read at once, persisted by the sweep); the user is notified', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    const start = Date.now() - 10 * DAY
    await p.deliverWallet(
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id, { next: Date.now() + 20 * DAY }), {
        createTime: iso(start),
      }),
    )
    // The cancellation's own next_billing_time wins when present (here: later than the stored one).
    const end = Date.now() + 21 * DAY
    const cancelled = paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', {
      ...walletSubscription(subId, user.user.id, { next: end }),
      status: 'CANCELLED',
    })
    expect(await outcome(await p.deliverWallet(cancelled))).toBe('applied')
    expect(await tierOf(t, user)).toBe('pro')
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'pro',
      status: 'canceled',
      provider: 'wallet',
      current_period_end: iso(end),
      cancel_at_period_end: true,
    })
    const [mail] = await sqlRows<{ subject: string; body_text: string }>(t.storage, 'SELECT subject, body_text FROM mail_outbox WHERE user_id = $1', [
      user.user.id,
    ])
    expect(mail!.subject).toBe('Your promptlib subscription is cancelled')
    expect(mail!.body_text).toContain(`You keep its features until ${iso(end).slice(0, 10)}`)
    expect(mail!.body_text).toContain('Anything else on your account (lifetime access, another subscription) is not affected.')
    // The period ends (moved into the past here): free on the next read, before any sweep.
    const past = new Date(Date.now() - 1000)
    await sqlRun(t.storage, 'UPDATE users SET tier_until = $1 WHERE id = $2', [past, user.user.id])
    await sqlRun(t.storage, 'UPDATE subscriptions SET current_period_end = $1, cancel_period_end = $1 WHERE provider_subscription_id = $2', [
      past,
      subId,
    ])
    expect(await tierOf(t, user)).toBe('free')
    expect(await sqlRows(t.storage, 'SELECT tier FROM users WHERE id = $1', [user.user.id])).toEqual([{ tier: 'pro' }])
    expect(await t.services.billing.sweepExpiredTiers()).toBeGreaterThanOrEqual(1)
    expect(await sqlRows(t.storage, 'SELECT tier, tier_until, tier_after FROM users WHERE id = $1', [user.user.id])).toEqual([
      { tier: 'free', tier_until: null, tier_after: null },
    ])
    expect(await subscriptionOf(t, user)).toMatchObject({ tier: 'free', status: 'canceled' })
  })

  test('CANCELLED without next_billing_time keeps the stored period end; a lifetime user keeps lifetime when it ends', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    const stored = Date.now() + 12 * DAY
    await p.deliverWallet(
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id, { next: stored }), {
        createTime: iso(Date.now() - DAY),
      }),
    )
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', walletSubscription(subId, user.user.id, { next: null })))
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'pro',
      status: 'canceled',
      provider: 'wallet',
      current_period_end: iso(stored),
      cancel_at_period_end: true,
    })

    const buyer = await register(t)
    const older = `I-${crypto.randomUUID()}`
    await p.deliverWallet(
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(older, buyer.user.id, { next: Date.now() + DAY }), {
        createTime: iso(Date.now() - 20 * DAY),
      }),
    )
    await p.deliverWallet(paypalEvent('PAYMENT.SALE.COMPLETED', sale(buyer.user.id)))
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', walletSubscription(older, buyer.user.id, { next: null })))
    // The notice tells a lifetime buyer the truth: it speaks of that subscription only, never of "free".
    const notices = await sqlRows<{ body_text: string }>(
      t.storage,
      "SELECT body_text FROM mail_outbox WHERE user_id = $1 AND subject LIKE '%cancelled'",
      [buyer.user.id],
    )
    expect(notices.map((n) => n.body_text)).toEqual([expect.stringContaining('(lifetime access, another subscription) is not affected')])
    expect(notices[0]!.body_text).not.toContain('free tier')
    await sqlRun(t.storage, 'UPDATE subscriptions SET current_period_end = $1 WHERE provider_subscription_id = $2', [
      new Date(Date.now() - 1000),
      older,
    ])
    await t.services.billing.sweepExpiredTiers()
    expect(await subscriptionOf(t, buyer)).toEqual({
      tier: 'lifetime',
      status: 'active',
      provider: 'wallet',
      current_period_end: null,
      cancel_at_period_end: false,
    })
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.EXPIRED', walletSubscription(older, buyer.user.id, { next: null })))
    expect(await tierOf(t, buyer)).toBe('lifetime')
  })

  test('SUSPENDED stops granting; RE-ACTIVATED grants again', async () => {
    const user = await register(t)
    const subId = `I-${crypto.randomUUID()}`
    const t0 = Date.now() - 100_000
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(subId, user.user.id), { createTime: iso(t0) }))
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.SUSPENDED', walletSubscription(subId, user.user.id), { createTime: iso(t0 + 1000) }))
    expect(await tierOf(t, user)).toBe('free')
    expect((await subscriptionOf(t, user)).status).toBe('paused')
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.RE-ACTIVATED', walletSubscription(subId, user.user.id), { createTime: iso(t0 + 2000) }))
    expect(await tierOf(t, user)).toBe('pro')
  })
})

describe('bodies that are signed but wrong', () => {
  test('wrong types or missing fields: 422 naming the fields, nothing stored', async () => {
    const user = await register(t)
    const cases: [string, string][] = [
      [JSON.stringify({ id: 'WH-1', create_time: iso(Date.now()), resource: {} }), '/event_type'],
      [JSON.stringify({ id: 'WH-2', event_type: 'PAYMENT.SALE.COMPLETED', create_time: 'soon', resource: sale(user.user.id) }), '/create_time'],
      [paypalEvent('PAYMENT.SALE.COMPLETED', { ...sale(user.user.id), amount: { total: 199, currency: 'USD' } }), '/resource/amount/total'],
      [paypalEvent('PAYMENT.SALE.COMPLETED', { ...sale(user.user.id), amount: { total: '199.00' } }), '/resource/amount/currency'],
      [paypalEvent('PAYMENT.CAPTURE.COMPLETED', { id: 'CAP-1', custom_id: user.user.id }), '/resource/amount'],
      [
        paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', {
          ...walletSubscription('I-X', user.user.id),
          billing_info: { next_billing_time: 'tomorrow' },
        }),
        '/resource/billing_info/next_billing_time',
      ],
      [paypalEvent('BILLING.SUBSCRIPTION.CANCELLED', { id: 42 }), '/resource/id'],
    ]
    const before = await billingCounts(t)
    for (const [body, path] of cases) {
      const details = await problem(await p.deliverWallet(body), 422, 'validation_failed')
      const paths = (details.errors as { path: string }[]).map((e) => e.path)
      expect({ path, matched: paths.includes(path) }).toEqual({ path, matched: true })
    }
    expect(await billingCounts(t)).toEqual(before)
    expect(await tierOf(t, user)).toBe('free')
  })

  test('signed but not JSON, or nested too deep: 400 malformed_json; unsigned: 400 invalid_signature', async () => {
    await problem(await p.deliverWallet('{"id": '), 400, 'malformed_json')
    await problem(await p.deliverWallet(`${'['.repeat(20_000)}${']'.repeat(20_000)}`), 400, 'malformed_json')
    await problem(await p.deliverWallet(`${'['.repeat(20_000)}${']'.repeat(20_000)}`, {}), 400, 'invalid_signature')
  })

  test('repeats: the same event id again changes nothing', async () => {
    const user = await register(t)
    const body = paypalEvent('PAYMENT.SALE.COMPLETED', sale(user.user.id))
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => p.deliverWallet(body).then(outcome)))
    expect(outcomes.sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate', 'duplicate'])
    expect(await t.services.billing.payments(user.user.id)).toHaveLength(1)
  })
})
