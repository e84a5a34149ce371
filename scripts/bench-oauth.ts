// OAuth callback benchmark: what the server adds to a sign-in over the provider's own response
// times (target: ≤ 10 ms at the median). Real processes on loopback: the server (CPU 0) and the
// OAuth provider of the tests (test/support/oauth-provider-process.ts, CPU 1, with this client).
//
// Each round, alternating, in the same run:
//   callback  GET /api/auth/callback/provider-x on the server, timed until its 302: the code
//             exchange, the user info (and for provider-b the e-mail list) at the provider, the
//             account lookup or creation, the JWT;
//   provider  the same calls made straight to the provider by this client (Arctic's exchange
//             and the same GETs): the provider's own response times.
// The start and the consent before each are not timed. Scenarios: a returning user (identity
// found) and a new user every time (account and identity created), for both providers.
//
//   bun scripts/bench-oauth.ts [--quick] [--binary dist/promptlib] [--database-url postgres://…/empty_db]
import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from 'arctic'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { freePort, median, pinned, ROOT, type Started, startProcess, tempDir } from './bench/lib'

const { values: opts } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, binary: { type: 'string' }, 'database-url': { type: 'string' } },
})
const ROUNDS = opts.quick ? 100 : 400
const WARMUP = 30
const TARGET_MS = 10
const serverCommand = opts.binary ? [join(ROOT, opts.binary), 'serve'] : [process.execPath, join(ROOT, 'src/main.ts'), 'serve']

const started: Started[] = []
const stopAll = () => Promise.all(started.map((s) => s.stop()))
process.on('uncaughtException', (error) => {
  console.error(error)
  void stopAll().then(() => process.exit(1))
})
process.on('unhandledRejection', (error) => {
  console.error(error)
  void stopAll().then(() => process.exit(1))
})
async function provider(style: 'oidc' | 'github'): Promise<string> {
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  started.push(
    await startProcess(pinned(1, [process.execPath, join(ROOT, 'test/support/oauth-provider-process.ts'), style, String(port)]), {}, url, '/__ready'),
  )
  // The provider names itself http://localhost:PORT (its issuer URL); the endpoints are the same.
  return url
}
const oidc = await provider('oidc')
const github = await provider('github')

const serverPort = freePort()
const server = `http://127.0.0.1:${serverPort}`
const REDIRECT = { a: `${server}/api/auth/callback/provider-a`, b: `${server}/api/auth/callback/provider-b` }
started.push(
  await startProcess(
    pinned(0, serverCommand),
    {
      PORT: String(serverPort),
      HOST: '127.0.0.1',
      DATA_DIR: tempDir('promptlib-bench-oauth-'),
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
      LOG_LEVEL: 'warn',
      // The demo catalogue is not what this measures (and not yet loadable on PostgreSQL).
      DEMO_CATALOGUE: 'false',
      ...(opts['database-url'] ? { DATABASE_URL: opts['database-url'] } : {}),
      PUBLIC_URL: server,
      FRONTEND_URL: 'http://app.bench.test',
      OAUTH_A_CLIENT_ID: 'client-a',
      OAUTH_A_CLIENT_SECRET: 'secret-a',
      OAUTH_A_AUTHORIZE_URL: `${oidc}/authorize`,
      OAUTH_A_TOKEN_URL: `${oidc}/token`,
      OAUTH_A_USERINFO_URL: `${oidc}/userinfo`,
      OAUTH_B_CLIENT_ID: 'client-b',
      OAUTH_B_CLIENT_SECRET: 'secret-b',
      OAUTH_B_AUTHORIZE_URL: `${github}/authorize`,
      OAUTH_B_TOKEN_URL: `${github}/token`,
      OAUTH_B_USERINFO_URL: `${github}/user`,
      OAUTH_B_EMAILS_URL: `${github}/user/emails`,
    },
    server,
  ),
)

interface Scenario {
  label: string
  provider: 'provider-a' | 'provider-b'
  base: string
  /** the GETs the server makes after the exchange */
  reads: string[]
  client: OAuth2Client
  /** a new provider user each round, or the same one */
  fresh: boolean
}

let serial = 0
async function setUser(s: Scenario) {
  const n = s.fresh ? serial++ : 0
  const email = `${s.fresh ? 'new' : 'back'}-${s.provider}-${n}@bench.example.com`
  const user =
    s.provider === 'provider-a'
      ? { sub: `a-${s.fresh ? n : 'back'}`, email, email_verified: true, name: 'Bench User' }
      : { sub: String(s.fresh ? 1_000_000 + n : 42), name: 'Bench User', emails: [{ email, primary: true, verified: true }] }
  const r = await fetch(`${s.base}/__user`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) })
  if (r.status !== 204) throw new Error(`provider: ${r.status}`)
}

