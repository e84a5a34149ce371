// The wallet provider through PayPal's REST API over fetch: an OAuth client-credentials token
// (cached until shortly before it expires, one refresh at a time), v2 orders for lifetime, v1
// subscriptions for starter and pro, the capture, and the offline webhook signature check.
import { createVerify, type KeyObject, X509Certificate } from 'node:crypto'
import type { Logger } from '../../../log'
import { providerFailed } from './errors'

export interface PaypalConfig {
  clientId: string
  clientSecret: string
  apiBase: string
  webhookId?: string
  certUrlPrefixes: string[]
}

export interface CapturedPayment {
  id: string
  status: string
  amount: string
  currency: string
  customId: string | null
  createTime: Date
}

/** PayPal's transmission headers of a webhook delivery. */
export interface PaypalSignature {
  transmissionId: string | null
  transmissionTime: string | null
  transmissionSig: string | null
  certUrl: string | null
  authAlgo: string | null
}

export interface WalletProvider {
  readonly canVerify: boolean
  createOrder(input: {
    userId: string
    amount: string
    currency: string
    returnUrl: string
    cancelUrl: string
  }): Promise<{ id: string; approvalUrl: string }>
  createSubscription(input: { userId: string; planId: string; returnUrl: string; cancelUrl: string }): Promise<{ id: string; approvalUrl: string }>
  /** Captures an approved order (or reads the capture when it was captured before); null for no capture, or a token that is no order id. */
  captureOrder(orderId: string): Promise<CapturedPayment | null>
  /**
   * false for a missing or wrong signature, a certificate URL outside the allowed prefixes, or one
   * that answers no certificate (4xx, not a certificate); throws 502 when it cannot be fetched
   */
  verify(rawBody: string, signature: PaypalSignature): Promise<boolean>
  /** Cancels the subscription (no further charge); one PayPal no longer has, or has already ended, is done. */
  cancelSubscription(subscriptionId: string): Promise<void>
}

const TIMEOUT_MS = 10_000
/** A token is used until this long before PayPal says it expires. */
const TOKEN_MARGIN_MS = 60_000
const CERT_CACHE_SIZE = 16
const CERT_TTL_MS = 24 * 60 * 60 * 1000

class PaypalAnswer extends Error {}
/**
 * The certificate URL answered, but with no certificate (a 4xx, or a body that is not one): PayPal
 * names only certificates it serves, so the delivery is not PayPal's. Anyone may send such a URL
 * under an allowed prefix: a refused signature (400), not a provider failure (502).
 */
class NoCertificate extends Error {}

/** PayPal's order ids are letters and digits (`5O190127TN364715T`); nothing else goes into its API's paths. */
const ORDER_ID = /^[A-Za-z0-9_-]{1,64}$/

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

function approvalLink(body: unknown): { id: string; approvalUrl: string } {
  if (!isRecord(body) || !str(body.id) || !Array.isArray(body.links)) throw new PaypalAnswer('no id or links')
  const link = body.links.find(
    (l) => isRecord(l) && (l.rel === 'approve' || l.rel === 'payer-action') && typeof l.href === 'string' && /^https?:\/\//.test(l.href),
  )
  if (!link) throw new PaypalAnswer('no approval link')
  return { id: body.id as string, approvalUrl: (link as { href: string }).href }
}

function captureOf(order: unknown): CapturedPayment | null {
  if (!isRecord(order) || !Array.isArray(order.purchase_units)) throw new PaypalAnswer('no purchase units')
  for (const unit of order.purchase_units) {
    if (!isRecord(unit) || !isRecord(unit.payments) || !Array.isArray(unit.payments.captures)) continue
    for (const c of unit.payments.captures) {
      if (!isRecord(c) || !str(c.id) || !isRecord(c.amount)) continue
      const amount = str(c.amount.value)
      const currency = str(c.amount.currency_code)
      if (!amount || !currency) continue
      const created = Date.parse(str(c.create_time) ?? '')
      return {
        id: c.id as string,
        status: str(c.status) ?? 'UNKNOWN',
        amount,
        currency,
        customId: str(c.custom_id) ?? str(unit.custom_id),
        createTime: Number.isNaN(created) ? new Date() : new Date(created),
      }
    }
  }
  return null
}

