// The storm's events: for each user a history of what the two payment providers would send over
// months (card subscriptions with renewals, plan changes, failed payments and deletions; wallet
// subscriptions with renewals, suspensions and cancellations; lifetime purchases by either, some
// at the wrong price; refunds and other types the service records and ignores), in time order.
// Every event has a unique id and its own time; the deliveries are the events, repeats of random
// ones, shuffled. Event bodies come from the test helpers (test/support/billing.ts and the fakes).
import { checkoutCompleted, subscriptionEvent, subscriptionObject } from '../../test/support/billing'
import { PAYPAL_PLANS, paypalEvent } from '../../test/support/fake-paypal'
import { STRIPE_PRICES, stripeEvent } from '../../test/support/fake-stripe'

export type Provider = 'card' | 'wallet'

export interface StormEvent {
  provider: Provider
  id: string
  type: string
  userId: string
  /** when it happened (ms); the serial replay sends in this order (then in the order generated) */
  at: number
  /** the order generated, for ties */
  seq: number
  body: string
}

export interface Delivery {
  event: StormEvent
  /** 0 for the first delivery of an event in the shuffled list, 1… for repeats */
  copy: number
}

/** A small seeded generator (xorshift32), so a failing storm can be run again with --seed. */
export function seededRandom(seed: number) {
  let x = seed >>> 0 || 1
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
    shuffle<T>(items: T[]): T[] {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[items[i], items[j]] = [items[j]!, items[i]!]
      }
      return items
    },
  }
}
export type Random = ReturnType<typeof seededRandom>

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const iso = (ms: number) => new Date(ms).toISOString()
const sec = (ms: number) => Math.floor(ms / 1000)

/**
 * One user's history, as long as the provider would make it, from `start`. Period ends keep a day
 * away from `now`, so a tier that depends on "is the period over" is the same for the storm and
 * for the replay that runs a minute later.
 */
