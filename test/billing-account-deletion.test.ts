// DELETE /api/user/me with a paid subscription: it is ended at its provider first (the fakes on
// loopback record the calls), so no one is charged on for an account that is gone; a provider
// that cannot be reached refuses the deletion, and nothing is deleted.
import { afterAll, describe, expect, test } from 'bun:test'
import { json, problem, register } from './support/app'
import { checkoutCompleted, paymentsApp, subscriptionEvent, subscriptionObject, walletSubscription } from './support/billing'
import { paypalEvent } from './support/fake-paypal'

const p = await paymentsApp()
const { t, stripe, paypal } = p
afterAll(() => p.close())

const DAY = 86_400_000
const deleteMe = (token: string) => t.request('/api/user/me', { method: 'DELETE', token })
const stripeCancels = () => stripe.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/v1/subscriptions/')).map((r) => r.path)
const paypalCancels = () => paypal.requests.filter((r) => r.path.endsWith('/cancel')).map((r) => r.path)

describe('deleting an account with a subscription', () => {
  test('card: the subscription is cancelled at the provider, then the account goes', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    expect((await json(await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: sub })))).outcome).toBe('applied')
    expect((await deleteMe(user.token)).status).toBe(204)
    expect(stripeCancels()).toContain(`/v1/subscriptions/${sub}`)
    await problem(await t.request('/api/user/me', { token: user.token }), 401, 'invalid_token')
  })

  test('wallet: the subscription is cancelled at the provider, then the account goes', async () => {
    const user = await register(t)
    const sub = `I-${crypto.randomUUID()}`
    await p.deliverWallet(paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', walletSubscription(sub, user.user.id)))
    expect((await deleteMe(user.token)).status).toBe(204)
    expect(paypalCancels()).toContain(`/v1/billing/subscriptions/${sub}/cancel`)
  })

  test('a provider that cannot be reached: 502, nothing deleted; once it answers, the deletion goes through', async () => {
    const user = await register(t)
    const sub = `sub_${crypto.randomUUID()}`
    await p.deliverCard(checkoutCompleted(user.user, 'starter', { subscription: sub }))
    stripe.mode = 'error'
    try {
      await problem(await deleteMe(user.token), 502, 'upstream_unavailable')
    } finally {
      stripe.mode = 'ok'
    }
    expect((await t.request('/api/user/me', { token: user.token })).status).toBe(200)
    expect((await deleteMe(user.token)).status).toBe(204)
  })

  test('nothing to cancel: a subscription already ended or set to end with its period, or one the provider no longer has', async () => {
    const user = await register(t)
    const customer = `cus_${crypto.randomUUID()}`
    const ending = `sub_${crypto.randomUUID()}`
    const gone = `sub_gone_${crypto.randomUUID()}`
    await p.deliverCard(checkoutCompleted(user.user, 'pro', { subscription: ending, customer, created: Math.floor(Date.now() / 1000) - 60 }))
    await p.deliverCard(
      subscriptionEvent('updated', subscriptionObject(ending, { customer, cancelAtPeriodEnd: true, periodEnd: Date.now() + 10 * DAY })),
    )
    await p.deliverCard(checkoutCompleted(user.user, 'starter', { subscription: gone, customer }))
    const before = stripeCancels().length
    expect((await deleteMe(user.token)).status).toBe(204)
    expect(stripeCancels().slice(before)).toEqual([`/v1/subscriptions/${gone}`])
  })
})
