// Card provider (Stripe) events → Effects. Pure: the event is already verified and parsed.
// The handled types are SPEC's three, plus the checkout's asynchronous-payment success, the
// subscription's creation (the same object as an update) and the renewal invoice (recorded).
import { Type as T } from '@sinclair/typebox'
import { validationFailed } from '../../../http/problem'
import { type Effect, type ParsedEvent, PRINTABLE, type PaymentFacts, shapeCheck, UnixSeconds, WITHOUT_NUL } from '../effects'
import { minorToDecimal, orderKey, type PaidTier, RANK, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../state'

const Str = T.String({ minLength: 1, maxLength: 500, pattern: PRINTABLE })
const Metadata = T.Optional(T.Union([T.Null(), T.Record(T.String(), T.String({ pattern: WITHOUT_NUL }))]))
const Currency = T.String({ pattern: '^[A-Za-z]{3}$' })
/** In the currency's minor unit; written out digit by digit, so no larger than a double holds exactly. */
const Amount = T.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })

// SPEC lists only `type` and `data.object` (and, per type, a few of the object's fields); Stripe
// sends more. What SPEC does not list is optional here, and inferred when absent.
const checkEnvelope = shapeCheck(T.Object({ id: Str, type: Str, created: T.Optional(UnixSeconds), data: T.Object({ object: T.Object({}) }) }))

const checkSession = shapeCheck(
  T.Object({
    id: Str,
    mode: T.Optional(Str),
    customer: T.Optional(T.Union([T.Null(), Str])),
    subscription: T.Optional(T.Union([T.Null(), Str])),
    client_reference_id: T.Optional(T.Union([T.Null(), T.String({ maxLength: 200, pattern: PRINTABLE })])),
    metadata: Metadata,
    payment_status: T.Optional(Str),
    amount_total: T.Optional(T.Union([T.Null(), Amount])),
    currency: T.Optional(T.Union([T.Null(), Currency])),
  }),
)

const checkSubscription = shapeCheck(
  T.Object({
    id: Str,
    customer: Str,
    /** SPEC's deletion carries only id and customer */
    status: T.Optional(T.Union(SUBSCRIPTION_STATUSES.map((s) => T.Literal(s)))),
    current_period_end: T.Optional(T.Union([T.Null(), UnixSeconds])),
    cancel_at_period_end: T.Optional(T.Boolean()),
    metadata: Metadata,
    items: T.Optional(
      T.Object({
        data: T.Array(T.Object({ current_period_end: T.Optional(UnixSeconds), price: T.Optional(T.Object({ id: Str })) })),
      }),
    ),
  }),
)

const checkInvoice = shapeCheck(
  T.Object({
    id: Str,
    customer: Str,
    amount_paid: Amount,
    currency: Currency,
    billing_reason: T.Optional(T.Union([T.Null(), T.String({ maxLength: 500 })])),
    subscription: T.Optional(T.Union([T.Null(), Str])),
    parent: T.Optional(
      T.Union([
        T.Null(),
        T.Object({ subscription_details: T.Optional(T.Union([T.Null(), T.Object({ subscription: T.Optional(Str), metadata: Metadata })])) }),
      ]),
    ),
    /** before API version 2025-03-31 */
    subscription_details: T.Optional(T.Union([T.Null(), T.Object({ metadata: Metadata })])),
    status_transitions: T.Optional(T.Object({ paid_at: T.Optional(T.Union([T.Null(), UnixSeconds])) })),
  }),
)

export interface CardPrices {
  starter?: string
  pro?: string
  lifetime?: string
}

const isTierName = (v: string): v is 'starter' | 'pro' | 'lifetime' => v === 'starter' || v === 'pro' || v === 'lifetime'

function badField(path: string, message: string): never {
  throw validationFailed([{ path, message }], 'The event is signed, but not in the shape this service expects; nothing was changed.')
}

function tierOfPrice(prices: CardPrices, priceId: string | undefined): PaidTier | null {
  if (!priceId) return null
  if (priceId === prices.starter) return 'starter'
  if (priceId === prices.pro) return 'pro'
  return null
}

/** What the parser needs to know of this server's prices. */
export interface CardSettings {
  cardPrices: CardPrices
  lifetimePrice: string
  currency: string
}

function checkoutEffect(object: unknown, created: number, eventId: string, settings: CardSettings): Effect {
  const session = checkSession(object, 'checkout session', '/data/object')
  const userId = session.metadata?.user_id ?? session.client_reference_id ?? null
  const tierName = session.metadata?.tier
  // A checkout of this Stripe account that promptlib did not create: none of our business.
  if (!userId || tierName === undefined) return { kind: 'ignore', reason: 'not a promptlib checkout' }
  if (!isTierName(tierName)) badField('/data/object/metadata/tier', 'must be starter, pro or lifetime')
  // Stripe states whether the session is paid; SPEC's event does not, and a completed checkout is.
  const paymentStatus = session.payment_status ?? 'paid'
  if (paymentStatus !== 'paid' && paymentStatus !== 'no_payment_required') return { kind: 'ignore', reason: `payment ${paymentStatus}` }
  const at = new Date(created * 1000)
  const stated = session.amount_total != null && session.currency
  const payment: PaymentFacts | null = stated
    ? {
        id: session.id,
        kind: tierName === 'lifetime' ? 'lifetime' : 'subscription',
        amount: minorToDecimal(session.amount_total!, session.currency!),
        currency: session.currency!.toUpperCase(),
        paidAt: at,
        subscriptionId: session.subscription ?? null,
      }
    : null
  const customerId = session.customer ?? null
  if (tierName === 'lifetime') {
    if ((session.mode ?? 'payment') !== 'payment') badField('/data/object/mode', 'a lifetime checkout is a payment')
    // A session that does not state its amount (SPEC's event) was paid at the price this server
    // asks for lifetime (its checkout was made here): that price is recorded.
    const paid = payment ?? {
      id: session.id,
      kind: 'lifetime' as const,
      amount: settings.lifetimePrice,
      currency: settings.currency,
      paidAt: at,
      subscriptionId: null,
    }
    return { kind: 'lifetime', provider: 'card', userId, customerId, payment: paid, grants: true }
  }
  if ((session.mode ?? 'subscription') !== 'subscription' || !session.subscription)
    badField('/data/object/subscription', `a ${tierName} checkout creates a subscription`)
  return {
    kind: 'subscription',
    change: {
      provider: 'card',
      subscriptionId: session.subscription,
      version: orderKey(created * 1000, RANK.start, eventId),
      status: 'active',
      tier: tierName,
    },
    unsoldPlan: null,
    userId,
    customerId,
    linkCustomer: true,
    payment,
    notify: false,
  }
}

