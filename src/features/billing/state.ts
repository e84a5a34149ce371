// The payment state machine as pure functions: how an event changes a subscription, which tier
// a user's subscriptions and purchases grant, and what GET /api/user/subscription shows. No I/O:
// the service reads the records, calls these, and writes what they return in one transaction.
//
// Out-of-order safety. Every event that sets a subscription's status carries an order key
// (`orderKey`): its own timestamp, then a rank (checkout < update < cancellation, for events of
// the same instant), then its id. A status event older than the last one applied changes no
// status field, so a deletion or cancellation is never undone by an older update. What an event
// knows regardless of time merges without regard to order: a tier fills a subscription that has
// none, and a wallet subscription's period end only moves forward (the latest end any event
// implies). A wallet cancellation that states its period end sets it exactly (contract section 8):
// kept apart (cancelPeriodEnd) and cleared by the next newer status event, so it is bound to the
// order key like the status. Together: any order of the same events ends in the same state.
import { type Tier, tierAtLeast } from '../../tiers'
import type { TierStep } from '../accounts'

export const PROVIDERS = ['card', 'wallet'] as const
export type Provider = (typeof PROVIDERS)[number]
export type PaidTier = 'starter' | 'pro'

/** Stripe's vocabulary, used for both providers (contract section 6). */
export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'] as const
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]

/** Statuses whose subscription grants its tier. */
const GRANTING = new Set<SubscriptionStatus>(['active', 'trialing', 'past_due'])

export interface SubscriptionRecord {
  id: string
  provider: Provider
  providerSubscriptionId: string
  userId: string
  /** null until an event names the plan (a wallet renewal may arrive before the activation) */
  tier: PaidTier | null
  status: SubscriptionStatus
  currentPeriodEnd: Date | null
  cancelAtPeriodEnd: boolean
  /** order key of the last status event applied; null when none was */
  version: string | null
  /**
   * Order keys of the latest suspension and of the latest activation (wallet provider), merged
   * whatever the order of arrival: whether the subscription was suspended when it was cancelled.
   */
  suspendedVersion: string | null
  resumedVersion: string | null
  /** the period end the latest status event states when it is a wallet cancellation; else null */
  cancelPeriodEnd: Date | null
  createdAt: Date
  updatedAt: Date
}

/** What one provider event says about one subscription. */
export interface SubscriptionChange {
  provider: Provider
  subscriptionId: string
  /** null for events that carry no status (a wallet renewal): they only merge */
  version: string | null
  status?: SubscriptionStatus
  tier?: PaidTier | null
  /** absolute (card provider: every update carries the whole subscription) */
  periodEnd?: Date | null
  cancelAtPeriodEnd?: boolean
  /** wallet provider: the period end is at least this (merged with max, whatever the order) */
  periodEndAtLeast?: Date | null
  /** wallet provider, a cancellation: the period end it states, which holds while it is the latest status event */
  cancelPeriodEnd?: Date | null
  /** wallet provider: the event suspends the subscription, or activates it (again) */
  suspension?: 'suspended' | 'resumed'
}

export const RANK = { start: 0, update: 1, end: 2 } as const

/** Sorts as the events happened: timestamp (ms, zero-padded), then rank, then event id. */
export function orderKey(atMs: number, rank: number, eventId: string): string {
  return `${String(Math.max(0, Math.trunc(atMs))).padStart(15, '0')}.${rank}.${eventId}`
}

export function newSubscription(id: string, userId: string, change: SubscriptionChange, now: Date): SubscriptionRecord {
  return {
    id,
    provider: change.provider,
    providerSubscriptionId: change.subscriptionId,
    userId,
    tier: null,
    status: 'incomplete',
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    version: null,
    suspendedVersion: null,
    resumedVersion: null,
    cancelPeriodEnd: null,
    createdAt: now,
    updatedAt: now,
  }
}

