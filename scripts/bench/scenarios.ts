// The benchmarked requests. Each feature adds its own; `target` is the ratio an issue asks for.
export interface BenchContext {
  url: string
  /** runs a promptlib CLI command against the benchmark's data directory */
  cli: (args: string[]) => string
  tokens: Record<string, string>
}

export interface Scenario {
  name: string
  path: string
  headers?: (ctx: BenchContext) => Record<string, string>
  setup?: (ctx: BenchContext) => Promise<void>
  /** ratio of this scenario's server req/s to the baseline's (or to another scenario's server req/s) */
  target?: { ratio: number; against?: string }
}

async function registerBenchUser(ctx: BenchContext): Promise<void> {
  if (ctx.tokens.jwt) return
  const r = await fetch(`${ctx.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password-1234', name: 'Bench' }),
  })
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${await r.text()}`)
  ctx.tokens.jwt = ((await r.json()) as { access_token: string }).access_token
}

export const SCENARIOS: Scenario[] = [
  { name: 'health', path: '/api/health', target: { ratio: 0.8 } },
  // The demo catalogue is loaded on the benchmark server's first start.
  { name: 'categories', path: '/api/categories', target: { ratio: 0.6 } },
  {
    name: 'me-jwt',
    path: '/api/user/me',
    setup: registerBenchUser,
    headers: (ctx) => ({ authorization: `Bearer ${ctx.tokens.jwt}` }),
    target: { ratio: 0.5 },
  },
  {
    name: 'me-pat',
    path: '/api/user/me',
    async setup(ctx) {
      await registerBenchUser(ctx)
      ctx.cli(['user', 'set-tier', 'bench@example.com', 'pro'])
      const r = await fetch(`${ctx.url}/api/user/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.tokens.jwt}` },
        body: JSON.stringify({ name: 'bench' }),
      })
      if (r.status !== 201) throw new Error(`token creation failed: ${r.status} ${await r.text()}`)
      ctx.tokens.pat = ((await r.json()) as { token: string }).token
    },
    headers: (ctx) => ({ authorization: `Bearer ${ctx.tokens.pat}` }),
    target: { ratio: 0.9, against: 'me-jwt' },
  },
]
