// Billing: checkouts at both providers, the return from a wallet approval, webhook deliveries,
// the subscription view and the expiry sweep. Every effect of an event commits in one transaction
// with the event's record, the tier it grants (accounts.setTier) and the e-mail it queues
// (mail.enqueue): all or nothing, once per event id, whichever instance it reaches.
import { createId } from '../../lib/ids'
import type { Tx } from '../../db/storage'
import type { AuthUser } from '../../http/auth'
import { parseJsonText } from '../../http/body'
import { ProblemError } from '../../http/problem'
import type { Logger } from '../../log'
import { type Tier, tierAtLeast } from '../../tiers'
import type { AccountsService } from '../accounts'
import type { MailService } from '../mail'
import type { Effect, ParsedEvent, PaymentFacts } from './effects'
import { captureEffect, parsePaypalEvent, type WalletSettings } from './providers/paypal-events'
import { notConfigured, providerFailed } from './providers/errors'
import type { PaypalSignature, WalletProvider } from './providers/paypal'
import type { CardProvider } from './providers/stripe'
import { type CardPrices, parseStripeEvent, signatureTime } from './providers/stripe-events'
import { applyChange, newSubscription, periodEndOf, planTier, type Provider, renews, runsAt, type SubscriptionView, subscriptionView } from './state'
import type { BillingStore } from './store'

export type CheckoutTier = 'starter' | 'pro' | 'lifetime'

/** What a delivery did: `applied` changed state; the others changed nothing but the event's record. */
export type Outcome =
  | 'applied'
  | 'duplicate'
  | 'stale'
  | 'ignored'
  | 'unknown_user'
  | 'recorded'
  | 'duplicate_payment'
  | 'amount_mismatch'
  | 'unchanged'

export interface BillingDeps {
  store: BillingStore
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>
  accounts: Pick<AccountsService, 'setTier' | 'userById' | 'dueTierChanges'>
  mail: Pick<MailService, 'enqueue' | 'wake'>
  card: CardProvider | null
  wallet: WalletProvider | null
  settings: { publicUrl: string; frontendUrl: string; cardPrices: CardPrices } & WalletSettings
  log: Logger
}

const SWEEP_BATCH = 500
/** Webhook deliveries are remembered this long: far beyond the providers' retries (3 and 10 days). */
const KEEP_EVENTS_MS = 90 * 24 * 60 * 60 * 1000

const alreadySubscribed = (tier: Tier) =>
  new ProblemError(409, 'already_subscribed', `Your tier (${tier}) already includes what this checkout sells.`, { tier })
const invalidSignature = () => new ProblemError(400, 'invalid_signature', 'The webhook signature is missing or does not match this body.')

const money = (amount: string, currency: string) => `${amount} ${currency}`