/** The subscription after the event; `stale` when it was an older status event (and changed nothing else). */
export function applyChange(
  current: SubscriptionRecord,
  change: SubscriptionChange,
  now: Date,
): { next: SubscriptionRecord; changed: boolean; stale: boolean } {
  const next = { ...current }
  const newer = change.version !== null && (current.version === null || change.version > current.version)
  if (newer) {
    next.version = change.version
    if (change.status !== undefined) next.status = change.status
    if (change.tier) next.tier = change.tier
    if (change.periodEnd !== undefined) next.currentPeriodEnd = change.periodEnd
    if (change.cancelAtPeriodEnd !== undefined) next.cancelAtPeriodEnd = change.cancelAtPeriodEnd
    if (change.status !== undefined) next.cancelPeriodEnd = change.cancelPeriodEnd ?? null
  } else if (next.tier === null && change.tier) {
    next.tier = change.tier
  }
  const atLeast = change.periodEndAtLeast
  if (atLeast && (next.currentPeriodEnd === null || atLeast.getTime() > next.currentPeriodEnd.getTime())) next.currentPeriodEnd = atLeast
  if (change.version !== null && change.suspension) {
    const key = change.suspension === 'suspended' ? 'suspendedVersion' : 'resumedVersion'
    if (next[key] === null || change.version > next[key]) next[key] = change.version
  }
  const changed =
    next.version !== current.version ||
    next.suspendedVersion !== current.suspendedVersion ||
    next.resumedVersion !== current.resumedVersion ||
    next.status !== current.status ||
    next.tier !== current.tier ||
    next.cancelAtPeriodEnd !== current.cancelAtPeriodEnd ||
    next.currentPeriodEnd?.getTime() !== current.currentPeriodEnd?.getTime() ||
    next.cancelPeriodEnd?.getTime() !== current.cancelPeriodEnd?.getTime()
  if (changed) next.updatedAt = now
  return { next, changed, stale: change.version !== null && !newer && !changed }
}

/** The subscription's period end: the one its cancellation states while that is its latest status event, else the latest any event implied. */
export const periodEndOf = (sub: SubscriptionRecord): Date | null => sub.cancelPeriodEnd ?? sub.currentPeriodEnd

/** Whether the subscription's latest suspension came after its latest activation: it had no access to keep. */
const wasSuspended = (sub: SubscriptionRecord) =>
  sub.suspendedVersion !== null && (sub.resumedVersion === null || sub.resumedVersion < sub.suspendedVersion)

/**
 * Whether the subscription grants its tier at time `t` (ms). Active, trialing and past-due ones
 * do (the card provider ends them with a deletion); a cancelled wallet subscription keeps its
 * tier until its period end (contract section 8), unless it was suspended when cancelled (SPEC's
 * row is for an active subscription: a suspended one had no access to keep).
 */
/** Whether the provider may charge for it again: not ended, and not set to end with its period. */
export function renews(sub: SubscriptionRecord): boolean {
  return sub.status !== 'canceled' && sub.status !== 'incomplete_expired' && !sub.cancelAtPeriodEnd
}

export function grantsAt(sub: SubscriptionRecord, t: number): boolean {
  return sub.tier !== null && runsAt(sub, t)
}

/** Whether the subscription gives its features at `t`, whatever its tier (which an event may not have told yet). */
export function runsAt(sub: SubscriptionRecord, t: number): boolean {
  if (GRANTING.has(sub.status)) return true
  const end = periodEndOf(sub)
  return sub.provider === 'wallet' && sub.status === 'canceled' && end !== null && end.getTime() > t && !wasSuspended(sub)
}

function highestAt(subs: SubscriptionRecord[], t: number): Tier {
  let tier: Tier = 'free'
  for (const sub of subs) if (grantsAt(sub, t) && tierAtLeast(sub.tier!, tier)) tier = sub.tier!
  return tier
}

/**
 * The tier a user holds, and the change already known to follow (a cancelled wallet
 * subscription's period end). Lifetime beats everything and is never lowered, whoever granted
 * it (a purchase, or `promptlib user set-tier`); otherwise the highest tier any subscription
 * grants now; otherwise free.
 */
