// Defects scripts/fuzz.ts found, each pinned: what a hostile client sent, and what the service
// must do instead of what it did.
import { afterAll, describe, expect, test } from 'bun:test'
import { json, loggedSince, problem, register, setTier } from './support/app'
import { billingCounts, checkoutCompleted, paymentsApp, subscriptionEvent, subscriptionObject } from './support/billing'
import { PAYPAL_PLANS, paypalEvent } from './support/fake-paypal'
import { stripeEvent } from './support/fake-stripe'
import { loadTestCatalogue } from './support/catalogue'
import { rawMcp, rpc, toolProblem } from './support/mcp'

const payments = await paymentsApp()
const t = payments.t
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.handle })
afterAll(async () => {
  await server.stop(true)
  payments.close()
})

describe('validation messages', () => {
  test('name what was expected, never echo the value sent ("[object Object]", an array’s contents)', async () => {
    const bodies: Record<string, unknown>[] = [
      { email: { nested: 'object' }, password: 'x' },
      // Objects no template can print: Elysia built its message with `${value}` and threw a 500 (patches/elysia@1.4.30.patch)
      { email: { toString: 'not a function' }, password: 'x' },
      { email: { valueOf: 1, toString: {} }, password: 'x' },
      { email: 'a@example.com', password: Array.from({ length: 500 }, (_, i) => i) },
    ]
    for (const json of bodies) {
      const body = await problem(await t.request('/api/auth/login', { method: 'POST', json }), 422, 'validation_failed')
      const messages = (body.errors as { path: string; message: string }[]).map((e) => e.message)
      expect(messages.length).toBeGreaterThan(0)
      for (const message of messages) {
        expect(message).toContain('to be string')
        expect(message).not.toContain('[object Object]')
        expect(message).not.toContain('1,2,3')
        expect(message).not.toContain('found')
      }
    }
  })
})

/** Sends a request head declaring `declared` body bytes, a few of them, then closes the connection. */
async function cutOffBody(path: string, headers: Record<string, string>, declared = 5000) {
  const socket = await Bun.connect({ hostname: '127.0.0.1', port: server.port!, socket: { data() {} } })
  const head = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(declared), ...headers })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n\r\n{"id":`)
  await Bun.sleep(50)
  socket.end()
  await Bun.sleep(100)
}

describe('a body cut off by a client that goes away', () => {
  test('is no server error: nothing logged as an error, on every body route, the webhooks included', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    const routes = t.app.routes.filter((r) => r.method === 'POST').map((r) => r.path)
    expect(routes).toContain('/api/payments/webhook')
    expect(routes).toContain('/api/payments/altpay/webhook')
    const before = t.log.lines().length
    for (const path of routes) await cutOffBody(path, { authorization: `Bearer ${token}`, 'stripe-signature': 't=1,v1=00' })
    const errors = t.log
      .lines()
      .slice(before)
      .filter((line) => line.level === 'error')
    expect(errors).toEqual([])
    // and the server answers as before
    expect((await fetch(`http://127.0.0.1:${server.port}/api/health`)).status).toBe(200)
  })
})

// PostgreSQL refuses NUL in text where SQLite stores it: every request below answered 500 on
// PostgreSQL (scripts/fuzz.ts --engine postgres). No id, address or provider key holds a NUL.
describe('NUL (U+0000) where a client or a provider sends an id', () => {
  const NUL = 'a\u0000b'

  test('in the path: the 404 of any unknown id', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    const before = t.log.lines().length
    await problem(await t.request(`/api/skills/${encodeURIComponent(NUL)}`, { token }), 404, 'not_found')
    await problem(await t.request(`/api/user/tokens/${encodeURIComponent(NUL)}`, { method: 'DELETE', token }), 404, 'not_found')
    expect(loggedSince(t, before)).toEqual([])
  })

  test('in the e-mail of a login: wrong credentials, as for any unknown address', async () => {
    const before = t.log.lines().length
    const json = { email: `x${NUL}@example.com`, password: 'a sufficiently long passphrase' }
    await problem(await t.request('/api/auth/login', { method: 'POST', json }), 401, 'invalid_credentials')
    expect(loggedSince(t, before)).toEqual([])
  })

  test('in a signed event’s ids, user ids included: refused as not the shape of an event, nothing stored', async () => {
    const { user } = await register(t)
    const session = JSON.parse(checkoutCompleted(user, 'pro')).data.object
    const card = [
      stripeEvent('checkout.session.completed', session, { id: `evt_${NUL}` }),
      checkoutCompleted(user, 'pro', { subscription: `sub_${NUL}` }),
      checkoutCompleted(user, 'pro', { customer: `cus_${NUL}` }),
      stripeEvent('checkout.session.completed', { ...session, client_reference_id: NUL, metadata: { user_id: NUL, tier: 'pro' } }),
      stripeEvent('checkout.session.completed', { ...session, currency: 'u\u0000d' }),
      subscriptionEvent('updated', subscriptionObject(`sub_${NUL}`, { userId: user.id })),
      stripeEvent(`customer.subscription.${NUL}`, subscriptionObject('sub_1', { userId: user.id })),
    ]
    const sale = { id: 'SALE-1', state: 'completed', amount: { total: '199.00', currency: 'USD' }, custom: user.id }
    const wallet = [
      paypalEvent('PAYMENT.SALE.COMPLETED', { ...sale, id: `SALE-${NUL}` }),
      paypalEvent('PAYMENT.SALE.COMPLETED', { ...sale, custom: NUL }),
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', { id: `I-${NUL}`, plan_id: PAYPAL_PLANS.pro, custom_id: user.id, status: 'ACTIVE' }),
      paypalEvent(`PAYMENT.${NUL}`, sale, { id: `WH-${NUL}` }),
    ]
    const counts = await billingCounts(t)
    const before = t.log.lines().length
    for (const body of card) await problem(await payments.deliverCard(body), 422, 'validation_failed')
    for (const body of wallet) await problem(await payments.deliverWallet(body), 422, 'validation_failed')
    expect(await billingCounts(t)).toEqual(counts)
    expect(loggedSince(t, before)).toEqual([])
    // A note with line breaks in the metadata is no id, and no reason to refuse a payment.
    const noted = { ...session, id: `cs_${crypto.randomUUID()}`, metadata: { user_id: user.id, tier: 'pro', note: 'two\nlines' } }
    expect((await payments.deliverCard(stripeEvent('checkout.session.completed', noted))).status).toBe(200)
  })
})

