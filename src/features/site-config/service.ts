import type { Config } from '../../config'
import { TIER_LIMITS, TIERS } from '../../tiers'
import type { SiteConfig } from './model'

// The presets' names (features/oauth/providers.ts); a slot pointed elsewhere is called by its host.
const PRESET_NAMES = { 'provider-a': 'Google', 'provider-b': 'GitHub' } as const

type PaidTier = 'starter' | 'pro' | 'lifetime'

export function siteConfig(config: Pick<Config, 'oauth' | 'stripe' | 'paypal' | 'lifetimePrice' | 'currency'>): SiteConfig {
  const providers: SiteConfig['sign_in']['providers'] = []
  for (const [id, slot] of [
    ['provider-a', config.oauth.a],
    ['provider-b', config.oauth.b],
  ] as const) {
    if (slot) providers.push({ id, name: slot.authorizeUrl ? new URL(slot.authorizeUrl).hostname : PRESET_NAMES[id] })
  }
  // As billing decides: a card tier needs its price id; a wallet subscription its plan id (lifetime is an order at LIFETIME_PRICE).
  const card = config.stripe ? (['starter', 'pro', 'lifetime'] as const).filter((tier) => config.stripe!.prices[tier]) : []
  const wallet: PaidTier[] = config.paypal ? [...(['starter', 'pro'] as const).filter((tier) => config.paypal!.plans[tier]), 'lifetime'] : []
  return {
    sign_in: { providers },
    payments: { card, wallet, lifetime_price: config.lifetimePrice, currency: config.currency },
    tiers: TIERS.map((id) => ({ id, ...TIER_LIMITS[id] })),
  }
}