export function planTier(
  input: { lifetime: boolean; currentTier: Tier; subscriptions: SubscriptionRecord[] },
  now: number,
): { tier: Tier; next: TierStep | null } {
  if (input.lifetime || input.currentTier === 'lifetime') return { tier: 'lifetime', next: null }
  const tier = highestAt(input.subscriptions, now)
  const ends = [
    ...new Set(input.subscriptions.filter((s) => grantsAt(s, now) && !GRANTING.has(s.status)).map((s) => periodEndOf(s)!.getTime())),
  ].sort((a, b) => a - b)
  for (const end of ends) {
    const after = highestAt(input.subscriptions, end)
    if (after !== tier) return { tier, next: { at: new Date(end), tier: after } }
  }
  return { tier, next: null }
}

export interface SubscriptionView {
  tier: Tier
  status: SubscriptionStatus | 'none'
  provider: Provider | null
  current_period_end: string | null
  cancel_at_period_end: boolean
}

/** The subscription whose last status event happened later first (then by id): the order of the events, not of their arrival. */
function byLatestEvent(a: SubscriptionRecord, b: SubscriptionRecord): number {
  const x = a.version ?? ''
  const y = b.version ?? ''
  if (x !== y) return x > y ? -1 : 1
  const ka = `${a.provider} ${a.providerSubscriptionId}`
  const kb = `${b.provider} ${b.providerSubscriptionId}`
  return ka < kb ? -1 : ka > kb ? 1 : 0
}

/**
 * GET /api/user/subscription. Lifetime: active, no period end. Otherwise the subscription that
 * grants the tier (the highest, then the one that runs longest), else the one changed last by its
 * events (a cancelled subscription), else `none`. Ties go by the events too, never by when a row
 * was written: the same events in any order of arrival show the same subscription (scripts/storm.ts).
 */
export function subscriptionView(tier: Tier, lifetimeProvider: Provider | null, subs: SubscriptionRecord[], now: number): SubscriptionView {
  if (tier === 'lifetime') return { tier, status: 'active', provider: lifetimeProvider, current_period_end: null, cancel_at_period_end: false }
  const end = (s: SubscriptionRecord) => periodEndOf(s)?.getTime() ?? Number.MAX_SAFE_INTEGER
  const granting = subs
    .filter((s) => grantsAt(s, now))
    .sort((a, b) => (a.tier !== b.tier ? (tierAtLeast(a.tier!, b.tier!) ? -1 : 1) : end(b) - end(a) || byLatestEvent(a, b)))
  const pick = granting[0] ?? [...subs].sort(byLatestEvent)[0]
  if (!pick) return { tier, status: 'none', provider: null, current_period_end: null, cancel_at_period_end: false }
  return {
    tier,
    status: pick.status,
    provider: pick.provider,
    current_period_end: periodEndOf(pick)?.toISOString() ?? null,
    cancel_at_period_end: pick.cancelAtPeriodEnd,
  }
}

// --- money -------------------------------------------------------------------------------------

/** Decimal strings compared exactly ("199.00" = "199" = "199.0"; never through floating point). */
export function sameAmount(a: string, b: string): boolean {
  const norm = (s: string) => {
    const m = /^(\d+)(?:\.(\d+))?$/.exec(s.trim())
    if (!m) return null
    const whole = m[1]!.replace(/^0+(?=\d)/, '')
    const fraction = (m[2] ?? '').replace(/0+$/, '')
    return fraction ? `${whole}.${fraction}` : whole
  }
  const x = norm(a)
  return x !== null && x === norm(b)
}

/** Stripe's currencies without minor units, and with three decimals; every other one has two. */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'])
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND'])

/** An amount in minor units (Stripe's integers) as a decimal string in major units, exactly. */
export function minorToDecimal(minor: number, currency: string): string {
  const code = currency.toUpperCase()
  const digits = ZERO_DECIMAL.has(code) ? 0 : THREE_DECIMAL.has(code) ? 3 : 2
  const negative = minor < 0
  const text = String(Math.abs(Math.trunc(minor))).padStart(digits + 1, '0')
  const out = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`
  return negative ? `-${out}` : out
}

/** One billing cycle later (wallet renewals; the plans are monthly): the same day next month, clamped. */
export function addOneMonth(date: Date): Date {
  const d = new Date(date.getTime())
  const day = d.getUTCDate()
  d.setUTCDate(1)
  d.setUTCMonth(d.getUTCMonth() + 1)
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
  d.setUTCDate(Math.min(day, lastDay))
  return d
}
