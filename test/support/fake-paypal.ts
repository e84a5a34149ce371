// A fake PayPal REST API on loopback: OAuth client-credentials tokens, v2 orders (create,
// capture, get), v1 subscriptions, and the certificate that signs webhook deliveries, served
// under /certs/. The certificate is self-made with Debian's openssl (a fresh RSA key per test
// process), and signPaypal() signs a body the way PayPal does, so the service's offline check
// runs against a real signature. Can be down or answer garbage.
import { spawnSync } from 'node:child_process'
import { createSign } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './app'

export const PAYPAL_CLIENT_ID = 'paypal-client'
export const PAYPAL_CLIENT_SECRET = 'paypal-secret'
export const PAYPAL_WEBHOOK_ID = 'WH-PROMPTLIB-TEST'
export const PAYPAL_PLANS = { starter: 'P-STARTER', pro: 'P-PRO' }

let keyPair: { key: string; cert: string } | null = null
/** A self-signed RSA certificate and its key (made once per process). */
export function paypalKeyPair(): { key: string; cert: string } {
  if (keyPair) return keyPair
  const dir = tempDir('promptlib-paypal-cert-')
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '3',
      '-subj',
      '/CN=promptlib-test-paypal',
    ],
    {
      encoding: 'utf8',
    },
  )
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`)
  keyPair = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') }
  return keyPair
}

interface Order {
  id: string
  amount: { currency_code: string; value: string }
  customId: string | null
  capture: Record<string, unknown> | null
}

export interface FakePaypal {
  url: string
  certUrl: string
  requests: { method: string; path: string; body: unknown; headers: Record<string, string> }[]
  tokensIssued: number
  /** seconds the next tokens live */
  tokenLifetime: number
  mode: 'ok' | 'error' | 'garbage'
  /** the status the next captures report (COMPLETED, PENDING) */
  captureStatus: string
  /** orders by id: tests change an order's amount to fake a tampered payment */
  orders: Map<string, Order>
  /** certificate fetches served */
  certFetches: number
  env(extra?: Record<string, string>): Record<string, string>
  close(): void
}

export function startFakePaypal(port = 0): FakePaypal {
  const { cert } = paypalKeyPair()
  let counter = 0
  let currentToken = ''
  const fake: FakePaypal = {
    url: '',
    certUrl: '',
    requests: [],
    tokensIssued: 0,
    tokenLifetime: 32_400,
    mode: 'ok',
    captureStatus: 'COMPLETED',
    orders: new Map(),
    certFetches: 0,
    env: (extra = {}) => ({
      PAYPAL_CLIENT_ID,
      PAYPAL_CLIENT_SECRET,
      PAYPAL_WEBHOOK_ID,
      PAYPAL_API_BASE: fake.url,
      PAYPAL_PLAN_STARTER: PAYPAL_PLANS.starter,
      PAYPAL_PLAN_PRO: PAYPAL_PLANS.pro,
      PAYPAL_CERT_URL_PREFIXES: `${fake.url}/certs/`,
      ...extra,
    }),
    close: () => server.stop(true),
  }
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
  const orderBody = (o: Order) => ({
    id: o.id,
    status: o.capture ? 'COMPLETED' : 'APPROVED',
    purchase_units: [{ custom_id: o.customId, amount: o.amount, payments: o.capture ? { captures: [o.capture] } : undefined }],
  })

  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const text = await request.text()
      let body: unknown = text
      try {
        body = text ? JSON.parse(text) : null
      } catch {}
      fake.requests.push({ method: request.method, path: url.pathname, body, headers: Object.fromEntries(request.headers) })
      // An allowed URL that redirects (to the real certificate here; to an attacker's anywhere else).
      if (url.pathname === '/certs/hop') {
        fake.certFetches++
        return new Response(null, { status: 302, headers: { location: fake.certUrl } })
      }
      if (url.pathname.startsWith('/certs/')) {
        fake.certFetches++
        return new Response(cert, { headers: { 'content-type': 'application/x-pem-file' } })
      }
      if (fake.mode === 'error') return json({ name: 'INTERNAL_SERVER_ERROR' }, 500)
      if (fake.mode === 'garbage') return new Response('<html>oops</html>', { status: 200 })
      if (request.method === 'POST' && url.pathname === '/v1/oauth2/token') {
        const expected = `Basic ${Buffer.from(`${PAYPAL_CLIENT_ID}:${PAYPAL_CLIENT_SECRET}`).toString('base64')}`
        if (request.headers.get('authorization') !== expected || text !== 'grant_type=client_credentials')
          return json({ error: 'invalid_client' }, 401)
        fake.tokensIssued++
        currentToken = `A21.token.${fake.tokensIssued}`
        return json({ access_token: currentToken, token_type: 'Bearer', expires_in: fake.tokenLifetime })
      }
      if (request.headers.get('authorization') !== `Bearer ${currentToken}`) return json({ error: 'invalid_token' }, 401)
      const b = (body ?? {}) as Record<string, any>
      if (request.method === 'POST' && url.pathname === '/v2/checkout/orders') {
        const id = `ORDER-${++counter}`
        const unit = b.purchase_units?.[0] ?? {}
        fake.orders.set(id, { id, amount: unit.amount, customId: unit.custom_id ?? null, capture: null })
        return json(
          {
            id,
            status: 'PAYER_ACTION_REQUIRED',
            links: [{ rel: 'payer-action', href: `https://www.paypal.test/checkoutnow?token=${id}`, method: 'GET' }],
          },
          200,
        )
      }
      const capture = /^\/v2\/checkout\/orders\/([^/]+)\/capture$/.exec(url.pathname)
      if (request.method === 'POST' && capture) {
        const order = fake.orders.get(decodeURIComponent(capture[1]!))
        if (!order) return json({ name: 'RESOURCE_NOT_FOUND' }, 404)
        if (order.capture) return json({ name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] }, 422)
        order.capture = {
          id: `CAPTURE-${++counter}`,
          status: fake.captureStatus,
          amount: order.amount,
          custom_id: order.customId,
          create_time: new Date().toISOString(),
        }
        return json(orderBody(order), 201)
      }
      const get = /^\/v2\/checkout\/orders\/([^/]+)$/.exec(url.pathname)
      if (request.method === 'GET' && get) {
        const order = fake.orders.get(decodeURIComponent(get[1]!))
        return order ? json(orderBody(order)) : json({ name: 'RESOURCE_NOT_FOUND' }, 404)
      }
      if (request.method === 'POST' && url.pathname === '/v1/billing/subscriptions') {
        const id = `I-${++counter}`
        return json(
          {
            id,
            status: 'APPROVAL_PENDING',
            plan_id: b.plan_id,
            custom_id: b.custom_id,
            links: [{ rel: 'approve', href: `https://www.paypal.test/webapps/billing/subscriptions?ba_token=BA-${counter}`, method: 'GET' }],
          },
          201,
        )
      }
      if (request.method === 'POST' && /^\/v1\/billing\/subscriptions\/[^/]+\/cancel$/.test(url.pathname)) return new Response(null, { status: 204 })
      return json({ name: 'NOT_FOUND' }, 404)
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  fake.certUrl = `${fake.url}/certs/CERT-360caa42-fca2a594-test`
  return fake
}

