// The card provider through the official `stripe` SDK: customers, checkout sessions, and the
// webhook signature check. Under Bun the SDK loads its web build, where only the asynchronous
// signature functions work (STACK-NOTES). STRIPE_API_BASE points it at a local fake in tests.
import { createHmac } from 'node:crypto'
import Stripe from 'stripe'
import type { Logger } from '../../../log'
import { providerFailed } from './errors'

export interface CardCheckout {
  userId: string
  tier: 'starter' | 'pro' | 'lifetime'
  priceId: string
  customerId: string
  successUrl: string
  cancelUrl: string
}

export interface CardProvider {
  createCustomer(user: { id: string; email: string; name: string }): Promise<string>
  createCheckout(input: CardCheckout): Promise<{ url: string; id: string }>
  /** true when the Stripe-Signature header signs this exact body with our secret, within 300 s */
  verify(rawBody: string, signatureHeader: string): Promise<boolean>
  /** Ends the subscription now (no further charge); one Stripe no longer has is already ended. */
  cancelSubscription(subscriptionId: string): Promise<void>
}

/** Stripe's signature tolerance (contract section 8). */
export const SIGNATURE_TOLERANCE_S = 300
const TIMEOUT_MS = 10_000

/**
 * The SDK's verifier (header parsing, tolerance, constant-time comparison) with its HMAC computed
 * by node:crypto: the web build's default, SubtleCrypto with a key import per call, was 18 % of a
 * delivery's CPU time (scripts/bench-payments.ts, profiled).
 */
class NodeHmac extends Stripe.CryptoProvider {
  override computeHMACSignature(payload: string, secret: string): string {
    return createHmac('sha256', secret).update(payload, 'utf8').digest('hex')
  }
  override async computeHMACSignatureAsync(payload: string, secret: string): Promise<string> {
    return this.computeHMACSignature(payload, secret)
  }
  override async computeSHA256Async(data: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', data))
  }
}

function apiLocation(apiBase: string | undefined): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (!apiBase) return {}
  const url = new URL(apiBase)
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol }
}

export function stripeProvider(config: { secretKey: string; webhookSecret: string; apiBase?: string }, log: Logger): CardProvider {
  const stripe = new Stripe(config.secretKey, {
    ...apiLocation(config.apiBase),
    // Every call is a user's click waiting: no silent retries behind it (and none against a fake).
    maxNetworkRetries: 0,
    timeout: TIMEOUT_MS,
    telemetry: false,
  })
  const hmac = new NodeHmac()
  const failed = (what: string, error: unknown): never => {
    log.warn('card provider call failed', { call: what, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
    throw providerFailed('card')
  }

  return {
    async createCustomer(user) {
      let customer: { id?: unknown }
      try {
        // The idempotency key makes two concurrent first checkouts of one user create one customer.
        customer = await stripe.customers.create(
          { email: user.email, name: user.name, metadata: { user_id: user.id } },
          { idempotencyKey: `promptlib-customer-${user.id}` },
        )
      } catch (error) {
        return failed('customers.create', error)
      }
      if (typeof customer?.id !== 'string' || customer.id === '') return failed('customers.create', new Error('no customer id in the answer'))
      return customer.id
    },

    async createCheckout(input) {
      const metadata = { user_id: input.userId, tier: input.tier }
      const subscription = input.tier !== 'lifetime'
      let session: { id?: unknown; url?: unknown }
      try {
        session = await stripe.checkout.sessions.create({
          mode: subscription ? 'subscription' : 'payment',
          customer: input.customerId,
          client_reference_id: input.userId,
          line_items: [{ price: input.priceId, quantity: 1 }],
          metadata,
          // The subscription (and its later events) carries the user and tier too.
          ...(subscription ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        })
      } catch (error) {
        return failed('checkout.sessions.create', error)
      }
      if (typeof session?.id !== 'string' || typeof session.url !== 'string' || !/^https?:\/\//.test(session.url)) {
        return failed('checkout.sessions.create', new Error('no session id or url in the answer'))
      }
      return { id: session.id, url: session.url }
    },

    async cancelSubscription(subscriptionId) {
      try {
        await stripe.subscriptions.cancel(subscriptionId)
      } catch (error) {
        if ((error as { statusCode?: unknown }).statusCode === 404) return
        failed('subscriptions.cancel', error)
      }
    },

    async verify(rawBody, signatureHeader) {
      try {
        return await stripe.webhooks.signature!.verifyHeaderAsync(rawBody, signatureHeader, config.webhookSecret, SIGNATURE_TOLERANCE_S, hmac)
      } catch {
        return false
      }
    },
  }
}
