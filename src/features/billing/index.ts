// Billing: checkouts at the card (Stripe) and wallet (PayPal) providers, their webhooks, the
// subscription state machine, payments. Tiers change only through accounts.setTier, e-mails go
// through mail's outbox, both in the transaction that records the event.
import type { Config } from '../../config'
import type { Job } from '../../db/jobs'
import type { Storage } from '../../db/storage'
import type { Logger } from '../../log'
import type { AccountsService } from '../accounts'
import type { MailService } from '../mail'
import { paypalProvider } from './providers/paypal'
import { deferredCardProvider } from './providers/deferred'
import { type BillingService, createBillingService } from './service'
import { sqliteBillingStore } from './store.sqlite'

export { Subscription as SubscriptionSchema } from './model'
export type { PaymentRecord } from './store'
export { billingRoutes } from './routes'
export type { BillingService } from './service'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

const MINUTE = 60_000

export function createBilling(deps: {
  storage: Storage
  config: Pick<Config, 'stripe' | 'paypal' | 'publicUrl' | 'frontendUrl' | 'lifetimePrice' | 'currency'>
  accounts: AccountsService
  mail: MailService
  log: Logger
}): BillingService & { jobs: Job[] } {
  const { storage, config, accounts, mail, log } = deps
  const stripe = config.stripe
  const store = storage.engine === 'sqlite' ? sqliteBillingStore(storage) : pgStore().pgBillingStore(storage)
  const billing = createBillingService({
    store,
    transaction: (fn) => storage.transaction(fn),
    accounts,
    mail,
    card: stripe ? deferredCardProvider(async () => (await import('./providers/stripe')).stripeProvider(stripe, log)) : null,
    wallet: config.paypal ? paypalProvider(config.paypal, log) : null,
    settings: {
      publicUrl: config.publicUrl,
      frontendUrl: config.frontendUrl,
      cardPrices: config.stripe?.prices ?? {},
      plans: config.paypal?.plans ?? {},
      lifetimePrice: config.lifetimePrice,
      currency: config.currency,
    },
    log,
  })
  const jobs: Job[] = [
    // After a wallet cancellation the tier holds until the period end: the read applies it at once, this writes it.
    { name: 'billing-expire-tiers', everyMs: MINUTE, run: () => billing.sweepExpiredTiers() },
    { name: 'prune-webhook-events', everyMs: 24 * 60 * MINUTE, run: () => billing.pruneEvents() },
  ]
  return Object.assign(billing, { jobs })
}
