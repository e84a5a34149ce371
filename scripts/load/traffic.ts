// Mixed traffic against a promptlib server (or a balancer in front of several): browse, search,
// prompt detail (metered for free users), favorites, /me with PATs, built-in optimizer streams.
// Every request's outcome is checked against what the contract allows, and the client keeps
// what the database must show afterwards (each free user's distinct prompts opened, each user's
// favorites, each user's completed optimizations), so a run ends with an exact-count check.
import type { Storage } from '../../src/db/storage'
import { GOOD_PASSWORD } from '../../test/support/app'
import { sqlNumber, sqlRows } from '../../test/support/sql'

export interface LoadUser {
  id: string
  email: string
  token: string
  tier: 'free' | 'pro'
  /** a PAT (pro users) */
  pat?: string
  openedPrompts: Set<string>
  favorites: Set<string>
  completedOptimizations: number
}

export interface KindStats {
  count: number
  latencies: number[]
  statuses: Map<number, number>
}

export interface LoadResult {
  seconds: number
  requests: number
  /** responses the contract does not allow for that request (5xx, unexpected 4xx, broken streams) */
  errors: { kind: string; status: number; detail: string }[]
  /** expected refusals: 429 daily_limit_reached / rate_limited */
  expected429: number
  kinds: Map<string, KindStats>
}

export const WORDS = ['email', 'code', 'review', 'marketing', 'summary', 'write', 'plan', 'data', 'story', 'product', 'teach', 'research']

async function post(base: string, path: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
}

/** Registers users (free and pro; pro ones get a PAT). `setTier` is how the caller makes them pro (the CLI or SQL). */
export async function makeUsers(base: string, count: number, setTier: (userId: string) => Promise<void>): Promise<LoadUser[]> {
  const users: LoadUser[] = []
  for (let i = 0; i < count; i++) {
    const email = `load-${Date.now().toString(36)}-${i}@example.com`
    const res = await post(base, '/api/auth/register', { email, password: GOOD_PASSWORD, name: `Load ${i}` })
    if (res.status !== 201) throw new Error(`register ${res.status}: ${await res.text()}`)
    const body = (await res.json()) as { access_token: string; user: { id: string } }
    const tier = i % 2 === 0 ? 'free' : 'pro'
    const user: LoadUser = {
      id: body.user.id,
      email,
      token: body.access_token,
      tier,
      openedPrompts: new Set(),
      favorites: new Set(),
      completedOptimizations: 0,
    }
    if (tier === 'pro') {
      await setTier(user.id)
      const pat = await post(base, '/api/user/tokens', { name: 'load' }, user.token)
      if (pat.status !== 201) throw new Error(`token ${pat.status}: ${await pat.text()}`)
      user.pat = ((await pat.json()) as { token: string }).token
    }
    users.push(user)
  }
  return users
}

export async function catalogueOf(base: string): Promise<{ categories: string[]; prompts: string[] }> {
  const tree = (await (await fetch(`${base}/api/categories`)).json()) as { items: { id: string }[] }
  const prompts: string[] = []
  for (const c of tree.items) {
    const page = (await (await fetch(`${base}/api/categories/${c.id}/prompts?limit=100`)).json()) as { items: { id: string }[] }
    prompts.push(...page.items.map((p) => p.id))
  }
  return { categories: tree.items.map((c) => c.id), prompts }
}

export const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!

/** What one request got: `ok` when the contract allows it; `expected429` marks a refusal the run expects (counted, not an error). */
export type Outcome = { status: number; ok: boolean; expected429?: boolean; detail?: string }
/** One kind of request, drawn with probability weight / sum of weights. */
export type Action = { kind: string; weight: number; run(base: string): Promise<Outcome> }

