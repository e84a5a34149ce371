// What a provider event means, in the provider-neutral terms the service applies. The parsers
// (providers/*-events.ts) turn a verified event into one Effect; the service writes it in one
// transaction together with the event's record.
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { type TSchema, Type as T } from '@sinclair/typebox'
import { validationFailed } from '../../http/problem'
import { LAST_STORABLE_MS } from '../../lib/time'
import type { Provider, SubscriptionChange } from './state'

export interface PaymentFacts {
  /** the provider's id of the payment (checkout session, invoice, sale, capture) */
  id: string
  kind: 'lifetime' | 'subscription' | 'renewal'
  /** decimal string in major units */
  amount: string
  currency: string
  paidAt: Date
  subscriptionId: string | null
}

export type Effect =
  /** recorded and answered 200, nothing else (an event type or object that is not ours) */
  | {
      kind: 'ignore'
      reason: string
      /** a plan this server does not sell: the operator hears of it (a mistyped PAYPAL_PLAN_* leaves payers without their tier) */
      unsoldPlan?: string
    }
  | {
      kind: 'subscription'
      change: SubscriptionChange
      /**
       * The plan or price the event names when this server does not sell it: a subscription that
       * was never promptlib's is ignored (one stored earlier is ours, whatever its plan is now).
       */
      unsoldPlan: string | null
      /** from the event (metadata, custom_id), else from the provider's customer, else from the stored subscription */
      userId: string | null
      customerId: string | null
      /** a checkout: remember the user's customer at the provider (later events may name only it) */
      linkCustomer: boolean
      payment: PaymentFacts | null
      /** a cancellation the user is told about by e-mail */
      notify: boolean
    }
  | {
      kind: 'lifetime'
      provider: Provider
      userId: string
      customerId: string | null
      payment: PaymentFacts
      /** false when the amount or currency is not the lifetime price: recorded, not granted */
      grants: boolean
    }
  /**
   * a payment to record, changing nothing else (a card subscription's renewal invoice); its user is
   * the stored subscription's, else the one in the event, else the customer's
   */
  | { kind: 'payment'; provider: Provider; customerId: string; userId: string | null; payment: PaymentFacts }

export interface ParsedEvent {
  id: string
  type: string
  effect: Effect
}

/**
 * The text of an event this service stores or looks rows up by (ids, types, states, amounts):
 * printable. No provider's id holds a control character, and PostgreSQL refuses NUL outright, so
 * such an event is refused by its shape on either engine instead of failing halfway through. Nor
 * half a surrogate pair: stored, it becomes U+FFFD, and two ids that differ only there were one.
 * (Written to mean the same with or without the regular expression's `u` flag.)
 */
export const PRINTABLE = '^(?:[^\\u0000-\\u001f\\u007f\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$'
/** Metadata values: anything but NUL (a note set in the provider's dashboard may span lines). */
export const WITHOUT_NUL = '^[^\\u0000]*$'
/** A provider's time in Unix seconds (Stripe's), from 1970 to the end of year 9999 (lib/time.ts says why). */
export const UnixSeconds = T.Integer({ minimum: 0, maximum: Math.floor(LAST_STORABLE_MS / 1000) })

/**
 * A compiled shape check. A signed event that is valid JSON but not the shape its type promises
 * is refused with 422 and the paths of what is wrong, before anything is stored.
 */
export function shapeCheck<T extends TSchema>(schema: T) {
  const compiled = TypeCompiler.Compile(schema)
  /** `at`: where the value sits in the event (`/data/object`), so the paths name the event's fields */
  return (value: unknown, what: string, at = ''): T['static'] => {
    if (compiled.Check(value)) return value
    const errors = [...compiled.Errors(value)].slice(0, 10).map((e) => ({ path: at + e.path || '/', message: e.message }))
    throw validationFailed(errors, `The ${what} is signed, but not in the shape this service expects; nothing was changed.`)
  }
}

/** An ISO 8601 timestamp from a provider, or a 422 naming the field. */
export function parseTime(value: string, path: string): Date {
  const ms = Date.parse(value)
  if (Number.isNaN(ms) || ms < 0 || ms > LAST_STORABLE_MS)
    throw validationFailed(
      [{ path, message: 'must be an ISO 8601 date-time from 1970 to 9999' }],
      'The event is signed, but one of its times is not a date; nothing was changed.',
    )
  return new Date(ms)
}