function* history(userId: string, tag: string, start: number, now: number, r: Random): Generator<Omit<StormEvent, 'seq' | 'userId'>> {
  let t = start
  let chapter = 0
  const step = () => {
    t += MINUTE + r.int(6 * DAY)
    return t
  }
  const periodEnd = (from: number) => {
    const end = from + 30 * DAY
    return Math.abs(end - now) < DAY ? end + 2 * DAY : end
  }
  const customer = `cus_${tag}`
  const card = (type: string, object: Record<string, unknown>, at: number, id: string) => ({
    provider: 'card' as const,
    id,
    type,
    at,
    body: stripeEvent(type, object, { id, created: sec(at) }),
  })
  const wallet = (type: string, resource: Record<string, unknown>, at: number, id: string) => ({
    provider: 'wallet' as const,
    id,
    type,
    at,
    body: paypalEvent(type, resource, { id, createTime: iso(at) }),
  })

  for (;;) {
    chapter++
    const k = `${tag}_${chapter}`
    const kind = r.pick(['card', 'card', 'wallet', 'wallet', 'lifetime', 'noise'] as const)
    if (kind === 'card') {
      // Stripe's times are whole seconds: keep each event of a subscription in a second of its own.
      t = Math.ceil(step() / 1000) * 1000
      const sub = `sub_${k}`
      let tier: 'starter' | 'pro' = r.pick(['starter', 'pro'])
      let end = periodEnd(t)
      let status = 'active'
      let cancelAtEnd = false
      const object = (extra: { status?: string } = {}) =>
        subscriptionObject(sub, {
          userId,
          customer,
          status: extra.status ?? status,
          periodEnd: end,
          price: STRIPE_PRICES[tier],
          cancelAtPeriodEnd: cancelAtEnd,
        })
      let n = 0
      const id = () => `evt_${k}_${++n}`
      const session = `cs_${k}`
      yield {
        provider: 'card',
        id: `evt_${k}_0`,
        type: 'checkout.session.completed',
        at: t,
        body: checkoutCompleted({ id: userId }, tier, { subscription: sub, customer, session, created: sec(t), id: `evt_${k}_0` }),
      }
      yield card('customer.subscription.created', object(), t, id())
      const invoice = (reason: string, at: number) =>
        card(
          'invoice.paid',
          {
            id: `in_${k}_${n + 1}`,
            object: 'invoice',
            customer,
            amount_paid: tier === 'pro' ? 2000 : 900,
            currency: 'usd',
            billing_reason: reason,
            parent: { type: 'subscription_details', subscription_details: { subscription: sub, metadata: { user_id: userId, tier } } },
            status_transitions: { paid_at: sec(at) },
          },
          at,
          id(),
        )
      yield invoice('subscription_create', t)
      for (let s = r.int(5); s > 0; s--) {
        const move = r.pick(['renew', 'renew', 'plan', 'fail', 'cancel-at-end'] as const)
        const at = (t = Math.ceil((t + 1000 + r.int(5 * DAY)) / 1000) * 1000)
        if (move === 'renew') {
          end = periodEnd(at)
          yield invoice('subscription_cycle', at)
          t += 1000
          yield card('customer.subscription.updated', object(), t, id())
        } else if (move === 'plan') {
          tier = tier === 'pro' ? 'starter' : 'pro'
          yield card('customer.subscription.updated', object(), at, id())
        } else if (move === 'fail') {
          yield card('invoice.payment_failed', { id: `in_${k}_failed_${n}`, object: 'invoice', customer, attempt_count: 1 }, at, id())
          t += 1000
          status = 'past_due'
          yield card('customer.subscription.updated', object(), t, id())
          t += 1000 + r.int(DAY)
          status = r.pick(['active', 'unpaid'])
          yield card('customer.subscription.updated', object(), t, id())
          if (status === 'unpaid') break
        } else {
          cancelAtEnd = !cancelAtEnd
          yield card('customer.subscription.updated', object(), at, id())
        }
      }
      if (r.chance(0.5)) {
        t = Math.ceil((t + 1000 + r.int(5 * DAY)) / 1000) * 1000
        if (r.chance(0.3)) yield card('charge.refunded', { id: `ch_${k}`, object: 'charge', customer, amount_refunded: 900 }, t, id())
        status = 'canceled'
        yield card('customer.subscription.deleted', object(), t + 1000, id())
        t += 1000
      }
    } else if (kind === 'wallet') {
      const sub = `I-${k}`
      let at = step()
      const tier: 'starter' | 'pro' = r.pick(['starter', 'pro'])
      let next = periodEnd(at)
      let n = 0
      const id = () => `WH-${k}-${++n}`
      const resource = (extra: Record<string, unknown> = {}) => ({
        id: sub,
        plan_id: PAYPAL_PLANS[tier],
        custom_id: userId,
        billing_info: { next_billing_time: iso(next) },
        ...extra,
      })
      yield wallet('BILLING.SUBSCRIPTION.ACTIVATED', resource(), at, id())
      let suspended = false
      for (let s = r.int(5); s > 0; s--) {
        at = step()
        const move = suspended ? 'reactivate' : r.pick(['renew', 'renew', 'suspend'] as const)
        if (move === 'renew') {
          next = periodEnd(at)
          yield wallet(
            'PAYMENT.SALE.COMPLETED',
            {
              id: `SALE-${k}-${n + 1}`,
              amount: { total: tier === 'pro' ? '20.00' : '9.00', currency: 'USD' },
              custom: userId,
              billing_agreement_id: sub,
              create_time: iso(at),
            },
            at,
            id(),
          )
        } else if (move === 'suspend') {
          suspended = true
          yield wallet('BILLING.SUBSCRIPTION.SUSPENDED', resource(), at, id())
        } else {
          suspended = false
          yield wallet('BILLING.SUBSCRIPTION.RE-ACTIVATED', resource(), at, id())
        }
      }
      if (r.chance(0.5)) {
        at = step()
        // PayPal cancels a subscription (the user, with notice) or lets it expire; either is its last word.
        if (r.chance(0.75)) yield wallet('BILLING.SUBSCRIPTION.CANCELLED', resource(), at, id())
        else yield wallet('BILLING.SUBSCRIPTION.EXPIRED', resource({ status: 'EXPIRED' }), at, id())
      }
    } else if (kind === 'lifetime') {
      const at = step()
      const how = r.pick(['card', 'capture', 'sale', 'capture-wrong-price'] as const)
      if (how === 'card') {
        const at1 = Math.ceil(at / 1000) * 1000
        t = at1
        yield {
          provider: 'card',
          id: `evt_${k}_0`,
          type: 'checkout.session.completed',
          at: at1,
          body: checkoutCompleted({ id: userId }, 'lifetime', { customer, session: `cs_${k}`, created: sec(at1), id: `evt_${k}_0` }),
        }
      } else if (how === 'sale') {
        yield wallet(
          'PAYMENT.SALE.COMPLETED',
          { id: `SALE-${k}`, amount: { total: '199.00', currency: 'USD' }, custom: userId, create_time: iso(at) },
          at,
          `WH-${k}-0`,
        )
      } else {
        const value = how === 'capture' ? '199.00' : '19.90'
        yield wallet(
          'PAYMENT.CAPTURE.COMPLETED',
          { id: `CAPTURE-${k}`, amount: { value, currency_code: 'USD' }, custom_id: userId, create_time: iso(at) },
          at,
          `WH-${k}-0`,
        )
        if (r.chance(0.3)) {
          t = step()
          yield wallet('PAYMENT.CAPTURE.REFUNDED', { id: `REFUND-${k}`, amount: { value, currency_code: 'USD' }, custom_id: userId }, t, `WH-${k}-1`)
        }
      }
    } else {
      // Types the service records and ignores.
      const at = Math.ceil(step() / 1000) * 1000
      if (r.chance(0.5)) yield card('customer.updated', { id: customer, object: 'customer' }, at, `evt_${k}_0`)
      else yield wallet('BILLING.SUBSCRIPTION.UPDATED', { id: `I-${k}`, plan_id: PAYPAL_PLANS.pro, custom_id: userId }, at, `WH-${k}-0`)
    }
  }
}

