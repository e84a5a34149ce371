// POST /api/payments/webhook: Stripe's signed events through the real SDK's signatures, the
// states and transitions of SPEC, idempotency and out-of-order safety (contract section 8).
import { afterAll, describe, expect, test } from 'bun:test'
import { json, problem, register, TEST_ENGINE } from './support/app'
import { billingCounts, checkoutCompleted, paymentsApp, subscriptionEvent, subscriptionObject, subscriptionOf, tierOf } from './support/billing'
import { signStripe, STRIPE_PRICES, stripeEvent } from './support/fake-stripe'
import { sqlRows, sqlRun } from './support/sql'

const p = await paymentsApp()
const { t } = p
afterAll(() => p.close())

const DAY = 86_400_000
const outcome = async (res: Response) => {
  const body = await json(res)
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${JSON.stringify(body)}`)
  return body.outcome as string
}

describe('signature', () => {
  test('missing, wrong, signed with another secret, too old, or over a re-serialised body → 400 invalid_signature; nothing stored', async () => {
    const user = await register(t)
    const body = checkoutCompleted(user.user, 'pro')
    const before = await billingCounts(t)
    await problem(await p.deliverCard(body, {}), 400, 'invalid_signature')
    await problem(await p.deliverCard(body, { 'stripe-signature': 't=1,v1=abc' }), 400, 'invalid_signature')
    await problem(await p.deliverCard(body, { 'stripe-signature': await signStripe(body, { secret: 'whsec_other' }) }), 400, 'invalid_signature')
    const old = Math.floor(Date.now() / 1000) - 301
    await problem(await p.deliverCard(body, { 'stripe-signature': await signStripe(body, { timestamp: old }) }), 400, 'invalid_signature')
    // The same event, pretty-printed after signing: the bytes differ, so the signature does.
    const signature = await signStripe(body)
    await problem(await p.deliverCard(JSON.stringify(JSON.parse(body), null, 2), { 'stripe-signature': signature }), 400, 'invalid_signature')
    expect(await billingCounts(t)).toEqual(before)
    expect(await tierOf(t, user)).toBe('free')
  })

  test('within the 300 s tolerance the delivery is accepted', async () => {
    const user = await register(t)
    const body = checkoutCompleted(user.user, 'starter')
    const recent = Math.floor(Date.now() / 1000) - 290
    expect(await outcome(await p.deliverCard(body, { 'stripe-signature': await signStripe(body, { timestamp: recent }) }))).toBe('applied')
    expect(await tierOf(t, user)).toBe('starter')
  })

  test('no bearer token is needed, and the webhook answers JSON with the outcome', async () => {
    const res = await p.deliverCard(stripeEvent('charge.refunded', { id: 'ch_1' }))
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({ received: true, outcome: 'ignored' })
  })
})

describe('events with only the fields SPEC lists (no created, mode, payment_status, amount or status)', () => {
  const minimal = (type: string, object: Record<string, unknown>) => JSON.stringify({ id: `evt_min_${crypto.randomUUID()}`, type, data: { object } })

  test('checkout.session.completed upgrades (subscription tiers and lifetime); customer.subscription.deleted downgrades', async () => {
    const user = await register(t)
    const subscription = `sub_min_${crypto.randomUUID()}`
    const customer = `cus_min_${user.user.id}`
    const checkout = minimal('checkout.session.completed', {
      id: `cs_min_${crypto.randomUUID()}`,
      customer,
      subscription,
      metadata: { user_id: user.user.id, tier: 'pro' },
    })
    expect(await outcome(await p.deliverCard(checkout))).toBe('applied')
    expect(await tierOf(t, user)).toBe('pro')
    // A repeat of the same delivery changes nothing.
    expect(await outcome(await p.deliverCard(checkout))).toBe('duplicate')
    const updated = minimal('customer.subscription.updated', {
      id: subscription,
      customer,
      status: 'active',
      current_period_end: Math.floor(Date.now() / 1000) + 30 * 86_400,
      cancel_at_period_end: true,
    })
    expect(await outcome(await p.deliverCard(updated))).toBe('applied')
    expect(await subscriptionOf(t, user)).toMatchObject({ tier: 'pro', status: 'active', cancel_at_period_end: true })
    expect(await outcome(await p.deliverCard(minimal('customer.subscription.deleted', { id: subscription, customer })))).toBe('applied')
    expect(await tierOf(t, user)).toBe('free')
    expect(await subscriptionOf(t, user)).toMatchObject({ status: 'canceled' })

    const buyer = await register(t)
    const lifetime = minimal('checkout.session.completed', {
      id: `cs_min_${crypto.randomUUID()}`,
      customer: `cus_min_${buyer.user.id}`,
      subscription: null,
      metadata: { user_id: buyer.user.id, tier: 'lifetime' },
    })
    expect(await outcome(await p.deliverCard(lifetime))).toBe('applied')
    expect(await tierOf(t, buyer)).toBe('lifetime')
    // The payment is recorded at the price this server asks (the event does not state one).
    expect((await t.services.billing.payments(buyer.user.id)).map((x) => [x.kind, x.amount, x.currency])).toEqual([
      ['lifetime', t.config.lifetimePrice, t.config.currency],
    ])
  })

  test('what the event does state still counts: an unpaid session, a lifetime session in subscription mode, an update without status', async () => {
    const user = await register(t)
    const unpaid = minimal('checkout.session.completed', {
      id: `cs_min_${crypto.randomUUID()}`,
      customer: 'cus_x',
      subscription: 'sub_x',
      payment_status: 'unpaid',
      metadata: { user_id: user.user.id, tier: 'pro' },
    })
    expect(await outcome(await p.deliverCard(unpaid))).toBe('ignored')
    const wrongMode = minimal('checkout.session.completed', {
      id: `cs_min_${crypto.randomUUID()}`,
      mode: 'subscription',
      subscription: 'sub_y',
      metadata: { user_id: user.user.id, tier: 'lifetime' },
    })
    await problem(await p.deliverCard(wrongMode), 422, 'validation_failed')
    const noStatus = minimal('customer.subscription.updated', { id: 'sub_z', customer: 'cus_z' })
    const body = await problem(await p.deliverCard(noStatus), 422, 'validation_failed')
    expect(body.errors).toEqual([{ path: '/data/object/status', message: 'Expected required property' }])
    expect(await tierOf(t, user)).toBe('free')
  })
})

describe('transitions', () => {
  test('checkout.session.completed (subscription): the tier from metadata at once; subscription and payment recorded', async () => {
    const user = await register(t)
    const subscription = `sub_${crypto.randomUUID()}`
    const res = await p.deliverCard(
      checkoutCompleted(user.user, 'pro', { subscription, session: 'cs_pro_1_' + user.user.id, customer: `cus_${user.user.id}` }),
    )
    expect(await outcome(res)).toBe('applied')
    expect(await tierOf(t, user)).toBe('pro')
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'pro',
      status: 'active',
      provider: 'card',
      current_period_end: null,
      cancel_at_period_end: false,
    })
    const [payment] = await sqlRows(
      t.storage,
      'SELECT provider, provider_payment_id, kind, amount, currency, subscription_id FROM payments WHERE user_id = $1',
      [user.user.id],
    )
    expect(payment).toEqual({
      provider: 'card',
      provider_payment_id: 'cs_pro_1_' + user.user.id,
      kind: 'subscription',
      amount: '20.00',
      currency: 'USD',
      subscription_id: subscription,
    })
    const [customer] = await sqlRows(t.storage, 'SELECT customer_id FROM billing_customers WHERE user_id = $1', [user.user.id])
    expect(customer).toEqual({ customer_id: `cus_${user.user.id}` })
  })

  test('checkout.session.completed (payment mode, lifetime): lifetime, payment recorded, confirmation e-mail queued', async () => {
    const user = await register(t)
    expect(await outcome(await p.deliverCard(checkoutCompleted(user.user, 'lifetime', { session: `cs_life_${user.user.id}` })))).toBe('applied')
    expect(await tierOf(t, user)).toBe('lifetime')
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'lifetime',
      status: 'active',
      provider: 'card',
      current_period_end: null,
      cancel_at_period_end: false,
    })
    const payments = await t.services.billing.payments(user.user.id)
    expect(payments).toMatchObject([
      { provider: 'card', providerPaymentId: `cs_life_${user.user.id}`, kind: 'lifetime', amount: '199.00', currency: 'USD', grantsLifetime: true },
    ])
    expect(payments[0]!.paidAt).toBeInstanceOf(Date)
    const mails = await sqlRows(t.storage, 'SELECT to_address, subject, status FROM mail_outbox WHERE user_id = $1', [user.user.id])
    expect(mails).toEqual([{ to_address: user.email, subject: 'Your promptlib lifetime access', status: 'pending' }])
  })

  test('an unpaid checkout (asynchronous payment) grants nothing until async_payment_succeeded', async () => {
    const user = await register(t)
    const body = JSON.parse(checkoutCompleted(user.user, 'starter'))
    body.data.object.payment_status = 'unpaid'
    expect(await outcome(await p.deliverCard(JSON.stringify(body)))).toBe('ignored')
    expect(await tierOf(t, user)).toBe('free')
    body.id = `${body.id}_later`
    body.type = 'checkout.session.async_payment_succeeded'
    body.data.object.payment_status = 'paid'
    expect(await outcome(await p.deliverCard(JSON.stringify(body)))).toBe('applied')
    expect(await tierOf(t, user)).toBe('starter')
  })

  test('customer.subscription.updated: status, period end (read from the items too) and cancel flag; a price change changes the tier', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const customer = `cus_${crypto.randomUUID()}`
    const t0 = Math.floor(Date.now() / 1000) - 100
    await outcome(await p.deliverCard(checkoutCompleted(user.user, 'starter', { subscription: sub, customer, created: t0 })))
    const end = new Date(Date.now() + 30 * DAY)
    end.setMilliseconds(0)
    // Events carry only the customer: the user is found through it.
    const updated = subscriptionObject(sub, { customer, periodEnd: end, cancelAtPeriodEnd: true, price: STRIPE_PRICES.starter })
    expect(await outcome(await p.deliverCard(subscriptionEvent('updated', updated, { created: t0 + 10 })))).toBe('applied')
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'starter',
      status: 'active',
      provider: 'card',
      current_period_end: end.toISOString(),
      cancel_at_period_end: true,
    })
    // The older placement (API versions before 2025-03-31) is read as well.
    const later = new Date(end.getTime() + 30 * DAY)
    const old = subscriptionObject(sub, { customer, periodEnd: later, price: STRIPE_PRICES.pro, onItems: false })
    expect(await outcome(await p.deliverCard(subscriptionEvent('updated', old, { created: t0 + 20 })))).toBe('applied')
    expect(await subscriptionOf(t, user)).toMatchObject({ tier: 'pro', current_period_end: later.toISOString(), cancel_at_period_end: false })
    expect(await tierOf(t, user)).toBe('pro')
    // past_due still grants; unpaid does not
    await p.deliverCard(
      subscriptionEvent('updated', subscriptionObject(sub, { customer, status: 'past_due', periodEnd: later, price: STRIPE_PRICES.pro }), {
        created: t0 + 30,
      }),
    )
    expect(await tierOf(t, user)).toBe('pro')
    await p.deliverCard(
      subscriptionEvent('updated', subscriptionObject(sub, { customer, status: 'unpaid', periodEnd: later, price: STRIPE_PRICES.pro }), {
        created: t0 + 40,
      }),
    )
    expect(await tierOf(t, user)).toBe('free')
    expect((await subscriptionOf(t, user)).status).toBe('unpaid')
  })

  test('customer.subscription.deleted: free at once; the subscription is canceled', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const t0 = Math.floor(Date.now() / 1000) - 100
    await outcome(await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, created: t0 })))
    expect(await tierOf(t, user)).toBe('pro')
    expect(
      await outcome(
        await p.deliverCard(
          subscriptionEvent('deleted', subscriptionObject(sub, { status: 'canceled', periodEnd: Date.now() }), { created: t0 + 5 }),
        ),
      ),
    ).toBe('applied')
    expect(await tierOf(t, user)).toBe('free')
    expect(await subscriptionOf(t, user)).toMatchObject({ tier: 'free', status: 'canceled', provider: 'card' })
  })

  test('a lifetime user is never downgraded by the end of an older subscription', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const t0 = Math.floor(Date.now() / 1000) - 100
    await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, created: t0 }))
    await p.deliverCard(checkoutCompleted(user.user, 'lifetime', { created: t0 + 10 }))
    expect(await tierOf(t, user)).toBe('lifetime')
    expect(
      await outcome(await p.deliverCard(subscriptionEvent('deleted', subscriptionObject(sub, { status: 'canceled' }), { created: t0 + 20 }))),
    ).toBe('applied')
    expect(await tierOf(t, user)).toBe('lifetime')
  })

  test('a tier change reaches personal access tokens on the next request', async () => {
    const user = await register(t)
    await t.services.accounts.setTier(user.user.id, 'starter')
    const created = await json(await t.request('/api/user/tokens', { method: 'POST', token: user.token, json: { name: 'script' } }))
    const sub = `sub_${crypto.randomUUID()}`
    const t0 = Math.floor(Date.now() / 1000) - 100
    await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, created: t0 }))
    expect((await t.request('/api/user/me', { token: created.token })).status).toBe(200)
    const me = await json(await t.request('/api/user/me', { token: created.token }))
    expect(me.limits).toMatchObject({ optimizations_per_day: null, skills_access: true, max_tokens: 3 })
    await p.deliverCard(subscriptionEvent('deleted', subscriptionObject(sub, { status: 'canceled' }), { created: t0 + 5 }))
    await problem(await t.request('/api/user/me', { token: created.token }), 403, 'api_access_required')
    expect((await json(await t.request('/api/user/me', { token: user.token }))).limits.optimizations_per_day).toBe(3)
  })

  test('a tier change reaches skills and the daily optimizer quota on the next request', async () => {
    const user = await register(t)
    await problem(await t.request('/api/skills', { token: user.token }), 403, 'upgrade_required')
    const optimize = () =>
      t.request('/api/optimizer/optimize', { method: 'POST', token: user.token, json: { prompt: 'list three colours', mode: 'enhance' } })
    for (let i = 0; i < 3; i++) await (await optimize()).text()
    await problem(await optimize(), 429, 'daily_limit_reached')
    await p.deliverCard(checkoutCompleted(user.user, 'pro'))
    expect((await t.request('/api/skills', { token: user.token })).status).toBe(200)
    const more = await optimize()
    expect(more.status).toBe(200)
    await more.text()
  })

  test('unknown event types: 200, recorded, ignored', async () => {
    const body = stripeEvent('customer.created', { id: 'cus_new', object: 'customer' }, { id: `evt_unknown_${Date.now()}` })
    expect(await outcome(await p.deliverCard(body))).toBe('ignored')
    const rows = await sqlRows(t.storage, 'SELECT type, outcome FROM webhook_events WHERE event_id = $1', [JSON.parse(body).id])
    expect(rows).toEqual([{ type: 'customer.created', outcome: 'ignored' }])
  })

  test('an event for a user that does not exist is recorded and changes nothing', async () => {
    const ghost = { id: 'no-such-user' }
    expect(await outcome(await p.deliverCard(checkoutCompleted(ghost, 'pro')))).toBe('unknown_user')
  })
})

describe('idempotency and order', () => {
  test('the same event again, and five at once: 200, applied once', async () => {
    const user = await register(t)
    const body = checkoutCompleted(user.user, 'lifetime')
    expect(await outcome(await p.deliverCard(body))).toBe('applied')
    expect(await outcome(await p.deliverCard(body))).toBe('duplicate')
    const other = await register(t)
    const burst = checkoutCompleted(other.user, 'lifetime')
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => p.deliverCard(burst).then(outcome)))
    expect(outcomes.sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate', 'duplicate'])
    for (const u of [user, other]) {
      expect((await t.services.billing.payments(u.user.id)).length).toBe(1)
      expect(await sqlRows(t.storage, 'SELECT id FROM mail_outbox WHERE user_id = $1', [u.user.id])).toHaveLength(1)
    }
  })

  test('an update older than the last applied changes nothing; a deletion is never undone by an older update', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const t0 = Math.floor(Date.now() / 1000) - 1000
    await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, created: t0 }))
    const end = Date.now() + 30 * DAY
    expect(
      await outcome(
        await p.deliverCard(subscriptionEvent('deleted', subscriptionObject(sub, { status: 'canceled', periodEnd: end }), { created: t0 + 20 })),
      ),
    ).toBe('applied')
    const older = subscriptionEvent('updated', subscriptionObject(sub, { status: 'active', periodEnd: end + DAY }), { created: t0 + 10 })
    expect(await outcome(await p.deliverCard(older))).toBe('stale')
    expect(await tierOf(t, user)).toBe('free')
    expect((await subscriptionOf(t, user)).status).toBe('canceled')
    // In the same second, the deletion still wins over an update (rank).
    const sameSecond = subscriptionEvent('updated', subscriptionObject(sub, { status: 'active' }), { created: t0 + 20 })
    expect(await outcome(await p.deliverCard(sameSecond))).toBe('stale')
  })

  test('a subscription on a price this server does not sell, without a tier in its metadata, is ignored and logged; one stored earlier is not', async () => {
    const user = await register(t)
    const customer = `cus_${crypto.randomUUID()}`
    await p.deliverCard(checkoutCompleted(user.user, 'pro', { customer, created: Math.floor(Date.now() / 1000) - 100 }))
    const foreign = `sub_${crypto.randomUUID()}`
    const object = subscriptionObject(foreign, { customer, price: 'price_someone_elses', periodEnd: Date.now() + 30 * DAY })
    expect(await outcome(await p.deliverCard(subscriptionEvent('created', object)))).toBe('ignored')
    expect(t.log.lines().some((l) => l.level === 'warn' && l.plan === 'price_someone_elses')).toBe(true)
    expect(await sqlRows(t.storage, 'SELECT id FROM subscriptions WHERE provider_subscription_id = $1', [foreign])).toEqual([])
    // The checkout's own subscription moved to a price no longer configured is still promptlib's: its deletion applies.
    const [{ provider_subscription_id: ours }] = (await sqlRows(t.storage, 'SELECT provider_subscription_id FROM subscriptions WHERE user_id = $1', [
      user.user.id,
    ])) as [{ provider_subscription_id: string }]
    const moved = subscriptionObject(ours, { customer, status: 'canceled', price: 'price_retired' })
    expect(await outcome(await p.deliverCard(subscriptionEvent('deleted', moved)))).toBe('applied')
    expect(await tierOf(t, user)).toBe('free')
  })

  // Checkout sends customer.subscription.created (incomplete), .updated (active) and
  // checkout.session.completed, often within one second, and Stripe's ids within a second are not
  // in time order: with creation ranked as an update, the incomplete creation won by its id.
  test('a paid checkout whose subscription was created incomplete and activated in the same second ends active, whatever the ids', async () => {
    for (const [createdId, updatedId] of [
      ['evt_1Qzzz', 'evt_1Qaaa'],
      ['evt_1Qaaa', 'evt_1Qzzz'],
    ]) {
      const user = await register(t)
      const sub = `sub_${crypto.randomUUID()}`
      const customer = `cus_${crypto.randomUUID()}`
      const second = Math.floor(Date.now() / 1000) - 5
      const object = (status: string) => subscriptionObject(sub, { customer, status, userId: user.user.id, periodEnd: Date.now() + 30 * DAY })
      const suffix = crypto.randomUUID().slice(0, 8)
      expect(
        await outcome(await p.deliverCard(subscriptionEvent('created', object('incomplete'), { created: second, id: createdId + suffix }))),
      ).toBe('applied')
      await p.deliverCard(subscriptionEvent('updated', object('active'), { created: second, id: updatedId + suffix }))
      await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, customer, created: second }))
      expect(await tierOf(t, user)).toBe('pro')
      expect((await subscriptionOf(t, user)).status).toBe('active')
    }
  })

  // Found by scripts/storm.ts: Stripe does not promise order, and a renewal's invoice.paid can
  // arrive before the checkout that links the customer. It was answered 200 unknown_user, so
  // Stripe never sent it again, and the payment was lost.
  test('a renewal invoice that arrives before its checkout is recorded for the subscription’s user', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    const customer = `cus_${crypto.randomUUID()}`
    const t0 = Math.floor(Date.now() / 1000) - 1000
    const invoice = (id: string, metadata: Record<string, string> | null) =>
      stripeEvent(
        'invoice.paid',
        {
          id,
          object: 'invoice',
          customer,
          amount_paid: 2000,
          currency: 'usd',
          billing_reason: 'subscription_cycle',
          parent: { type: 'subscription_details', subscription_details: { subscription: sub, ...(metadata ? { metadata } : {}) } },
          status_transitions: { paid_at: t0 + 30 },
        },
        { created: t0 + 30 },
      )
    // Neither the customer nor the subscription is known yet: the user comes from the subscription's metadata on the invoice.
    expect(await outcome(await p.deliverCard(invoice(`in_${crypto.randomUUID()}`, { user_id: user.user.id, tier: 'pro' })))).toBe('recorded')
    // The subscription is known (its update came first, naming the user), the customer not linked: the stored subscription's user.
    await p.deliverCard(
      subscriptionEvent('updated', subscriptionObject(sub, { userId: user.user.id, customer, periodEnd: Date.now() + 30 * DAY }), {
        created: t0 + 20,
      }),
    )
    expect(await outcome(await p.deliverCard(invoice(`in_${crypto.randomUUID()}`, null)))).toBe('recorded')
    // The checkout comes last and changes nothing of that.
    await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub, customer, created: t0 }))
    const renewals = (await t.services.billing.payments(user.user.id)).filter((x) => x.kind === 'renewal')
    expect(renewals.map((x) => [x.subscriptionId, x.amount, x.currency])).toEqual([
      [sub, '20.00', 'USD'],
      [sub, '20.00', 'USD'],
    ])
    // A user named in the metadata that does not exist: recorded as unknown_user, nothing stored.
    const ghost = invoice(`in_${crypto.randomUUID()}`, { user_id: 'no-such-user' })
      .replaceAll(sub, `sub_${crypto.randomUUID()}`)
      .replaceAll(customer, 'cus_nobody')
    expect(await outcome(await p.deliverCard(ghost))).toBe('unknown_user')
  })
})

describe('a processing failure', () => {
  /** Makes the database refuse raising this user's tier (a trigger): the failure comes after every other write of the delivery. */
  async function refuseTierChange(userId: string): Promise<() => Promise<void>> {
    if (TEST_ENGINE === 'postgres') {
      await sqlRun(
        t.storage,
        `CREATE OR REPLACE FUNCTION refuse_tier() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$ LANGUAGE plpgsql`,
      )
      await sqlRun(
        t.storage,
        `CREATE TRIGGER refuse_tier BEFORE UPDATE ON users FOR EACH ROW WHEN (NEW.id = '${userId}' AND NEW.tier <> OLD.tier) EXECUTE FUNCTION refuse_tier()`,
      )
      return () => sqlRun(t.storage, 'DROP TRIGGER refuse_tier ON users')
    }
    await sqlRun(
      t.storage,
      `CREATE TRIGGER refuse_tier BEFORE UPDATE ON users WHEN NEW.id = '${userId}' AND NEW.tier <> OLD.tier BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`,
    )
    return () => sqlRun(t.storage, 'DROP TRIGGER refuse_tier')
  }

  test('answers 5xx and leaves no partial change; the provider’s retry then applies it', async () => {
    const user = await register(t)
    expect(await subscriptionOf(t, user)).toEqual({
      tier: 'free',
      status: 'none',
      provider: null,
      current_period_end: null,
      cancel_at_period_end: false,
    })
    const body = checkoutCompleted(user.user, 'pro')
    const before = await billingCounts(t)
    const restore = await refuseTierChange(user.user.id)
    try {
      const res = await p.deliverCard(body)
      await problem(res, 500, 'internal_error')
      expect(await billingCounts(t)).toEqual(before)
      expect(await tierOf(t, user)).toBe('free')
      expect(t.log.lines().some((l) => l.level === 'error' && l.route === '/api/payments/webhook')).toBe(true)
    } finally {
      await restore()
    }
    expect(await outcome(await p.deliverCard(body))).toBe('applied')
    expect(await tierOf(t, user)).toBe('pro')
  })
})

describe('bodies that are signed but wrong', () => {
  test('valid JSON with wrong types or missing fields: 422 naming the fields, nothing stored', async () => {
    const user = await register(t)
    const session = (metadata: Record<string, unknown>) => {
      const event = JSON.parse(checkoutCompleted(user.user, 'pro'))
      event.data.object.metadata = metadata
      return event
    }
    const cases: [unknown, string][] = [
      [{ id: 'evt_no_type', created: 1, data: { object: {} } }, '/type'],
      // Half a surrogate pair would be stored as U+FFFD: evt_\ud800 and evt_\udbff would be one event.
      [{ id: 'evt_half_\ud800', type: 'customer.subscription.updated', created: 1, data: { object: {} } }, '/id'],
      [{ id: 'evt_bad_created', type: 'customer.subscription.updated', created: 'yesterday', data: { object: {} } }, '/created'],
      [{ id: 'evt_no_object', type: 'customer.subscription.updated', created: 1, data: {} }, '/data/object'],
      [{ id: 'evt_array', type: 'customer.subscription.updated', created: 1, data: { object: [] } }, '/data/object'],
      [JSON.parse(subscriptionEvent('updated', { ...subscriptionObject('sub_x', {}), status: 'sleeping' })), '/data/object/status'],
      [
        JSON.parse(subscriptionEvent('updated', { ...subscriptionObject('sub_x', {}), current_period_end: '2030-01-01' })),
        '/data/object/current_period_end',
      ],
      [JSON.parse(subscriptionEvent('deleted', { id: 'sub_x' })), '/data/object/customer'],
      [session({ user_id: user.user.id, tier: 'gold' }), '/data/object/metadata/tier'],
      [session({ user_id: 42, tier: 'pro' }), '/data/object/metadata'],
    ]
    const before = await billingCounts(t)
    for (const [event, path] of cases) {
      const body = JSON.stringify(event)
      const res = await p.deliverCard(body)
      const problemBody = await problem(res, 422, 'validation_failed')
      const paths = (problemBody.errors as { path: string }[]).map((e) => e.path)
      expect({ path, matched: paths.includes(path) }).toEqual({ path, matched: true })
    }
    expect(await billingCounts(t)).toEqual(before)
    expect(await tierOf(t, user)).toBe('free')
  })

  test('a body over 1 MiB: 413 payload_too_large, nothing read beyond the limit', async () => {
    await problem(await p.deliverCard(`{"pad":"${'x'.repeat(1024 * 1024)}"}`, { 'stripe-signature': 't=1,v1=00' }), 413, 'payload_too_large')
  })

  test('not JSON, or nested too deep: 400 malformed_json (after the signature)', async () => {
    await problem(await p.deliverCard('{"id": '), 400, 'malformed_json')
    await problem(await p.deliverCard(`${'['.repeat(100)}${']'.repeat(100)}`), 400, 'malformed_json')
    await problem(await p.deliverCard('{"id": ', { 'stripe-signature': 't=1,v1=00' }), 400, 'invalid_signature')
  })
})
