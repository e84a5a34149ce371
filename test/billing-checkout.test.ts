// POST /api/payments/checkout (Stripe, through the official SDK) and /api/payments/altpay/checkout
// (PayPal over fetch), against fakes of both APIs on loopback (contract section 8).
import { afterAll, describe, expect, test } from 'bun:test'
import { json, makeTestApp, problem, register } from './support/app'
import { FRONTEND, paymentsApp, PUBLIC } from './support/billing'
import { PAYPAL_PLANS } from './support/fake-paypal'
import { STRIPE_PRICES, startFakeStripe } from './support/fake-stripe'
import { sqlRows } from './support/sql'

const p = await paymentsApp()
const { t, stripe, paypal } = p
afterAll(() => p.close())

const cardCheckout = (token: string | undefined, body: unknown) => t.request('/api/payments/checkout', { method: 'POST', token, json: body })
const walletCheckout = (token: string | undefined, body: unknown) => t.request('/api/payments/altpay/checkout', { method: 'POST', token, json: body })
const sessionsFor = (userId: string) =>
  stripe.requests.filter((r) => r.path === '/v1/checkout/sessions' && r.params.get('client_reference_id') === userId)
const customersFor = (userId: string) => stripe.requests.filter((r) => r.path === '/v1/customers' && r.params.get('metadata[user_id]') === userId)

describe('card checkout', () => {
  test('starter and pro: subscription mode; lifetime: payment mode; user and tier in client_reference_id and metadata', async () => {
    const user = await register(t)
    for (const [tier, mode] of [
      ['starter', 'subscription'],
      ['pro', 'subscription'],
      ['lifetime', 'payment'],
    ] as const) {
      const res = await cardCheckout(user.token, { tier })
      expect(res.status).toBe(200)
      const body = await json(res)
      expect(Object.keys(body).sort()).toEqual(['checkout_url', 'session_id'])
      expect(body.checkout_url).toBe(`https://checkout.stripe.test/c/pay/${body.session_id}`)
      const sent = sessionsFor(user.user.id).at(-1)!.params
      expect(Object.fromEntries(sent)).toMatchObject({
        mode,
        client_reference_id: user.user.id,
        'line_items[0][price]': STRIPE_PRICES[tier],
        'line_items[0][quantity]': '1',
        'metadata[user_id]': user.user.id,
        'metadata[tier]': tier,
        success_url: `${FRONTEND}/billing?status=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${FRONTEND}/billing?status=cancelled`,
      })
      const carried = mode === 'subscription' ? 'subscription_data' : 'payment_intent_data'
      expect(sent.get(`${carried}[metadata][user_id]`)).toBe(user.user.id)
      expect(sent.get(`${carried}[metadata][tier]`)).toBe(tier)
    }
  })

  test('the user’s Stripe customer is created once and reused, also by two first checkouts at once', async () => {
    const user = await register(t)
    await cardCheckout(user.token, { tier: 'starter' })
    await cardCheckout(user.token, { tier: 'pro' })
    expect(customersFor(user.user.id)).toHaveLength(1)
    expect(customersFor(user.user.id)[0]!.params.get('email')).toBe(user.email)
    const customer = sessionsFor(user.user.id)[0]!.params.get('customer')
    expect(sessionsFor(user.user.id).map((r) => r.params.get('customer'))).toEqual([customer, customer])

    const racer = await register(t)
    const answers = await Promise.all([cardCheckout(racer.token, { tier: 'pro' }), cardCheckout(racer.token, { tier: 'pro' })])
    expect(answers.map((r) => r.status)).toEqual([200, 200])
    const ids = new Set(sessionsFor(racer.user.id).map((r) => r.params.get('customer')))
    expect(ids.size).toBe(1)
    expect(await sqlRows(t.storage, 'SELECT customer_id FROM billing_customers WHERE user_id = $1', [racer.user.id])).toEqual([
      { customer_id: [...ids][0] },
    ])
  })

  test('a tier the user already has or exceeds → 409 already_subscribed; an upgrade is allowed', async () => {
    const user = await register(t)
    await t.services.accounts.setTier(user.user.id, 'pro')
    for (const tier of ['starter', 'pro']) await problem(await cardCheckout(user.token, { tier }), 409, 'already_subscribed')
    expect((await cardCheckout(user.token, { tier: 'lifetime' })).status).toBe(200)
    await t.services.accounts.setTier(user.user.id, 'lifetime')
    for (const tier of ['starter', 'pro', 'lifetime']) {
      await problem(await cardCheckout(user.token, { tier }), 409, 'already_subscribed')
      await problem(await walletCheckout(user.token, { tier }), 409, 'already_subscribed')
    }
  })

  test('401 without a token; 422 for a tier that is not sold or an unknown field', async () => {
    await problem(await cardCheckout(undefined, { tier: 'pro' }), 401, 'missing_token')
    const user = await register(t)
    for (const body of [{}, { tier: 'free' }, { tier: 'gold' }, { tier: 5 }, { tier: 'pro', coupon: 'x' }]) {
      await problem(await cardCheckout(user.token, body), 422, 'validation_failed')
      await problem(await walletCheckout(user.token, body), 422, 'validation_failed')
    }
  })

  test('the provider down, answering garbage or an unusable answer → 502 upstream_unavailable', async () => {
    const user = await register(t)
    for (const mode of ['error', 'garbage', 'empty'] as const) {
      stripe.mode = mode
      try {
        await problem(await cardCheckout(user.token, { tier: 'pro' }), 502, 'upstream_unavailable')
      } finally {
        stripe.mode = 'ok'
      }
    }
    const gone = startFakeStripe()
    gone.close()
    const offline = await makeTestApp({ ...gone.env() })
    const u = await register(offline)
    await problem(
      await offline.request('/api/payments/checkout', { method: 'POST', token: u.token, json: { tier: 'pro' } }),
      502,
      'upstream_unavailable',
    )
  })
})