export interface Storm {
  users: string[]
  events: StormEvent[]
  /** the shuffled deliveries: every event once, plus the repeats */
  deliveries: Delivery[]
}

/**
 * `total` deliveries for `userIds`: (1 − duplicates) of them distinct events, spread over the
 * users (each user's events a prefix of its history), the rest repeats of random events.
 */
export function makeStorm(userIds: string[], total: number, duplicates: number, seed: number, run: string): Storm {
  const r = seededRandom(seed)
  const now = Date.now()
  const distinct = Math.round(total * (1 - duplicates))
  // Each user gets a share of the distinct events, 1 to 2× the mean, summing exactly to `distinct`.
  const shares = userIds.map(() => 1 + r.next())
  const sum = shares.reduce((a, b) => a + b, 0)
  const counts = shares.map((s) => Math.max(1, Math.floor((s / sum) * distinct)))
  for (let i = 0, left = distinct - counts.reduce((a, b) => a + b, 0); left !== 0; i = (i + 1) % counts.length) {
    if (left > 0) {
      counts[i]!++
      left--
    } else if (counts[i]! > 1) {
      counts[i]!--
      left++
    }
  }
  const events: StormEvent[] = []
  userIds.forEach((userId, u) => {
    // Histories start up to a year back; each event is a few days after the last, in the past.
    const start = now - 400 * DAY + r.int(30 * DAY)
    const it = history(userId, `${run}_${u}`, start, now, r)
    for (let i = 0; i < counts[u]!; i++) {
      const e = it.next().value!
      if (e.at > now - HOUR) throw new Error(`history of user ${u} ran into the present: fewer events per user, please`)
      events.push({ ...e, userId, seq: events.length })
    }
  })
  const deliveries: Delivery[] = events.map((event) => ({ event, copy: 0 }))
  const copies = new Map<string, number>()
  for (let i = distinct; i < total; i++) {
    const event = r.pick(events)
    const copy = (copies.get(event.id) ?? 0) + 1
    copies.set(event.id, copy)
    deliveries.push({ event, copy })
  }
  r.shuffle(deliveries)
  return { users: userIds, events, deliveries }
}

/** The events in the order they happened: what a provider that sends one at a time, never repeating, would send. */
export const inTimeOrder = (events: StormEvent[]) => [...events].sort((a, b) => a.at - b.at || a.seq - b.seq)
