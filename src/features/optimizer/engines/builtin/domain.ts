// Which field a prompt belongs to, and the expert persona that suits it.

export type Domain = 'code' | 'data' | 'math' | 'marketing' | 'research' | 'education' | 'business' | 'writing' | 'general'

const keywords = (list: string): ReadonlySet<string> => new Set(list.trim().split(/\s+/))

// Ordered by priority: on a tie the earlier domain wins.
const DOMAIN_KEYWORDS: readonly (readonly [Domain, ReadonlySet<string>])[] = [
  [
    'code',
    keywords(`
    algorithm api apis backend bash bug bugs bun cli code coding compile compiler css database debug deno
    docker endpoint error exception frontend function functions git github golang html java javascript
    kotlin kubernetes library npm php program programming python react refactor regex repo repository
    ruby rust script server software sql stacktrace swift typescript vue`),
  ],
  [
    'data',
    keywords(`
    analytics average chart charts correlation csv dashboard data dataset datasets excel kpi kpis median
    metric metrics pandas regression spreadsheet statistical statistics survey trend trends`),
  ],
  [
    'math',
    keywords(`
    algebra calculate calculus derivative equation equations geometry integral math mathematics maths
    percent percentage probability proof prove theorem`),
  ],
  [
    'marketing',
    keywords(`
    ad ads advert advertising brand branding campaign conversion copy copywriting cta headline headlines
    instagram landing launch linkedin marketing newsletter product promo promotion sales seo slogan tagline
    tweet`),
  ],
  [
    'research',
    keywords(`
    academic citation citations evidence hypothesis journal literature paper papers research sources
    studies study thesis`),
  ],
  [
    'education',
    keywords(`
    classroom course curriculum exam homework learn learners learning lesson lessons quiz student students
    teach teaching tutorial`),
  ],
  [
    'business',
    keywords(`
    budget business company competitor competitors hiring investors management meeting okr okrs pitch
    proposal revenue roadmap stakeholder stakeholders startup strategy`),
  ],
  [
    'writing',
    keywords(`
    article blog chapter character essay fiction haiku narrative novel paragraph plot poem proofread prose
    story`),
  ],
]

/**
 * Words that often mean something else ("discount code", "error in my invoice", "product"):
 * they count half, so one of them alone does not decide the domain.
 */
const AMBIGUOUS = keywords(`
  code error exception server library copy product sales launch brand data
  average paper study course learn budget company meeting story character paragraph percent proof`)

// One lookup per word instead of one per word and domain.
const DOMAINS_BY_WORD = new Map<string, Domain[]>()
for (const [domain, words] of DOMAIN_KEYWORDS) {
  for (const word of words) DOMAINS_BY_WORD.set(word, [...(DOMAINS_BY_WORD.get(word) ?? []), domain])
}

/** Keyword vote over the prompt's words; a code fence adds weight. */
export function detectDomain(words: readonly string[], hasCodeBlock: boolean): Domain {
  const scores = new Map<Domain, number>()
  const add = (domain: Domain, points: number) => scores.set(domain, (scores.get(domain) ?? 0) + points)
  for (const word of words) {
    for (const domain of DOMAINS_BY_WORD.get(word) ?? []) add(domain, AMBIGUOUS.has(word) ? 1 : 2)
  }
  if (hasCodeBlock) add('code', 6)

  let best: Domain = 'general'
  let bestScore = 1 // below two points (one ambiguous word) the prompt is general
  for (const [domain] of DOMAIN_KEYWORDS) {
    const score = scores.get(domain) ?? 0
    if (score > bestScore) {
      best = domain
      bestScore = score
    }
  }
  return best
}

const ROLES: Record<Domain, string> = {
  code: 'You are a senior software engineer who writes correct, idiomatic, well-tested code and explains trade-offs briefly.',
  data: 'You are a data analyst who works rigorously with data, states assumptions and shows how every figure was derived.',
  math: 'You are a careful mathematician who reasons step by step and checks every result.',
  marketing: 'You are an experienced copywriter and marketing strategist who writes clear, persuasive copy for a specific audience.',
  research: 'You are a meticulous research analyst who separates evidence from opinion and flags uncertainty.',
  education: "You are an experienced teacher who explains ideas step by step at the learner's level, with concrete examples.",
  business: 'You are a seasoned business consultant who gives practical, well-reasoned recommendations.',
  writing: 'You are a skilled writer and editor who produces clear, well-organised, engaging prose.',
  general: 'You are an expert assistant with broad knowledge who gives accurate, well-organised answers.',
}

/** The persona for a prompt that gives none. */
export function inferRole(domain: Domain): string {
  return ROLES[domain]
}