// PostgreSQL cannot read the ISO dates JavaScript writes for years past 9999 (+010000-…): these
// answered 500 there and were stored on SQLite.
describe('a signed event with a time past year 9999', () => {
  test('is refused by its shape on either engine, nothing stored', async () => {
    const { user } = await register(t)
    const far = Date.UTC(70782, 6, 15) / 1000
    const card = [
      subscriptionEvent('updated', subscriptionObject('sub_far', { userId: user.id, periodEnd: far * 1000 })),
      subscriptionEvent('updated', subscriptionObject('sub_far', { userId: user.id, periodEnd: far * 1000, onItems: false })),
      stripeEvent('checkout.session.completed', JSON.parse(checkoutCompleted(user, 'pro')).data.object, { created: far }),
    ]
    const subscription = { id: 'I-FAR', plan_id: PAYPAL_PLANS.pro, custom_id: user.id, status: 'ACTIVE' }
    const wallet = [
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', { ...subscription, billing_info: { next_billing_time: '+070782-07-15T05:24:14.412Z' } }),
      paypalEvent('BILLING.SUBSCRIPTION.ACTIVATED', subscription, { createTime: '+010000-01-01T00:00:00.000Z' }),
    ]
    const counts = await billingCounts(t)
    for (const body of card) await problem(await payments.deliverCard(body), 422, 'validation_failed')
    for (const body of wallet) await problem(await payments.deliverWallet(body), 422, 'validation_failed')
    expect(await billingCounts(t)).toEqual(counts)
  })
})

// An offset past what a JSON number carries exactly answered 500 on both engines: SQLite bound it
// as a real ("datatype mismatch"), PostgreSQL found it out of bigint's range.
describe('an offset larger than any JSON number holds exactly', () => {
  test('is a 422 on every paginated route and MCP tool; the largest exact one is an empty page', async () => {
    await loadTestCatalogue(t)
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    const doc = await json(await t.request('/api/openapi.json'))
    const paginated = Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>)
      .filter(([, ops]) => ops.get?.parameters?.some((p) => p.name === 'offset' && p.in === 'query'))
      .map(([path]) => path.replace('{category_id}', 'writing'))
    expect(paginated.length).toBeGreaterThanOrEqual(5)
    const before = t.log.lines().length
    for (const path of paginated) {
      const q = path.includes('search') ? 'q=review&' : ''
      await problem(await t.request(`${path}?${q}offset=99999999999999999999`, { token }), 422, 'validation_failed')
      const largest = await t.request(`${path}?${q}offset=${Number.MAX_SAFE_INTEGER}`, { token })
      expect({ path, status: largest.status, items: (await json(largest)).items }).toEqual({ path, status: 200, items: [] })
    }
    const tool = await json(await rawMcp(t, rpc('tools/call', { name: 'list_favorites', arguments: { offset: 1e20 } }), { token }))
    expect(toolProblem(tool.result)).toMatchObject({ code: 'validation_failed' })
    expect(loggedSince(t, before)).toEqual([])
  })

  test('an amount in a signed event past what a double holds exactly is refused by its shape', async () => {
    const { user } = await register(t)
    const counts = await billingCounts(t)
    await problem(await payments.deliverCard(checkoutCompleted(user, 'lifetime', { amount: 1e300 })), 422, 'validation_failed')
    expect(await billingCounts(t)).toEqual(counts)
  })
})