/** The transmission headers PayPal sends with a delivery of this exact body. */
export function signPaypal(
  body: string,
  certUrl: string,
  options: { webhookId?: string; transmissionId?: string; time?: string; key?: string } = {},
): Record<string, string> {
  const transmissionId = options.transmissionId ?? crypto.randomUUID()
  const time = options.time ?? new Date().toISOString()
  const crc = Bun.hash.crc32(Buffer.from(body, 'utf8'))
  const message = `${transmissionId}|${time}|${options.webhookId ?? PAYPAL_WEBHOOK_ID}|${crc}`
  const sig = createSign('RSA-SHA256')
    .update(message)
    .sign(options.key ?? paypalKeyPair().key, 'base64')
  return {
    'paypal-transmission-id': transmissionId,
    'paypal-transmission-time': time,
    'paypal-transmission-sig': sig,
    'paypal-cert-url': certUrl,
    'paypal-auth-algo': 'SHA256withRSA',
  }
}

let eventCounter = 0
/** A wallet event body as PayPal sends it. */
export function paypalEvent(type: string, resource: Record<string, unknown>, options: { id?: string; createTime?: string } = {}): string {
  return JSON.stringify({
    id: options.id ?? `WH-${Date.now().toString(36)}-${++eventCounter}`,
    event_version: '1.0',
    create_time: options.createTime ?? new Date().toISOString(),
    resource_type: type.startsWith('BILLING') ? 'subscription' : type.includes('CAPTURE') ? 'capture' : 'sale',
    event_type: type,
    summary: type,
    resource,
  })
}

if (import.meta.main) {
  const fake = startFakePaypal(Number(process.argv[2] ?? 0))
  console.log(`fake paypal on ${fake.url}`)
}
