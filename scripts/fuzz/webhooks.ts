// Webhook deliveries that pass the signature check (both providers' real schemes, keys of the
// fakes the server is configured with) but carry hostile events: known types with fields of the
// wrong kind, unknown users and ids, hostile strings, missing objects. The signature is what
// keeps strangers out; what is signed must still never get a 5xx or a half-applied change.
import fc from 'fast-check'
import { paypalEvent } from '../../test/support/fake-paypal'
import { stripeEvent } from '../../test/support/fake-stripe'
import { anyJsonValue, anyText } from './hostile'

const STRIPE_TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
  'charge.refunded',
]
const PAYPAL_TYPES = [
  'BILLING.SUBSCRIPTION.ACTIVATED',
  'BILLING.SUBSCRIPTION.UPDATED',
  'BILLING.SUBSCRIPTION.CANCELLED',
  'BILLING.SUBSCRIPTION.EXPIRED',
  'BILLING.SUBSCRIPTION.SUSPENDED',
  'PAYMENT.SALE.COMPLETED',
  'PAYMENT.CAPTURE.COMPLETED',
  'PAYMENT.CAPTURE.REFUNDED',
]

/** A field's value: plausible, hostile, or of the wrong kind. */
const field = (plausible: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: plausible, weight: 3 }, { arbitrary: anyText, weight: 1 }, { arbitrary: anyJsonValue, weight: 1 })

const eventObject = (userIds: string[]) =>
  fc.record(
    {
      id: field(fc.constantFrom('sub_1', 'cs_1', 'in_1', 'I-SUB1', 'ch_1')),
      customer: field(fc.constantFrom('cus_1', 'cus_2')),
      subscription: field(fc.constantFrom('sub_1', 'sub_2')),
      client_reference_id: field(fc.constantFrom(...userIds, 'no-such-user')),
      custom_id: field(fc.constantFrom(...userIds, 'no-such-user')),
      metadata: field(fc.record({ user_id: field(fc.constantFrom(...userIds)), tier: field(fc.constantFrom('starter', 'pro', 'lifetime', 'free')) })),
      mode: field(fc.constantFrom('subscription', 'payment')),
      status: field(fc.constantFrom('active', 'canceled', 'past_due', 'ACTIVE', 'CANCELLED', 'COMPLETED')),
      plan_id: field(fc.constantFrom('P-STARTER', 'P-PRO')),
      current_period_end: field(fc.integer({ min: 0, max: 2 ** 40 })),
      cancel_at_period_end: field(fc.boolean()),
      amount_total: field(fc.integer({ min: -1, max: 10 ** 9 })),
      currency: field(fc.constantFrom('usd', 'eur')),
      items: field(
        fc.record({
          data: fc.array(fc.record({ price: fc.record({ id: field(fc.constantFrom('price_pro', 'price_starter')) }) }), { maxLength: 2 }),
        }),
      ),
      billing_info: field(fc.record({ next_billing_time: field(fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString()))) })),
      amount: field(fc.record({ value: field(fc.constantFrom('199.00', '-1', '1e9')), currency_code: field(fc.constantFrom('USD')) })),
    },
    { requiredKeys: [] },
  )

export interface SignedDelivery {
  provider: 'card' | 'wallet'
  body: string
}

/** A signed delivery's body (signed when sent: signatures carry the time). */
export const signedDelivery = (userIds: string[]): fc.Arbitrary<SignedDelivery> =>
  fc.oneof(
    fc
      .tuple(fc.oneof(fc.constantFrom(...STRIPE_TYPES), anyText), eventObject(userIds), fc.option(fc.nat(), { nil: undefined }))
      .map(([type, object, created]) => ({ provider: 'card' as const, body: stripeEvent(type, object, { created }) })),
    fc
      .tuple(fc.oneof(fc.constantFrom(...PAYPAL_TYPES), anyText), eventObject(userIds))
      .map(([type, resource]) => ({ provider: 'wallet' as const, body: paypalEvent(type, resource) })),
  )