describe('wallet checkout', () => {
  test('lifetime: a v2 order at LIFETIME_PRICE with custom_id, returning to /api/payments/altpay/return', async () => {
    const user = await register(t)
    const res = await walletCheckout(user.token, { tier: 'lifetime' })
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toEqual({ approval_url: `https://www.paypal.test/checkoutnow?token=${body.id}`, id: expect.stringMatching(/^ORDER-/) })
    const sent = paypal.requests.filter((r) => r.path === '/v2/checkout/orders').at(-1)!.body as any
    expect(sent.intent).toBe('CAPTURE')
    expect(sent.purchase_units[0]).toMatchObject({ amount: { currency_code: 'USD', value: '199.00' }, custom_id: user.user.id })
    expect(sent.payment_source.paypal.experience_context).toMatchObject({
      return_url: `${PUBLIC}/api/payments/altpay/return`,
      cancel_url: `${FRONTEND}/billing?status=cancelled`,
    })
  })

  test('starter and pro: a v1 subscription of the configured plan with custom_id', async () => {
    const user = await register(t)
    for (const tier of ['starter', 'pro'] as const) {
      const body = await json(await walletCheckout(user.token, { tier }))
      expect(body.id).toMatch(/^I-/)
      expect(body.approval_url).toStartWith('https://www.paypal.test/webapps/billing/subscriptions')
      const sent = paypal.requests.filter((r) => r.path === '/v1/billing/subscriptions').at(-1)!.body as any
      expect(sent).toMatchObject({
        plan_id: PAYPAL_PLANS[tier],
        custom_id: user.user.id,
        application_context: { return_url: `${FRONTEND}/billing?status=success` },
      })
    }
  })

  test('the OAuth token is fetched once and cached until it expires; concurrent calls share one refresh; a revoked token is replaced', async () => {
    const fresh = await paymentsApp()
    try {
      const user = await register(fresh.t)
      const call = () => fresh.t.request('/api/payments/altpay/checkout', { method: 'POST', token: user.token, json: { tier: 'lifetime' } })
      const first = await Promise.all([call(), call(), call()])
      expect(first.map((r) => r.status)).toEqual([200, 200, 200])
      await call()
      expect(fresh.paypal.tokensIssued).toBe(1)
      // Tokens from now on live 2 s: a short-lived token is used for half its life only.
      fresh.paypal.tokenLifetime = 2
      // Revoked early (the fake issues a new token, so the cached one is refused with 401): one retry.
      const revoked = await fetch(`${fresh.paypal.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('paypal-client:paypal-secret').toString('base64')}` },
        body: 'grant_type=client_credentials',
      })
      expect(revoked.status).toBe(200)
      expect((await call()).status).toBe(200)
      expect(fresh.paypal.tokensIssued).toBe(3)
      await Bun.sleep(1100)
      expect((await call()).status).toBe(200)
      expect(fresh.paypal.tokensIssued).toBe(4)
    } finally {
      fresh.close()
    }
  })

  test('the provider down or answering garbage → 502', async () => {
    const user = await register(t)
    for (const mode of ['error', 'garbage'] as const) {
      paypal.mode = mode
      try {
        await problem(await walletCheckout(user.token, { tier: 'lifetime' }), 502, 'upstream_unavailable')
        await problem(await walletCheckout(user.token, { tier: 'pro' }), 502, 'upstream_unavailable')
      } finally {
        paypal.mode = 'ok'
      }
    }
  })
})

describe('not configured', () => {
  test('no provider → 503 payments_not_configured; a tier without a price or plan → 503; webhooks → 503', async () => {
    const bare = await makeTestApp()
    const user = await register(bare)
    await problem(
      await bare.request('/api/payments/checkout', { method: 'POST', token: user.token, json: { tier: 'pro' } }),
      503,
      'payments_not_configured',
    )
    await problem(
      await bare.request('/api/payments/altpay/checkout', { method: 'POST', token: user.token, json: { tier: 'lifetime' } }),
      503,
      'payments_not_configured',
    )
    await problem(await bare.request('/api/payments/webhook', { method: 'POST', body: '{}' }), 503, 'payments_not_configured')
    await problem(await bare.request('/api/payments/altpay/webhook', { method: 'POST', body: '{}' }), 503, 'payments_not_configured')
    expect((await bare.request('/api/payments/altpay/return?token=X')).headers.get('location')).toBe('http://localhost:8000/billing?status=error')
    // Refusals the server chose: a warning each, never an error line with a stack (a bot probing these paths would raise alarms).
    expect(bare.log.lines().filter((l) => l.level === 'error')).toEqual([])
    expect(bare.log.lines().filter((l) => l.code === 'payments_not_configured' && l.level === 'warn')).toHaveLength(4)

    const partial = await paymentsApp({ STRIPE_PRICE_PRO: '', PAYPAL_PLAN_STARTER: '', PAYPAL_WEBHOOK_ID: '' })
    try {
      const u = await register(partial.t)
      await problem(
        await partial.t.request('/api/payments/checkout', { method: 'POST', token: u.token, json: { tier: 'pro' } }),
        503,
        'payments_not_configured',
      )
      expect((await partial.t.request('/api/payments/checkout', { method: 'POST', token: u.token, json: { tier: 'starter' } })).status).toBe(200)
      await problem(
        await partial.t.request('/api/payments/altpay/checkout', { method: 'POST', token: u.token, json: { tier: 'starter' } }),
        503,
        'payments_not_configured',
      )
      await problem(await partial.deliverWallet('{}'), 503, 'payments_not_configured')
    } finally {
      partial.close()
    }
  })
})
