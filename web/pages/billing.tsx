// Plans and payment: the tier table from the server, checkout through whichever provider the
// server has configured, the subscription's state, and the outcome a checkout returns with
// (/billing?status=success|cancelled|pending|error).
import { useEffect, useState } from 'preact/hooks'
import { getJson, sendJson, type Subscription, type Tier } from '../api'
import { day } from '../lib/time'
import { useLocation } from '../router'
import { refreshMe, siteConfig, useSession } from '../session'
import { ErrorNotice, Loading, Notice, Page, TIER_NAMES, useApi } from '../ui'

const RANK: Record<Tier['id'], number> = { free: 0, starter: 1, pro: 2, lifetime: 3 }

const STATUS_NOTICES: Record<string, { kind: 'success' | 'info' | 'warning' | 'error'; text: string }> = {
  success: {
    kind: 'success',
    text: 'Thank you! The payment went through. Your plan changes as soon as the payment provider confirms it, usually within seconds.',
  },
  cancelled: { kind: 'info', text: 'The checkout was cancelled; nothing was charged.' },
  pending: { kind: 'info', text: 'The payment provider is still holding the payment. Your plan changes when it completes; nothing else to do here.' },
  error: { kind: 'error', text: 'The payment could not be completed; nothing was charged. Please try again, or with the other payment method.' },
}

function features(tier: Tier): string[] {
  return [
    tier.prompts_per_day === null ? 'Unlimited prompts' : `${tier.prompts_per_day} prompts a day`,
    tier.optimizations_per_day === null ? 'Unlimited optimizations' : `${tier.optimizations_per_day} optimizations a day`,
    tier.api_access ? `API access, up to ${tier.max_tokens} access ${tier.max_tokens === 1 ? 'token' : 'tokens'}` : 'No API access',
    tier.skills_access ? 'Skills' : 'No skills',
  ]
}

function CheckoutButtons({ tier, card, wallet }: { tier: Tier['id']; card: boolean; wallet: boolean }) {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState<'card' | 'wallet' | null>(null)
  const pay = async (provider: 'card' | 'wallet') => {
    if (busy !== null) return
    setBusy(provider)
    setError(null)
    try {
      const url =
        provider === 'card'
          ? (await sendJson<{ checkout_url: string }>('POST', '/payments/checkout', { tier })).checkout_url
          : (await sendJson<{ approval_url: string }>('POST', '/payments/altpay/checkout', { tier })).approval_url
      // The provider's own page takes the payment, then sends the browser back to /billing?status=….
      location.assign(url)
    } catch (err) {
      setError(err)
      setBusy(null)
    }
  }
  const name = TIER_NAMES[tier]
  return (
    <div class="checkout">
      <div class="actions">
        {/* aria-disabled, not disabled, while it waits: a disabled button drops the keyboard's focus. */}
        {card && (
          <button type="button" class="primary" aria-disabled={busy !== null} onClick={() => pay('card')}>
            {busy === 'card' ? 'Opening the checkout…' : `Pay by card for ${name}`}
          </button>
        )}
        {wallet && (
          <button type="button" class="secondary" aria-disabled={busy !== null} onClick={() => pay('wallet')}>
            {busy === 'wallet' ? 'Opening PayPal…' : `Pay with PayPal for ${name}`}
          </button>
        )}
      </div>
      {error !== null && <ErrorNotice error={error} />}
    </div>
  )
}

function SubscriptionState() {
  const session = useSession()
  const sub = useApi(
    async (signal) => (session.token ? await getJson<Subscription>('/user/subscription', { signal }) : null),
    [session.token, session.me?.tier],
  )
  if (!session.token) return null
  return (
    <section aria-labelledby="subscription-heading" class="card">
      <h2 id="subscription-heading">Your subscription</h2>
      {sub.error ? (
        <ErrorNotice error={sub.error} retry={sub.reload} />
      ) : !sub.data ? (
        <Loading what="Loading your subscription" />
      ) : (
        <dl class="facts">
          <dt>Plan</dt>
          <dd>{TIER_NAMES[sub.data.tier] ?? sub.data.tier}</dd>
          <dt>Status</dt>
          <dd>{sub.data.status === 'none' ? 'no payment on record' : sub.data.status.replaceAll('_', ' ')}</dd>
          {sub.data.provider && (
            <>
              <dt>Paid with</dt>
              <dd>{sub.data.provider === 'card' ? 'card' : 'PayPal'}</dd>
            </>
          )}
          {sub.data.current_period_end && (
            <>
              <dt>{sub.data.cancel_at_period_end ? 'Ends on' : 'Renews on'}</dt>
              <dd>{day(sub.data.current_period_end)}</dd>
            </>
          )}
          {sub.data.tier === 'lifetime' && (
            <>
              <dt>Renews</dt>
              <dd>never: lifetime is paid once</dd>
            </>
          )}
        </dl>
      )}
    </section>
  )
}

export function BillingPage() {
  const session = useSession()
  const loc = useLocation()
  const status = loc.query.get('status')
  const notice = status && Object.hasOwn(STATUS_NOTICES, status) ? STATUS_NOTICES[status] : undefined
  const config = useApi(() => siteConfig(), [])
  // After a successful checkout the webhook may land a moment later: look again a few times.
  useEffect(() => {
    if (status !== 'success' || !session.token) return
    let tries = 0
    const timer = setInterval(() => {
      if (++tries > 5) clearInterval(timer)
      refreshMe().catch(() => {})
    }, 2000)
    return () => clearInterval(timer)
  }, [status, session.token])
  const current = session.me?.tier ?? null
  return (
    <Page title="Plans" lead="Every plan browses and searches the whole library. Paid plans lift the daily limits and add the API and skills.">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {config.error ? (
        <ErrorNotice error={config.error} retry={config.reload} />
      ) : !config.data ? (
        <Loading what="Loading the plans" />
      ) : (
        <>
          <ul class="grid plans">
            {config.data.tiers.map((tier) => {
              const { card, wallet, lifetime_price, currency } = config.data!.payments
              const above = current === null || RANK[tier.id] > RANK[current]
              const onSale = card.includes(tier.id) || wallet.includes(tier.id)
              return (
                <li key={tier.id} class={`card plan${current === tier.id ? ' current' : ''}`}>
                  <h2>{TIER_NAMES[tier.id]}</h2>
                  <p class="price">
                    {tier.id === 'free' ? 'Free' : tier.id === 'lifetime' ? `${lifetime_price} ${currency}, paid once` : 'Monthly subscription'}
                  </p>
                  <ul class="features">
                    {features(tier).map((f) => (
                      <li key={f}>{f}</li>
                    ))}
                  </ul>
                  {current === tier.id ? (
                    <p class="badge">Your plan</p>
                  ) : tier.id === 'free' ? null : !onSale ? (
                    <p class="muted">Not on sale on this server.</p>
                  ) : !session.token ? (
                    <p>
                      <a href="/register?next=/billing">Sign up</a> or <a href="/login?next=/billing">log in</a> to buy.
                    </p>
                  ) : above ? (
                    <CheckoutButtons tier={tier.id} card={card.includes(tier.id)} wallet={wallet.includes(tier.id)} />
                  ) : (
                    <p class="muted">Included in your plan.</p>
                  )}
                </li>
              )
            })}
          </ul>
          {config.data.payments.card.length === 0 && config.data.payments.wallet.length === 0 && (
            <p class="hint">
              This server takes no payments; its operator can change your plan with <code>promptlib user set-tier</code>.
            </p>
          )}
        </>
      )}
      <SubscriptionState />
    </Page>
  )
}
