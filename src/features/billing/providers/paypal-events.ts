// Wallet provider (PayPal) events → Effects. Pure: the event is already verified and parsed.
// SPEC's three types, the v2 order's capture (lifetime bought through /altpay/checkout), and the
// subscription's suspension, re-activation and expiry (else a subscription whose payments fail
// would keep its tier for ever).
import { Type as T } from '@sinclair/typebox'
import { type Effect, type ParsedEvent, PRINTABLE, parseTime, shapeCheck } from '../effects'
import { addOneMonth, orderKey, type PaidTier, RANK, sameAmount, type SubscriptionStatus } from '../state'

const Str = T.String({ minLength: 1, maxLength: 500, pattern: PRINTABLE })
const OptionalStr = T.Optional(T.Union([T.Null(), T.String({ maxLength: 500, pattern: PRINTABLE })]))
const Money = T.String({ pattern: '^\\d{1,15}(\\.\\d{1,6})?$', maxLength: 24 })
const Currency = T.String({ pattern: '^[A-Za-z]{3}$' })

const checkEnvelope = shapeCheck(T.Object({ id: Str, event_type: Str, create_time: Str, resource: T.Object({}) }))

const checkSale = shapeCheck(
  T.Object({
    id: Str,
    amount: T.Object({ total: Money, currency: Currency }),
    custom: OptionalStr,
    billing_agreement_id: OptionalStr,
    create_time: T.Optional(Str),
  }),
)

const checkCapture = shapeCheck(
  T.Object({ id: Str, amount: T.Object({ value: Money, currency_code: Currency }), custom_id: OptionalStr, create_time: T.Optional(Str) }),
)

const checkSubscription = shapeCheck(
  T.Object({
    id: Str,
    plan_id: T.Optional(Str),
    custom_id: OptionalStr,
    billing_info: T.Optional(T.Object({ next_billing_time: T.Optional(T.Union([T.Null(), Str])) })),
  }),
)

export interface WalletSettings {
  plans: { starter?: string; pro?: string }
  lifetimePrice: string
  currency: string
}

function tierOfPlan(settings: WalletSettings, planId: string | undefined): PaidTier | null {
  if (!planId) return null
  if (planId === settings.plans.starter) return 'starter'
  if (planId === settings.plans.pro) return 'pro'
  return null
}

/** A one-time payment for lifetime: granted only at the lifetime price in the configured currency. */
function lifetimeEffect(
  id: string,
  userId: string | null | undefined,
  amount: string,
  currency: string,
  paidAt: Date,
  settings: WalletSettings,
): Effect {
  if (!userId) return { kind: 'ignore', reason: 'a payment without a promptlib user (custom id)' }
  const grants = sameAmount(amount, settings.lifetimePrice) && currency.toUpperCase() === settings.currency
  return {
    kind: 'lifetime',
    provider: 'wallet',
    userId,
    customerId: null,
    payment: { id, kind: 'lifetime', amount, currency: currency.toUpperCase(), paidAt, subscriptionId: null },
    grants,
  }
}

const SUBSCRIPTION_MOVES: Record<string, { status: SubscriptionStatus; rank: number; notify: boolean; suspension?: 'suspended' | 'resumed' }> = {
  'BILLING.SUBSCRIPTION.ACTIVATED': { status: 'active', rank: RANK.start, notify: false, suspension: 'resumed' },
  'BILLING.SUBSCRIPTION.RE-ACTIVATED': { status: 'active', rank: RANK.update, notify: false, suspension: 'resumed' },
  'BILLING.SUBSCRIPTION.SUSPENDED': { status: 'paused', rank: RANK.update, notify: false, suspension: 'suspended' },
  'BILLING.SUBSCRIPTION.CANCELLED': { status: 'canceled', rank: RANK.end, notify: true },
  'BILLING.SUBSCRIPTION.EXPIRED': { status: 'canceled', rank: RANK.end, notify: false },
}

export function parsePaypalEvent(value: unknown, settings: WalletSettings): ParsedEvent {
  const event = checkEnvelope(value, 'event')
  const { id, event_type: type, resource } = event
  const at = parseTime(event.create_time, '/create_time')
  if (type === 'PAYMENT.SALE.COMPLETED') {
    const sale = checkSale(resource, 'sale', '/resource')
    const paidAt = sale.create_time ? parseTime(sale.create_time, '/resource/create_time') : at
    // A sale of a subscription (billing_agreement_id) is its renewal, never a lifetime purchase:
    // it moves the period end on by one billing cycle from the payment.
    if (sale.billing_agreement_id) {
      return {
        id,
        type,
        effect: {
          kind: 'subscription',
          change: { provider: 'wallet', subscriptionId: sale.billing_agreement_id, version: null, periodEndAtLeast: addOneMonth(paidAt) },
          unsoldPlan: null,
          userId: sale.custom || null,
          customerId: null,
          linkCustomer: false,
          payment: {
            id: sale.id,
            kind: 'renewal',
            amount: sale.amount.total,
            currency: sale.amount.currency.toUpperCase(),
            paidAt,
            subscriptionId: sale.billing_agreement_id,
          },
          notify: false,
        },
      }
    }
    return { id, type, effect: lifetimeEffect(sale.id, sale.custom, sale.amount.total, sale.amount.currency, paidAt, settings) }
  }
  if (type === 'PAYMENT.CAPTURE.COMPLETED') {
    const capture = checkCapture(resource, 'capture', '/resource')
    const paidAt = capture.create_time ? parseTime(capture.create_time, '/resource/create_time') : at
    return { id, type, effect: lifetimeEffect(capture.id, capture.custom_id, capture.amount.value, capture.amount.currency_code, paidAt, settings) }
  }
  const move = SUBSCRIPTION_MOVES[type]
  if (!move) return { id, type, effect: { kind: 'ignore', reason: 'event type not handled' } }
  const sub = checkSubscription(resource, 'subscription', '/resource')
  const next = sub.billing_info?.next_billing_time
  const nextEnd = next ? parseTime(next, '/resource/billing_info/next_billing_time') : null
  const tier = tierOfPlan(settings, sub.plan_id)
  // An activation of a plan this service does not sell: recorded and logged, nothing changes.
  if (type === 'BILLING.SUBSCRIPTION.ACTIVATED' && !tier)
    return { id, type, effect: { kind: 'ignore', reason: `unknown plan ${sub.plan_id ?? '(none)'}`, unsoldPlan: sub.plan_id ?? '(none)' } }
  return {
    id,
    type,
    effect: {
      kind: 'subscription',
      change: {
        provider: 'wallet',
        subscriptionId: sub.id,
        version: orderKey(at.getTime(), move.rank, id),
        status: move.status,
        tier,
        cancelAtPeriodEnd: move.status === 'canceled',
        periodEndAtLeast: nextEnd,
        ...(move.status === 'canceled' ? { cancelPeriodEnd: nextEnd } : {}),
        ...(move.suspension ? { suspension: move.suspension } : {}),
      },
      unsoldPlan: sub.plan_id && !tier ? sub.plan_id : null,
      userId: sub.custom_id || null,
      customerId: null,
      linkCustomer: false,
      payment: null,
      notify: move.notify,
    },
  }
}

/** What the return URL's capture tells (PayPal's capture response), as the capture event would. */
export function captureEffect(
  capture: { id: string; amount: string; currency: string; customId: string | null; createTime: Date },
  settings: WalletSettings,
): Effect {
  return lifetimeEffect(capture.id, capture.customId, capture.amount, capture.currency, capture.createTime, settings)
}