export function paypalProvider(config: PaypalConfig, log: Logger): WalletProvider {
  let token: { value: string; expiresAt: number } | null = null
  let refreshing: Promise<string> | null = null
  const certificates = new Map<string, { key: Promise<KeyObject>; at: number }>()

  const failed = (what: string, error: unknown): never => {
    log.warn('wallet provider call failed', { call: what, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
    throw providerFailed('wallet')
  }

  async function accessToken(): Promise<string> {
    if (token && token.expiresAt > Date.now()) return token.value
    refreshing ??= (async () => {
      const res = await fetch(`${config.apiBase}/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        // The credentials and the order (with the user's id) go to PAYPAL_API_BASE only, never where a redirect points.
        redirect: 'error',
      })
      const body: unknown = await res.json().catch(() => null)
      if (!res.ok || !isRecord(body) || !str(body.access_token) || typeof body.expires_in !== 'number')
        throw new PaypalAnswer(`token: HTTP ${res.status}`)
      const lifetimeMs = body.expires_in * 1000
      token = {
        value: body.access_token as string,
        expiresAt: Date.now() + (lifetimeMs > 2 * TOKEN_MARGIN_MS ? lifetimeMs - TOKEN_MARGIN_MS : lifetimeMs / 2),
      }
      return token.value
    })().finally(() => {
      refreshing = null
    })
    return refreshing
  }

  /** One API call with the cached token; a 401 (token revoked early) gets one retry with a fresh token. */
  async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${config.apiBase}${path}`, {
        method,
        headers: { authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      })
      if (res.status === 401 && attempt === 0) {
        token = null
        continue
      }
      return { status: res.status, body: await res.json().catch(() => null) }
    }
  }

  async function publicKey(certUrl: string): Promise<KeyObject> {
    const cached = certificates.get(certUrl)
    if (cached && Date.now() - cached.at < CERT_TTL_MS) return cached.key
    if (certificates.size >= CERT_CACHE_SIZE) certificates.clear()
    const key = (async () => {
      // Never followed: PAYPAL_CERT_URL_PREFIXES vouches for this URL only, and a redirect from an
      // allowed host to any other would let anyone sign events with a certificate of their own.
      const res = await fetch(certUrl, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' })
      if (res.status >= 300 && res.status < 500) throw new NoCertificate(`certificate: HTTP ${res.status}`)
      if (!res.ok) throw new PaypalAnswer(`certificate: HTTP ${res.status}`)
      const pem = await res.text()
      try {
        return new X509Certificate(pem).publicKey
      } catch {
        throw new NoCertificate('certificate: not a certificate')
      }
    })()
    certificates.set(certUrl, { key, at: Date.now() })
    // A failed fetch is not remembered: the provider's retry fetches again.
    key.catch(() => certificates.delete(certUrl))
    return key
  }

  const allowedCertUrl = (raw: string): boolean => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return false
    }
    if (url.username || url.password) return false
    return config.certUrlPrefixes.some((prefix) => url.href.startsWith(prefix))
  }

  return {
    canVerify: Boolean(config.webhookId),

    async createOrder(input) {
      try {
        const { status, body } = await call('POST', '/v2/checkout/orders', {
          intent: 'CAPTURE',
          purchase_units: [
            { amount: { currency_code: input.currency, value: input.amount }, custom_id: input.userId, description: 'promptlib lifetime' },
          ],
          payment_source: { paypal: { experience_context: { return_url: input.returnUrl, cancel_url: input.cancelUrl, user_action: 'PAY_NOW' } } },
        })
        if (status < 200 || status >= 300) throw new PaypalAnswer(`HTTP ${status}`)
        return approvalLink(body)
      } catch (error) {
        return failed('orders.create', error)
      }
    },

    async createSubscription(input) {
      try {
        const { status, body } = await call('POST', '/v1/billing/subscriptions', {
          plan_id: input.planId,
          custom_id: input.userId,
          application_context: { return_url: input.returnUrl, cancel_url: input.cancelUrl, user_action: 'SUBSCRIBE_NOW' },
        })
        if (status < 200 || status >= 300) throw new PaypalAnswer(`HTTP ${status}`)
        return approvalLink(body)
      } catch (error) {
        return failed('subscriptions.create', error)
      }
    },

    async cancelSubscription(subscriptionId) {
      try {
        const { status } = await call('POST', `/v1/billing/subscriptions/${encodeURIComponent(subscriptionId)}/cancel`, {
          reason: 'The promptlib account was deleted',
        })
        // 404: no such subscription; 422: already cancelled or expired (SUBSCRIPTION_STATUS_INVALID).
        if ((status >= 200 && status < 300) || status === 404 || status === 422) return
        throw new PaypalAnswer(`HTTP ${status}`)
      } catch (error) {
        failed('subscriptions.cancel', error)
      }
    },

    async captureOrder(orderId) {
      if (!ORDER_ID.test(orderId)) return null
      const path = `/v2/checkout/orders/${encodeURIComponent(orderId)}`
      try {
        // The request id makes a repeated capture (a reload of the return page) the same capture.
        const captured = await call('POST', `${path}/capture`, {}, { 'paypal-request-id': `capture-${orderId}` })
        if (captured.status >= 200 && captured.status < 300) return captureOf(captured.body)
        const issue = JSON.stringify(captured.body ?? '')
        if (captured.status === 422 && issue.includes('ORDER_ALREADY_CAPTURED')) {
          const order = await call('GET', path, undefined)
          if (order.status >= 200 && order.status < 300) return captureOf(order.body)
        }
        throw new PaypalAnswer(`HTTP ${captured.status}`)
      } catch (error) {
        return failed('orders.capture', error)
      }
    },

    async verify(rawBody, s) {
      if (!config.webhookId || !s.transmissionId || !s.transmissionTime || !s.transmissionSig || !s.certUrl) return false
      if (s.authAlgo && s.authAlgo !== 'SHA256withRSA') return false
      if (!allowedCertUrl(s.certUrl)) return false
      let key: KeyObject
      try {
        key = await publicKey(s.certUrl)
      } catch (error) {
        if (error instanceof NoCertificate) {
          log.debug('wallet webhook: no certificate at the URL named', { cert_url: s.certUrl, error: error.message })
          return false
        }
        return failed('certificate', error)
      }
      const crc = Bun.hash.crc32(Buffer.from(rawBody, 'utf8'))
      const message = `${s.transmissionId}|${s.transmissionTime}|${config.webhookId}|${crc}`
      try {
        return createVerify('RSA-SHA256').update(message).verify(key, s.transmissionSig, 'base64')
      } catch {
        return false
      }
    },
  }
}
