// A test app with both payment providers configured against their fakes on loopback, and helpers
// that deliver signed events the way Stripe and PayPal do.
import { makeTestApp, type Registered, type TestApp } from './app'
import { type FakePaypal, PAYPAL_PLANS, paypalEvent, signPaypal, startFakePaypal } from './fake-paypal'
import { type FakeStripe, signStripe, STRIPE_PRICES, startFakeStripe, stripeEvent } from './fake-stripe'
import { sqlRows } from './sql'

/** A PayPal subscription resource (BILLING.SUBSCRIPTION.*): the pro plan, next billing in 30 days unless `next` says (null: none). */
export const walletSubscription = (id: string, userId: string, fields: { plan?: string; next?: number | null } = {}) => ({
  id,
  plan_id: fields.plan ?? PAYPAL_PLANS.pro,
  custom_id: userId,
  status: 'ACTIVE',
  ...(fields.next === null ? {} : { billing_info: { next_billing_time: new Date(fields.next ?? Date.now() + 30 * 86_400_000).toISOString() } }),
})

export const FRONTEND = 'https://app.example.com'
export const PUBLIC = 'https://api.example.com'

export interface PaymentsApp {
  t: TestApp
  stripe: FakeStripe
  paypal: FakePaypal
  deliverCard(body: string, headers?: Record<string, string>): Promise<Response>
  deliverWallet(body: string, headers?: Record<string, string>): Promise<Response>
  close(): void
}

export async function paymentsApp(env: Record<string, string> = {}): Promise<PaymentsApp> {
  const stripe = startFakeStripe()
  const paypal = startFakePaypal()
  const t = await makeTestApp({ ...stripe.env(), ...paypal.env(), FRONTEND_URL: FRONTEND, PUBLIC_URL: PUBLIC, ...env })
  return {
    t,
    stripe,
    paypal,
    async deliverCard(body, headers) {
      const signature = headers ?? { 'stripe-signature': await signStripe(body) }
      return t.request('/api/payments/webhook', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json; charset=utf-8', ...signature },
      })
    },
    async deliverWallet(body, headers) {
      return t.request('/api/payments/altpay/webhook', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...(headers ?? signPaypal(body, paypal.certUrl)) },
      })
    },
    close() {
      stripe.close()
      paypal.close()
    },
  }
}

/** A user and the tier /api/user/me reports for them now. */
export async function tierOf(t: TestApp, user: Registered): Promise<string> {
  const res = await t.request('/api/user/me', { token: user.token })
  return ((await res.json()) as { tier: string }).tier
}

export async function subscriptionOf(t: TestApp, user: Registered) {
  const res = await t.request('/api/user/subscription', { token: user.token })
  if (res.status !== 200) throw new Error(`subscription: ${res.status} ${await res.text()}`)
  return (await res.json()) as {
    tier: string
    status: string
    provider: string | null
    current_period_end: string | null
    cancel_at_period_end: boolean
  }
}

/** Row counts of every billing and mail table: "nothing stored" compares two of these. */
export async function billingCounts(t: TestApp) {
  const out: Record<string, number> = {}
  for (const table of ['webhook_events', 'subscriptions', 'payments', 'billing_customers', 'mail_outbox']) {
    const [row] = await sqlRows<{ n: number | string }>(t.storage, `SELECT count(*) AS n FROM ${table}`)
    out[table] = Number(row?.n ?? 0)
  }
  return out
}

// --- card provider (Stripe) event objects ----------------------------------------------------

const sec = (d: Date | number) => Math.floor((typeof d === 'number' ? d : d.getTime()) / 1000)

export function checkoutCompleted(
  user: { id: string },
  tier: 'starter' | 'pro' | 'lifetime',
  options: { subscription?: string; customer?: string; session?: string; created?: number; amount?: number; id?: string } = {},
) {
  const lifetime = tier === 'lifetime'
  return stripeEvent(
    'checkout.session.completed',
    {
      id: options.session ?? `cs_${crypto.randomUUID()}`,
      object: 'checkout.session',
      mode: lifetime ? 'payment' : 'subscription',
      customer: options.customer ?? `cus_${user.id}`,
      subscription: lifetime ? null : (options.subscription ?? `sub_${crypto.randomUUID()}`),
      client_reference_id: user.id,
      metadata: { user_id: user.id, tier },
      payment_status: 'paid',
      status: 'complete',
      amount_total: options.amount ?? (lifetime ? 19900 : tier === 'pro' ? 2000 : 900),
      currency: 'usd',
    },
    { created: options.created, id: options.id },
  )
}

export function subscriptionObject(
  id: string,
  fields: {
    customer?: string
    status?: string
    periodEnd?: Date | number
    cancelAtPeriodEnd?: boolean
    price?: string
    userId?: string
    onItems?: boolean
  },
) {
  const end = fields.periodEnd === undefined ? undefined : sec(fields.periodEnd)
  return {
    id,
    object: 'subscription',
    customer: fields.customer ?? 'cus_x',
    status: fields.status ?? 'active',
    cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
    // Since API version 2025-03-31 the period end lives on the items only.
    ...(fields.onItems === false && end !== undefined ? { current_period_end: end } : {}),
    items: {
      object: 'list',
      data: [
        {
          id: `si_${id}`,
          price: { id: fields.price ?? STRIPE_PRICES.pro },
          ...(fields.onItems !== false && end !== undefined ? { current_period_end: end } : {}),
        },
      ],
    },
    metadata: fields.userId ? { user_id: fields.userId } : {},
  }
}

export const subscriptionEvent = (
  type: 'created' | 'updated' | 'deleted',
  object: Record<string, unknown>,
  options: { created?: number; id?: string } = {},
) => stripeEvent(`customer.subscription.${type}`, object, options)

export { paypalEvent }