/** The consent step at the provider: the callback URL it sends the browser back to. */
async function consent(authorizeUrl: string): Promise<URL> {
  const r = await fetch(authorizeUrl, { redirect: 'manual' })
  if (r.status !== 302) throw new Error(`authorize: ${r.status}`)
  return new URL(r.headers.get('location')!)
}

/** One sign-in through the server; returns the callback's time. */
async function throughServer(s: Scenario): Promise<number> {
  await setUser(s)
  const start = await fetch(`${server}/api/auth/${s.provider}`, { redirect: 'manual' })
  const cookie = start.headers.get('set-cookie')!.split(';')[0]!
  const callback = await consent(start.headers.get('location')!)
  const t0 = performance.now()
  const res = await fetch(`${server}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie } })
  const elapsed = performance.now() - t0
  const location = res.headers.get('location') ?? ''
  if (res.status !== 302 || !location.includes('#access_token=')) throw new Error(`callback: ${res.status} ${location}`)
  return elapsed
}

/** The same provider calls, made directly; returns their time. */
async function direct(s: Scenario): Promise<number> {
  await setUser(s)
  const state = generateState()
  const verifier = generateCodeVerifier()
  const url = s.client.createAuthorizationURLWithPKCE(`${s.base}/authorize`, state, CodeChallengeMethod.S256, verifier, ['openid'])
  const code = (await consent(url.toString())).searchParams.get('code')!
  const t0 = performance.now()
  const tokens = await s.client.validateAuthorizationCode(`${s.base}/token`, code, verifier)
  for (const read of s.reads) {
    const r = await fetch(`${s.base}${read}`, {
      headers: { authorization: `Bearer ${tokens.accessToken()}`, accept: 'application/json', 'user-agent': 'promptlib' },
    })
    if (!r.ok) throw new Error(`${read}: ${r.status}`)
    await r.arrayBuffer()
  }
  return performance.now() - t0
}

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!
const ms = (n: number) => `${n.toFixed(2)} ms`

const scenarios: Scenario[] = [
  {
    label: 'provider-a (OIDC), returning user',
    provider: 'provider-a',
    base: oidc,
    reads: ['/userinfo'],
    client: new OAuth2Client('client-a', 'secret-a', REDIRECT.a),
    fresh: false,
  },
  {
    label: 'provider-a (OIDC), new user each time',
    provider: 'provider-a',
    base: oidc,
    reads: ['/userinfo'],
    client: new OAuth2Client('client-a', 'secret-a', REDIRECT.a),
    fresh: true,
  },
  {
    label: 'provider-b (GitHub-style), returning user',
    provider: 'provider-b',
    base: github,
    reads: ['/user', '/user/emails'],
    client: new OAuth2Client('client-b', 'secret-b', REDIRECT.b),
    fresh: false,
  },
  {
    label: 'provider-b (GitHub-style), new user each time',
    provider: 'provider-b',
    base: github,
    reads: ['/user', '/user/emails'],
    client: new OAuth2Client('client-b', 'secret-b', REDIRECT.b),
    fresh: true,
  },
]

let missed = 0
try {
  console.log(`OAuth callback vs the provider's own response times, ${ROUNDS} rounds each (alternating), after ${WARMUP} warm-up rounds`)
  for (const s of scenarios) {
    for (let i = 0; i < WARMUP; i++) {
      await throughServer(s)
      await direct(s)
    }
    const viaServer: number[] = []
    const own: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        viaServer.push(await throughServer(s))
        own.push(await direct(s))
      } else {
        own.push(await direct(s))
        viaServer.push(await throughServer(s))
      }
    }
    const added = median(viaServer) - median(own)
    const ok = added <= TARGET_MS
    if (!ok) missed++
    console.log(`\n${s.label}`)
    console.log(`  callback  p50 ${ms(median(viaServer))}  p90 ${ms(pct(viaServer, 90))}  p99 ${ms(pct(viaServer, 99))}`)
    console.log(`  provider  p50 ${ms(median(own))}  p90 ${ms(pct(own, 90))}  p99 ${ms(pct(own, 99))}`)
    console.log(`  added at p50: ${ms(added)} (target ≤ ${TARGET_MS} ms) ${ok ? 'ok' : 'MISSED'}`)
  }
} finally {
  await stopAll()
}
process.exit(missed === 0 ? 0 : 1)
