// A fake Stripe API on loopback, enough for the official SDK's calls this service makes
// (customers, checkout sessions), with the SDK signing the events the tests deliver. It keeps
// every request, honours Idempotency-Key as Stripe does, and can be down or answer garbage.
// Also a script: `bun test/support/fake-stripe.ts PORT` (scripts/bench-payments.ts).
import Stripe from 'stripe'

export const STRIPE_TEST_KEY = 'sk_test_promptlib'
export const STRIPE_WEBHOOK_SECRET = 'whsec_promptlib_test_secret'
export const STRIPE_PRICES = { starter: 'price_starter', pro: 'price_pro', lifetime: 'price_lifetime' }

export interface FakeStripeRequest {
  method: string
  path: string
  params: URLSearchParams
  idempotencyKey: string | null
}

export interface FakeStripe {
  url: string
  requests: FakeStripeRequest[]
  /** normal; refuse connections' answers (HTTP 500); answer a 200 that is not JSON; answer JSON without the fields */
  mode: 'ok' | 'error' | 'garbage' | 'empty'
  /** wait this long before answering (ms) */
  delayMs: number
  /** the environment that points promptlib at this fake */
  env(extra?: Record<string, string>): Record<string, string>
  close(): void
}

/** A server's Stripe settings for the test keys and prices, its API at `apiBase`. */
export function stripeEnv(apiBase: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: STRIPE_TEST_KEY,
    STRIPE_WEBHOOK_SECRET,
    STRIPE_PRICE_STARTER: STRIPE_PRICES.starter,
    STRIPE_PRICE_PRO: STRIPE_PRICES.pro,
    STRIPE_PRICE_LIFETIME: STRIPE_PRICES.lifetime,
    STRIPE_API_BASE: apiBase,
  }
}

export function startFakeStripe(port = 0): FakeStripe {
  let counter = 0
  const byIdempotencyKey = new Map<string, string>()
  const fake: FakeStripe = {
    url: '',
    requests: [],
    mode: 'ok',
    delayMs: 0,
    env: (extra = {}) => ({ ...stripeEnv(fake.url), ...extra }),
    close: () => server.stop(true),
  }
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'request-id': `req_${++counter}` } })

  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const params = new URLSearchParams(await request.text())
      const idempotencyKey = request.headers.get('idempotency-key')
      fake.requests.push({ method: request.method, path: url.pathname, params, idempotencyKey })
      if (fake.delayMs) await Bun.sleep(fake.delayMs)
      if (request.headers.get('authorization') !== `Bearer ${STRIPE_TEST_KEY}`)
        return json({ error: { type: 'invalid_request_error', message: 'bad key' } }, 401)
      if (fake.mode === 'error') return json({ error: { type: 'api_error', message: 'down' } }, 500)
      if (fake.mode === 'garbage') return new Response('<html>Bad gateway</html>', { status: 200, headers: { 'content-type': 'text/html' } })
      if (fake.mode === 'empty') return json({ object: 'checkout.session' })
      if (request.method === 'POST' && url.pathname === '/v1/customers') {
        // The same key answers the same customer (Stripe keeps keys for 24 hours).
        const id = (idempotencyKey && byIdempotencyKey.get(idempotencyKey)) ?? `cus_${++counter}`
        if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, id)
        return json({ id, object: 'customer', email: params.get('email'), metadata: { user_id: params.get('metadata[user_id]') } })
      }
      if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const id = `cs_test_${++counter}`
        return json({
          id,
          object: 'checkout.session',
          mode: params.get('mode'),
          customer: params.get('customer'),
          client_reference_id: params.get('client_reference_id'),
          url: `https://checkout.stripe.test/c/pay/${id}`,
        })
      }
      const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname)
      if (request.method === 'DELETE' && subscription) {
        const id = decodeURIComponent(subscription[1]!)
        if (id.startsWith('sub_gone'))
          return json({ error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such subscription: '${id}'` } }, 404)
        return json({ id, object: 'subscription', status: 'canceled' })
      }
      return json({ error: { type: 'invalid_request_error', message: `no route ${url.pathname}` } }, 404)
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  return fake
}

const signer = new Stripe(STRIPE_TEST_KEY)

/** A Stripe-Signature header for the exact body, made by the SDK (timestamp: now, or as given, in seconds). */
export function signStripe(payload: string, options: { secret?: string; timestamp?: number } = {}): Promise<string> {
  return signer.webhooks.generateTestHeaderStringAsync({ payload, secret: options.secret ?? STRIPE_WEBHOOK_SECRET, timestamp: options.timestamp })
}

let eventCounter = 0
/** An event body as Stripe sends it. */
export function stripeEvent(type: string, object: Record<string, unknown>, options: { id?: string; created?: number } = {}): string {
  return JSON.stringify({
    id: options.id ?? `evt_${Date.now().toString(36)}_${++eventCounter}`,
    object: 'event',
    api_version: '2025-03-31.basil',
    created: options.created ?? Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    data: { object },
  })
}

if (import.meta.main) {
  const fake = startFakeStripe(Number(process.argv[2] ?? 0))
  console.log(`fake stripe on ${fake.url}`)
}