function actions(users: LoadUser[], catalogue: { categories: string[]; prompts: string[] }): Action[] {
  /** users whose favorites a request is changing right now */
  const busy = new Set<string>()
  const free = users.filter((u) => u.tier === 'free')
  const pro = users.filter((u) => u.tier === 'pro')
  const drain = async (res: Response) => {
    await res.arrayBuffer()
    return res.status
  }
  const codeOf = async (res: Response) => ((await res.json().catch(() => ({}))) as { code?: string }).code
  return [
    { kind: 'categories', weight: 15, run: async (b) => ({ status: await drain(await fetch(`${b}/api/categories`)), ok: true }) },
    {
      kind: 'list',
      weight: 10,
      run: async (b) => ({
        status: await drain(await fetch(`${b}/api/categories/${pick(catalogue.categories)}/prompts?limit=20&sort=popular`)),
        ok: true,
      }),
    },
    {
      kind: 'search',
      weight: 15,
      run: async (b) => ({ status: await drain(await fetch(`${b}/api/search?q=${pick(WORDS)}%20${pick(WORDS).slice(0, 4)}`)), ok: true }),
    },
    {
      kind: 'prompt-free',
      weight: 10,
      async run(b) {
        const user = pick(free)
        const id = pick(catalogue.prompts)
        const res = await fetch(`${b}/api/prompts/${id}`, { headers: { authorization: `Bearer ${user.token}` } })
        if (res.status === 200) user.openedPrompts.add(id)
        if (res.status === 429) return { status: 429, ok: (await codeOf(res)) === 'daily_limit_reached', expected429: true }
        return { status: await drain(res), ok: true }
      },
    },
    {
      kind: 'prompt-pat',
      weight: 10,
      run: async (b) => ({
        status: await drain(await fetch(`${b}/api/prompts/${pick(catalogue.prompts)}`, { headers: { authorization: `Bearer ${pick(pro).pat}` } })),
        ok: true,
      }),
    },
    {
      kind: 'me-pat',
      weight: 15,
      run: async (b) => ({
        status: await drain(await fetch(`${b}/api/user/me`, { headers: { authorization: `Bearer ${pick(pro).pat}` } })),
        ok: true,
      }),
    },
    {
      kind: 'favorite',
      weight: 10,
      async run(b) {
        // One user's favorites change from one request at a time, so the client's view is exact.
        const idle = pro.filter((u) => !busy.has(u.id))
        if (idle.length === 0) return { status: 200, ok: true }
        const user = pick(idle)
        busy.add(user.id)
        try {
          const id = pick(catalogue.prompts)
          if (user.favorites.has(id)) {
            const res = await fetch(`${b}/api/user/favorites/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${user.token}` } })
            if (res.status === 204) user.favorites.delete(id)
            return { status: await drain(res), ok: res.status === 204 }
          }
          const res = await post(b, '/api/user/favorites', { prompt_id: id }, user.token)
          if (res.status === 201 || res.status === 200) user.favorites.add(id)
          return { status: await drain(res), ok: res.status === 201 }
        } finally {
          busy.delete(user.id)
        }
      },
    },
    {
      kind: 'optimize',
      weight: 5,
      async run(b) {
        const user = pick(pro)
        const res = await post(
          b,
          '/api/optimizer/optimize',
          { prompt: `Write a short ${pick(WORDS)} brief for a new product launch.`, mode: pick(['enhance', 'structured']) },
          user.token,
        )
        if (res.status === 429) return { status: 429, ok: (await codeOf(res)) === 'rate_limited', expected429: true }
        if (res.status !== 200) return { status: await drain(res), ok: false }
        const text = await res.text()
        const done = text.includes('event: done')
        if (done) user.completedOptimizations++
        return { status: 200, ok: done, detail: done ? undefined : text.slice(-200) }
      },
    },
  ]
}
function weighted(list: Action[]): () => Action {
  const total = list.reduce((n, a) => n + a.weight, 0)
  return () => {
    let r = Math.random() * total
    for (const a of list) if ((r -= a.weight) < 0) return a
    return list[list.length - 1]!
  }
}

