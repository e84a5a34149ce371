// The tier table from SPEC "Limits". `null` means unlimited.
export const TIERS = ['free', 'starter', 'pro', 'lifetime'] as const
export type Tier = (typeof TIERS)[number]

export interface TierLimits {
  prompts_per_day: number | null
  optimizations_per_day: number | null
  api_access: boolean
  skills_access: boolean
  max_tokens: number
}

export const TIER_LIMITS: Record<Tier, TierLimits> = {
  free: { prompts_per_day: 10, optimizations_per_day: 3, api_access: false, skills_access: false, max_tokens: 0 },
  starter: { prompts_per_day: null, optimizations_per_day: 10, api_access: true, skills_access: false, max_tokens: 1 },
  pro: { prompts_per_day: null, optimizations_per_day: null, api_access: true, skills_access: true, max_tokens: 3 },
  lifetime: { prompts_per_day: null, optimizations_per_day: null, api_access: true, skills_access: true, max_tokens: 5 },
}

/** Tiers ordered by what they grant; lifetime includes everything pro has. */
const RANK: Record<Tier, number> = { free: 0, starter: 1, pro: 2, lifetime: 3 }

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value)
}

export function tierAtLeast(tier: Tier, minimum: Tier): boolean {
  return RANK[tier] >= RANK[minimum]
}