/** `rank`: a subscription's creation starts it (as a checkout does), any later update outranks it within one second. */
function subscriptionEffect(object: unknown, created: number, eventId: string, rank: (typeof RANK)[keyof typeof RANK], prices: CardPrices): Effect {
  const deleted = rank === RANK.end
  const sub = checkSubscription(object, 'subscription', '/data/object')
  // Since API version 2025-03-31 the period end lives on the items; older versions keep it on the subscription.
  const itemEnds = (sub.items?.data ?? []).map((i) => i.current_period_end).filter((e): e is number => e !== undefined)
  const end = sub.current_period_end ?? (itemEnds.length ? Math.max(...itemEnds) : null)
  const metaTier = sub.metadata?.tier
  const priceId = sub.items?.data[0]?.price?.id
  const tier = tierOfPrice(prices, priceId) ?? (metaTier === 'starter' || metaTier === 'pro' ? metaTier : null)
  if (!deleted && sub.status === undefined) badField('/data/object/status', 'Expected required property')
  const status: SubscriptionStatus = deleted ? 'canceled' : sub.status!
  return {
    kind: 'subscription',
    change: {
      provider: 'card',
      subscriptionId: sub.id,
      version: orderKey(created * 1000, rank, eventId),
      status,
      tier,
      periodEnd: end === null ? null : new Date(end * 1000),
      cancelAtPeriodEnd: sub.cancel_at_period_end ?? false,
    },
    unsoldPlan: priceId && !tier ? priceId : null,
    userId: sub.metadata?.user_id ?? null,
    customerId: sub.customer,
    linkCustomer: false,
    payment: null,
    notify: false,
  }
}

function invoiceEffect(object: unknown): Effect {
  const invoice = checkInvoice(object, 'invoice', '/data/object')
  // The first invoice of a subscription is the checkout's payment, recorded with it.
  if (invoice.billing_reason === 'subscription_create') return { kind: 'ignore', reason: 'first invoice: recorded with the checkout' }
  const subscriptionId = invoice.parent?.subscription_details?.subscription ?? invoice.subscription ?? null
  if (!subscriptionId) return { kind: 'ignore', reason: 'not a subscription invoice' }
  const paidAt = invoice.status_transitions?.paid_at
  // The subscription's metadata (the checkout put the user there): a renewal can arrive before the
  // checkout that links the customer (scripts/storm.ts), and would otherwise find no user.
  const metadata = invoice.parent?.subscription_details?.metadata ?? invoice.subscription_details?.metadata
  return {
    kind: 'payment',
    provider: 'card',
    customerId: invoice.customer,
    userId: metadata?.user_id ?? null,
    payment: {
      id: invoice.id,
      kind: 'renewal',
      amount: minorToDecimal(invoice.amount_paid, invoice.currency),
      currency: invoice.currency.toUpperCase(),
      paidAt: new Date((paidAt ?? Math.floor(Date.now() / 1000)) * 1000),
      subscriptionId,
    },
  }
}

/** The time a verified Stripe-Signature header was made (`t=`, seconds). */
export function signatureTime(signatureHeader: string): number {
  return Number(/(?:^|,)\s*t=(\d{1,12})(?:,|$)/.exec(signatureHeader)?.[1] ?? Math.floor(Date.now() / 1000))
}

/** `signedAt`: the signature's timestamp (seconds), which stands for `created` when the event has none. */
export function parseStripeEvent(value: unknown, settings: CardSettings, signedAt: number): ParsedEvent {
  const event = checkEnvelope(value, 'event')
  const object = event.data.object
  const { id, type } = event
  const created = event.created ?? signedAt
  const prices = settings.cardPrices
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return { id, type, effect: checkoutEffect(object, created, id, settings) }
    // Stripe's event ids within one second are not in time order: Checkout's `created`
    // (incomplete) and `updated` (active) of one second are told apart by rank, not by id.
    case 'customer.subscription.created':
      return { id, type, effect: subscriptionEffect(object, created, id, RANK.start, prices) }
    case 'customer.subscription.updated':
      return { id, type, effect: subscriptionEffect(object, created, id, RANK.update, prices) }
    case 'customer.subscription.deleted':
      return { id, type, effect: subscriptionEffect(object, created, id, RANK.end, prices) }
    case 'invoice.paid':
      return { id, type, effect: invoiceEffect(object) }
    default:
      return { id, type, effect: { kind: 'ignore', reason: 'event type not handled' } }
  }
}