/** `connections` concurrent loops for `seconds`, spread over `bases` round robin (or one balancer URL); `extra`: more kinds of request. */
export async function runTraffic(
  bases: string[],
  users: LoadUser[],
  catalogue: { categories: string[]; prompts: string[] },
  {
    connections,
    seconds,
    extra = [],
    rate,
    only,
  }: { connections: number; seconds: number; extra?: Action[]; rate?: number /** just these kinds (profiling) */; only?: string[] },
): Promise<LoadResult> {
  // With `rate` (requests/s over all connections), each connection sends on a schedule of its
  // own (an open loop) and a latency counts from the scheduled start, so a server that falls
  // behind shows it in the figures instead of slowing the client down. Without it, each
  // connection sends its next request as soon as the last is answered (a closed loop).
  const interval = rate ? (connections * 1000) / rate : 0
  const next = weighted([...actions(users, catalogue), ...extra].filter((a) => !only || only.includes(a.kind)))
  const kinds = new Map<string, KindStats>()
  const errors: LoadResult['errors'] = []
  let requests = 0
  let expected429 = 0
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      let i = worker
      let scheduled = started + (interval * worker) / connections
      while (performance.now() < until) {
        if (interval) {
          const wait = scheduled - performance.now()
          if (wait > 0) await Bun.sleep(wait)
          if (scheduled >= until) break
        }
        const action = next()
        const base = bases[i++ % bases.length]!
        // a timer can wake a little early: then the request starts now
        const t0 = interval ? Math.min(scheduled, performance.now()) : performance.now()
        scheduled += interval
        let outcome: Outcome
        try {
          outcome = await action.run(base)
        } catch (error) {
          outcome = { status: 0, ok: false, detail: String(error) }
        }
        const ms = performance.now() - t0
        requests++
        let stats = kinds.get(action.kind)
        if (!stats) kinds.set(action.kind, (stats = { count: 0, latencies: [], statuses: new Map() }))
        stats.count++
        stats.latencies.push(ms)
        stats.statuses.set(outcome.status, (stats.statuses.get(outcome.status) ?? 0) + 1)
        if (outcome.expected429 && outcome.ok) expected429++
        else if (!outcome.ok || outcome.status >= 400 || outcome.status === 0) {
          errors.push({ kind: action.kind, status: outcome.status, detail: outcome.detail ?? '' })
        }
      }
    }),
  )
  return { seconds: (performance.now() - started) / 1000, requests, errors, expected429, kinds }
}

export const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export function printResult(result: LoadResult): void {
  console.log(
    `${result.requests} requests in ${result.seconds.toFixed(1)} s (${Math.round(result.requests / result.seconds)} req/s); ${result.expected429} expected 429s; ${result.errors.length} errors`,
  )
  console.log('kind           count     p50 ms   p99 ms   statuses')
  for (const [kind, s] of [...result.kinds].sort()) {
    const statuses = [...s.statuses].map(([k, v]) => `${k}×${v}`).join(' ')
    console.log(
      `${kind.padEnd(12)} ${String(s.count).padStart(7)} ${percentile(s.latencies, 50).toFixed(2).padStart(10)} ${percentile(s.latencies, 99).toFixed(2).padStart(8)}   ${statuses}`,
    )
  }
  for (const e of result.errors.slice(0, 10)) console.log(`  error: ${e.kind} ${e.status} ${e.detail}`)
}

/**
 * What the database must show after a run, against what the clients saw: each free user's
 * distinct prompts opened (the daily meter), each pro user's favorites and completed
 * optimizations, and every prompt's favorite_count equal to its favorites. Empty when all match.
 */
export async function exactCountMismatches(storage: Storage, users: LoadUser[]): Promise<string[]> {
  const mismatches: string[] = []
  for (const u of users) {
    if (u.tier === 'free') {
      const opened = await sqlNumber(storage, "SELECT coalesce(sum(count), 0) FROM daily_usage WHERE subject = $1 AND metric = 'prompts'", [
        `user:${u.id}`,
      ])
      if (opened !== u.openedPrompts.size) mismatches.push(`${u.email}: ${opened} prompts counted, ${u.openedPrompts.size} opened`)
    } else {
      const favorites = (await sqlRows<{ prompt_id: string }>(storage, 'SELECT prompt_id FROM favorites WHERE user_id = $1', [u.id])).map(
        (r) => r.prompt_id,
      )
      if (favorites.length !== u.favorites.size || favorites.some((id) => !u.favorites.has(id))) {
        mismatches.push(`${u.email}: ${favorites.length} favorites stored, ${u.favorites.size} expected`)
      }
      const completed = await sqlNumber(storage, "SELECT count(*) FROM optimization_history WHERE user_id = $1 AND status = 'completed'", [u.id])
      if (completed !== u.completedOptimizations)
        mismatches.push(`${u.email}: ${completed} optimizations completed, ${u.completedOptimizations} streamed`)
    }
  }
  const drift = await sqlNumber(
    storage,
    'SELECT count(*) FROM prompts p WHERE p.favorite_count <> (SELECT count(*) FROM favorites f WHERE f.prompt_id = p.id)',
  )
  if (drift > 0) mismatches.push(`${drift} prompts whose favorite_count differs from their favorites`)
  return mismatches
}