export function createBillingService({ store, transaction, accounts, mail, card, wallet, settings, log }: BillingDeps) {
  const billingUrl = (status: string) => `${settings.frontendUrl}/billing?status=${status}`

  /** Recomputes the user's tier from what they bought and writes it (with the change that follows). */
  async function syncTier(userId: string, currentTier: Tier, tx: Tx): Promise<void> {
    const subscriptions = await store.subscriptionsOf(userId, tx)
    const lifetime = (await store.lifetimeProvider(userId, tx)) !== null
    const plan = planTier({ lifetime, currentTier, subscriptions }, Date.now())
    await accounts.setTier(userId, plan.tier, tx, plan.next)
  }

  async function recordPayment(userId: string, provider: Provider, payment: PaymentFacts, grantsLifetime: boolean, tx: Tx): Promise<boolean> {
    return store.insertPayment(
      {
        id: createId(),
        provider,
        providerPaymentId: payment.id,
        userId,
        kind: payment.kind,
        subscriptionId: payment.subscriptionId,
        amount: payment.amount,
        currency: payment.currency,
        grantsLifetime,
        paidAt: payment.paidAt,
        createdAt: new Date(),
      },
      tx,
    )
  }

  type User = NonNullable<Awaited<ReturnType<typeof accounts.userById>>>

  /**
   * Remembers the user's customer from a paid checkout. A customer already linked to another user
   * keeps that link (a customer is one user's); the payment is the event's user's all the same.
   */
  async function linkCustomer(userId: string, provider: Provider, customerId: string, tx: Tx): Promise<void> {
    if ((await store.linkCustomer(userId, provider, customerId, tx)) === null)
      log.warn('payment names a customer linked to another user; that link stands', { provider, customer_id: customerId, user_id: userId })
  }

  const queueMail = (user: User, dedupeKey: string, subject: string, text: string, tx: Tx) =>
    mail.enqueue({ dedupeKey, userId: user.id, to: user.email, subject, text }, tx)

  /** The effect of one event, inside the caller's transaction. */
  async function applyEffect(effect: Effect, tx: Tx): Promise<{ outcome: Outcome; mailed: boolean; unsoldPlan?: string }> {
    if (effect.kind === 'ignore') return { outcome: 'ignored', mailed: false, unsoldPlan: effect.unsoldPlan }

    if (effect.kind === 'payment') {
      // As for a subscription event: any order of arrival finds the same user.
      const subscriptionId = effect.payment.subscriptionId
      const known = subscriptionId ? await store.subscription(effect.provider, subscriptionId, tx) : null
      const userId = known?.userId ?? effect.userId ?? (await store.userOfCustomer(effect.provider, effect.customerId, tx))
      if (!userId) return { outcome: 'unknown_user', mailed: false }
      await store.lockUser(userId, tx)
      // Only the event's own word needs checking: a stored subscription's or customer's user exists (cascade).
      if (!known && userId === effect.userId && (await accounts.userById(userId, tx)) === null) return { outcome: 'unknown_user', mailed: false }
      const fresh = await recordPayment(userId, effect.provider, effect.payment, false, tx)
      return { outcome: fresh ? 'recorded' : 'duplicate_payment', mailed: false }
    }

    if (effect.kind === 'lifetime') {
      const { userId, provider, payment } = effect
      await store.lockUser(userId, tx)
      const user = await accounts.userById(userId, tx)
      if (user === null) return { outcome: 'unknown_user', mailed: false }
      if (effect.customerId) await linkCustomer(userId, provider, effect.customerId, tx)
      // A capture and its webhook are one payment: whichever comes second finds it recorded.
      if (!(await recordPayment(userId, provider, payment, effect.grants, tx))) return { outcome: 'duplicate_payment', mailed: false }
      if (!effect.grants) {
        log.warn('lifetime payment does not match the lifetime price; recorded, not granted', {
          provider,
          payment_id: payment.id,
          user_id: userId,
          paid: money(payment.amount, payment.currency),
          price: money(settings.lifetimePrice, settings.currency),
        })
        return { outcome: 'amount_mismatch', mailed: false }
      }
      await syncTier(userId, user.tier, tx)
      const mailed = await queueMail(
        user,
        `lifetime:${provider}:${payment.id}`,
        'Your promptlib lifetime access',
        `Hello ${user.name},\n\nthank you for your purchase: your promptlib account now has lifetime access.\n\nPaid: ${money(payment.amount, payment.currency)}\nPayment reference: ${payment.id}\n`,
        tx,
      )
      return { outcome: 'applied', mailed }
    }

    // A subscription event. The user comes from the stored subscription, else the event, else the provider's customer.
    const { change } = effect
    const known = await store.subscription(change.provider, change.subscriptionId, tx)
    // A subscription never stored, on a plan this server does not sell, was never promptlib's.
    if (known === null && effect.unsoldPlan !== null) return { outcome: 'ignored', mailed: false, unsoldPlan: effect.unsoldPlan }
    const userId = known?.userId ?? effect.userId ?? (effect.customerId ? await store.userOfCustomer(change.provider, effect.customerId, tx) : null)
    if (userId === null) return { outcome: 'unknown_user', mailed: false }
    await store.lockUser(userId, tx)
    const user = await accounts.userById(userId, tx)
    if (user === null) return { outcome: 'unknown_user', mailed: false }
    if (effect.linkCustomer && effect.customerId) await linkCustomer(userId, change.provider, effect.customerId, tx)
    // Read again under the user's lock: another instance may have changed it meanwhile.
    const now = new Date()
    const current = (await store.subscription(change.provider, change.subscriptionId, tx)) ?? newSubscription(createId(), userId, change, now)
    const { next, changed, stale } = applyChange(current, change, now)
    const freshPayment = effect.payment ? await recordPayment(userId, change.provider, effect.payment, false, tx) : false
    if (!changed) return { outcome: stale ? 'stale' : freshPayment ? 'recorded' : 'unchanged', mailed: false }
    await store.saveSubscription(next, tx)
    await syncTier(userId, user.tier, tx)
    let mailed = false
    if (effect.notify && next.status === 'canceled' && next.version === change.version) {
      const end = periodEndOf(next)
      // About this subscription only: what else the account holds (lifetime access, another
      // subscription) may still be on its way in other events, and the notice must read the same
      // whatever order they arrive in (scripts/storm.ts compares it with a serial replay).
      // Its tier is named as this event names it, and its end read whatever the tier (a cancellation
      // may come before the activation that tells the tier).
      mailed = await queueMail(
        user,
        `cancelled:${change.provider}:${change.subscriptionId}`,
        'Your promptlib subscription is cancelled',
        `Hello ${user.name},\n\nyour promptlib ${change.tier ? `${change.tier} ` : ''}subscription has been cancelled.\n` +
          (end && runsAt(next, Date.now())
            ? `You keep its features until ${end.toISOString().slice(0, 10)} (the end of the period you paid for).\n`
            : 'Its features have ended.\n') +
          'Anything else on your account (lifetime access, another subscription) is not affected.\n',
        tx,
      )
    }
    return { outcome: 'applied', mailed }
  }

  /** Records the delivery and applies its effect in one transaction; a repeat changes nothing. */
  async function applyEvent(provider: Provider, event: ParsedEvent): Promise<Outcome> {
    const result = await transaction(async (tx) => {
      const fresh = await store.recordEvent(
        { provider, eventId: event.id, type: event.type, outcome: event.effect.kind === 'ignore' ? 'ignored' : 'processing', receivedAt: new Date() },
        tx,
      )
      if (!fresh) return { outcome: 'duplicate' as const, mailed: false }
      const applied = await applyEffect(event.effect, tx)
      if (event.effect.kind !== 'ignore') await store.setEventOutcome(provider, event.id, applied.outcome, tx)
      return applied
    })
    if (result.mailed) mail.wake()
    if (result.outcome === 'unknown_user')
      log.warn('payment event for no known user; recorded, ignored', { provider, event_id: event.id, type: event.type })
    // Contract section 8: an unknown plan is recorded and logged (a mistyped plan or price id would leave payers without their tier).
    if (result.unsoldPlan !== undefined)
      log.warn('payment event for a plan or price this server does not sell; recorded, ignored', {
        provider,
        event_id: event.id,
        type: event.type,
        plan: result.unsoldPlan,
      })
    else if (event.effect.kind === 'ignore')
      log.debug('payment event ignored', { provider, event_id: event.id, type: event.type, reason: event.effect.reason })
    return result.outcome
  }

  return {
    /**
     * Before an account is deleted: its subscriptions that would charge again are ended at their
     * providers, or the deletion is refused (502: nothing deleted, the user may retry), so no one
     * pays on for an account that is gone. A provider this server is no longer configured for
     * cannot be asked: said in the log, and the deletion goes on.
     */
    async cancelSubscriptionsOf(userId: string): Promise<void> {
      for (const sub of await store.subscriptionsOf(userId)) {
        if (!renews(sub)) continue
        const provider = sub.provider === 'card' ? card : wallet
        if (!provider) {
          log.warn('account deleted with a subscription at a provider this server is not configured for; cancel it there', {
            provider: sub.provider,
            subscription_id: sub.providerSubscriptionId,
          })
          continue
        }
        await provider.cancelSubscription(sub.providerSubscriptionId)
        log.info('subscription cancelled at the provider: its account is being deleted', {
          provider: sub.provider,
          subscription_id: sub.providerSubscriptionId,
        })
      }
    },

    async checkoutCard(user: AuthUser, tier: CheckoutTier): Promise<{ checkout_url: string; session_id: string }> {
      if (!card) throw notConfigured('Card payments are not configured on this server.')
      const priceId = settings.cardPrices[tier]
      if (!priceId) throw notConfigured(`The ${tier} tier is not on sale by card on this server.`)
      if (tierAtLeast(user.tier, tier)) throw alreadySubscribed(user.tier)
      let customerId = await store.customerOf(user.id, 'card')
      if (customerId === null) {
        const created = await card.createCustomer(user)
        customerId = await store.linkCustomer(user.id, 'card', created)
        // The provider answered a customer this service knows as another user's: never check out on it.
        if (customerId === null) {
          log.warn('card provider answered a customer linked to another user', { customer_id: created, user_id: user.id })
          throw providerFailed('card')
        }
      }
      const session = await card.createCheckout({
        userId: user.id,
        tier,
        priceId,
        customerId,
        successUrl: `${billingUrl('success')}&session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: billingUrl('cancelled'),
      })
      return { checkout_url: session.url, session_id: session.id }
    },

    async checkoutWallet(user: AuthUser, tier: CheckoutTier): Promise<{ approval_url: string; id: string }> {
      if (!wallet) throw notConfigured('Wallet payments are not configured on this server.')
      const planId = tier === 'lifetime' ? null : settings.plans[tier]
      if (tier !== 'lifetime' && !planId) throw notConfigured(`The ${tier} tier is not on sale by wallet on this server.`)
      if (tierAtLeast(user.tier, tier)) throw alreadySubscribed(user.tier)
      const created =
        tier === 'lifetime'
          ? await wallet.createOrder({
              userId: user.id,
              amount: settings.lifetimePrice,
              currency: settings.currency,
              returnUrl: `${settings.publicUrl}/api/payments/altpay/return`,
              cancelUrl: billingUrl('cancelled'),
            })
          : await wallet.createSubscription({
              userId: user.id,
              planId: planId!,
              returnUrl: billingUrl('success'),
              cancelUrl: billingUrl('cancelled'),
            })
      return { approval_url: created.approvalUrl, id: created.id }
    },

    /** PayPal's return URL: captures the approved order and answers where to send the browser. */
    async walletReturn(orderId: string | undefined): Promise<string> {
      if (!wallet || !orderId) return billingUrl('error')
      try {
        const capture = await wallet.captureOrder(orderId)
        if (!capture) return billingUrl('error')
        if (capture.status === 'PENDING') return billingUrl('pending')
        if (capture.status !== 'COMPLETED') return billingUrl('error')
        const effect = captureEffect(capture, settings)
        const result = await transaction((tx) => applyEffect(effect, tx))
        if (result.mailed) mail.wake()
        return billingUrl(result.outcome === 'applied' || result.outcome === 'duplicate_payment' ? 'success' : 'error')
      } catch (error) {
        log.warn('wallet return: capture failed', { order_id: orderId, error: error instanceof Error ? error.message : String(error) })
        return billingUrl('error')
      }
    },

    async cardWebhook(rawBody: string, signature: string | null): Promise<Outcome> {
      if (!card) throw notConfigured('Card payments are not configured on this server.')
      if (!signature || !(await card.verify(rawBody, signature))) throw invalidSignature()
      return applyEvent('card', parseStripeEvent(parseJsonText(rawBody), settings, signatureTime(signature)))
    },

    async walletWebhook(rawBody: string, signature: PaypalSignature): Promise<Outcome> {
      if (!wallet?.canVerify) throw notConfigured('Wallet webhooks are not configured on this server (PAYPAL_WEBHOOK_ID).')
      if (!(await wallet.verify(rawBody, signature))) throw invalidSignature()
      return applyEvent('wallet', parsePaypalEvent(parseJsonText(rawBody), settings))
    },

    async subscription(user: AuthUser): Promise<SubscriptionView> {
      const [subs, lifetimeProvider] = await Promise.all([store.subscriptionsOf(user.id), store.lifetimeProvider(user.id)])
      return subscriptionView(user.tier, lifetimeProvider, subs, Date.now())
    },

    /** Persists the tiers whose scheduled change is due (the lazy read already shows them). */
    async sweepExpiredTiers(): Promise<number> {
      let done = 0
      // Bounded: each user written is due no more (its next change, if any, lies ahead).
      for (let round = 0; round < 20; round++) {
        const due = await accounts.dueTierChanges(new Date(), SWEEP_BATCH)
        for (const userId of due) {
          await transaction(async (tx) => {
            await store.lockUser(userId, tx)
            const user = await accounts.userById(userId, tx)
            if (user !== null) await syncTier(userId, user.tier, tx)
          })
        }
        done += due.length
        if (due.length < SWEEP_BATCH) break
      }
      return done
    },

    pruneEvents: (now = Date.now()) => store.pruneEvents(new Date(now - KEEP_EVENTS_MS)),

    payments: (userId: string) => store.paymentsOf(userId),
  }
}

export type BillingService = ReturnType<typeof createBillingService>
