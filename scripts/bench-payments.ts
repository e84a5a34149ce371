// Payments benchmark: the issue's two targets, against the real server and the fake Stripe API of
// the tests (test/support/fake-stripe.ts, a process of its own), all on loopback.
//   (a) signed card-provider webhook deliveries processed end to end, each a real state change
//       (a subscription update that moves the period end and flips the tier between starter and
//       pro, so the subscription row and the user's tier are written), 50 concurrent senders; in
//       the same run, alternating, a bare Bun.serve that reads each body and answers the server's
//       bytes (scripts/bench/baseline.ts). The server is pinned to CPU 0, the senders to CPU 1.
//   (b) checkout latency: POST /api/payments/checkout against the fake Stripe, beside the same
//       request sent straight to the fake (p50 of each, sequential, alternating rounds).
// Users are written straight into the database; their subscriptions are created through the
// server by one signed checkout.session.completed each.
//
//   bun scripts/bench-payments.ts [--quick] [--binary dist/promptlib] [--database-url postgres://…] [--check] [--profile DIR]
import { Database } from 'bun:sqlite'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import Stripe from 'stripe'
import { STRIPE_PRICES, STRIPE_TEST_KEY, STRIPE_WEBHOOK_SECRET, stripeEnv } from '../test/support/fake-stripe'
import { freePort, median, pinned, ROOT, type Started, startProcess, tempDir } from './bench/lib'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    binary: { type: 'string' },
    'database-url': { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    users: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '50' },
    'log-level': { type: 'string', default: 'info' },
    check: { type: 'boolean', default: false },
    /** write the server's CPU profile (markdown) into this folder when it stops */
    profile: { type: 'string' },
  },
})
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 1 : 3))
const SECONDS = Number(opts.seconds ?? (opts.quick ? 3 : 5))
const USERS = Number(opts.users)
const CONNECTIONS = Number(opts.connections)
const CHECKOUTS = opts.quick ? 100 : 300
const WEBHOOK_TARGET = 2000
const CHECKOUT_TARGET_MS = 5

const started: Started[] = []
const stopAll = async () => {
  for (const s of started.reverse()) await s.stop()
}
process.on('SIGINT', () => void stopAll().then(() => process.exit(130)))

// --- processes --------------------------------------------------------------------------------
const fakePort = freePort()
const fakeUrl = `http://127.0.0.1:${fakePort}`
started.push(await startProcess(pinned(1, [process.execPath, join(ROOT, 'test/support/fake-stripe.ts'), String(fakePort)]), {}, fakeUrl, '/'))

const dataDir = tempDir('promptlib-bench-pay-')
const port = freePort()
const serverUrl = `http://127.0.0.1:${port}`
const databaseUrl = opts['database-url']
const profileFlags = opts.profile ? ['--cpu-prof-md', `--cpu-prof-dir=${opts.profile}`] : []
const serverCommand = opts.binary ? [join(ROOT, opts.binary), 'serve'] : [process.execPath, ...profileFlags, join(ROOT, 'src/main.ts'), 'serve']
const serverEnv: Record<string, string> = {
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  AUTH_RATE_LIMIT: '0',
  LOG_LEVEL: opts['log-level']!,
  DEMO_CATALOGUE: 'false',
  ...stripeEnv(fakeUrl),
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
}
const server = await startProcess(pinned(0, serverCommand), serverEnv, serverUrl)
started.push(server)
console.log(
  `\npayments bench: server ${opts.binary ?? 'bun src/main.ts'} on ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, ${USERS} users, ${CONNECTIONS} senders, ${ROUNDS} round(s) x ${SECONDS}s`,
)

// --- users, written straight into the database --------------------------------------------------
const run = Date.now().toString(36)
const userIds = Array.from({ length: USERS }, (_, i) => `bench${run}u${i}`)
const now = Date.now()
if (databaseUrl) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  const rows = userIds.map((id) => ({
    id,
    email: `${id}@bench.example.com`,
    name: 'Bench',
    tier: 'free',
    created_at: new Date(now),
    updated_at: new Date(now),
  }))
  for (let i = 0; i < rows.length; i += 500) await sql`INSERT INTO users ${sql(rows.slice(i, i + 500))}`
  await sql.end()
} else {
  const db = new Database(join(dataDir, 'promptlib.db'))
  const insert = db.prepare("INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES (?, ?, 'Bench', 'free', ?, ?)")
  db.transaction(() => {
    for (const id of userIds) insert.run(id, `${id}@bench.example.com`, now, now)
  })()
  db.close()
}

// --- signed events ------------------------------------------------------------------------------
const stripe = new Stripe(STRIPE_TEST_KEY)
const sign = (payload: string) => stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: STRIPE_WEBHOOK_SECRET })
const base = Math.floor(now / 1000) - 86_400
const event = (id: string, type: string, created: number, object: Record<string, unknown>) =>
  JSON.stringify({ id, object: 'event', api_version: '2025-03-31.basil', created, type, livemode: false, data: { object } })
const subId = (i: number) => `sub_${run}_${i}`

// Setup: one checkout per user creates its subscription (starter).
const setup = await Promise.all(
  userIds.map(async (id, i) => {
    const body = event(`evt_${run}_setup_${i}`, 'checkout.session.completed', base, {
      id: `cs_${run}_${i}`,
      object: 'checkout.session',
      mode: 'subscription',
      customer: `cus_${run}_${i}`,
      subscription: subId(i),
      client_reference_id: id,
      metadata: { user_id: id, tier: 'starter' },
      payment_status: 'paid',
      amount_total: 900,
      currency: 'usd',
    })
    return { body, signature: await sign(body) }
  }),
)
for (let i = 0; i < setup.length; i += CONNECTIONS) {
  await Promise.all(
    setup.slice(i, i + CONNECTIONS).map(async (e) => {
      const res = await fetch(`${serverUrl}/api/payments/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
        body: e.body,
      })
      if (res.status !== 200) throw new Error(`setup delivery failed: ${res.status} ${await res.text()}`)
    }),
  )
}

// The load: subscription updates, each newer than the last for its subscription (one step a
// round-robin pass), moving the period end and flipping the tier. Enough for 6,000/s.
const perRound = SECONDS * 6000
const total = ROUNDS * perRound
const eventsFile = join(dataDir, 'events.jsonl')
const lines: string[] = []
const t0 = performance.now()
for (let k = 0; k < total; k++) {
  const i = k % USERS
  const step = Math.floor(k / USERS) + 1
  const body = event(`evt_${run}_${k}`, 'customer.subscription.updated', base + step, {
    id: subId(i),
    object: 'subscription',
    customer: `cus_${run}_${i}`,
    status: 'active',
    cancel_at_period_end: false,
    items: {
      object: 'list',
      data: [
        { id: `si_${i}`, price: { id: step % 2 ? STRIPE_PRICES.pro : STRIPE_PRICES.starter }, current_period_end: base + 30 * 86_400 + step * 60 },
      ],
    },
    metadata: { user_id: userIds[i], tier: 'starter' },
  })
  lines.push(JSON.stringify({ body, signature: await sign(body) }))
}
writeFileSync(eventsFile, lines.join('\n'))
console.log(`signed ${total.toLocaleString('en-US')} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

// --- the baseline answers the server's own bytes ------------------------------------------------
const sample = JSON.parse(lines[0]!) as { body: string; signature: string }
const probe = await fetch(`${serverUrl}/api/payments/webhook`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'stripe-signature': sample.signature },
  body: sample.body,
})
const probeBody = await probe.text()
if (probe.status !== 200 || !probeBody.includes('"applied"')) throw new Error(`probe: ${probe.status} ${probeBody}`)
const recordings = {
  'POST /api/payments/webhook': {
    status: 200,
    headers: [...probe.headers].filter(([k]) => k !== 'date' && k !== 'content-length'),
    body: probeBody,
  },
}
const recordingsFile = join(dataDir, 'recordings.json')
writeFileSync(recordingsFile, JSON.stringify(recordings))
const baselinePort = freePort()
started.push(
  await startProcess(
    pinned(0, [process.execPath, join(ROOT, 'scripts/bench/baseline.ts'), String(baselinePort), recordingsFile]),
    {},
    `http://127.0.0.1:${baselinePort}`,
    '/',
  ),
)
const baselineUrl = `http://127.0.0.1:${baselinePort}`

interface LoadResult {
  sent: number
  ok: number
  outcomes: Record<string, number>
  seconds: number
  exhausted: boolean
  p50: number
  p99: number
}
async function load(url: string, start: number, count: number, seconds: number): Promise<LoadResult> {
  const child = Bun.spawn(
    pinned(1, [
      process.execPath,
      join(ROOT, 'scripts/bench/webhook-load.ts'),
      `${url}/api/payments/webhook`,
      eventsFile,
      String(start),
      String(count),
      String(seconds),
      String(CONNECTIONS),
    ]),
    {
      stdout: 'pipe',
      stderr: 'inherit',
    },
  )
  const out = await new Response(child.stdout).text()
  await child.exited
  return JSON.parse(out.trim().split('\n').at(-1)!) as LoadResult
}

// --- (a) webhook throughput ---------------------------------------------------------------------
console.log('\n(a) signed webhook deliveries, end to end (each a subscription update that changes state)')
// The first event went out as the probe; warm-up of the baseline and of the server's JIT.
await load(baselineUrl, 1, 2000, 1)
let cursor = 1
const warm = await load(serverUrl, cursor, 12_000, 2)
cursor += warm.sent
const pairs: { baseline: LoadResult; server: LoadResult }[] = []
for (let r = 0; r < ROUNDS; r++) {
  const b = await load(baselineUrl, 1, perRound, SECONDS)
  const s = await load(serverUrl, cursor, perRound, SECONDS)
  cursor += s.sent
  pairs.push({ baseline: b, server: s })
  const rps = (x: LoadResult) => x.ok / x.seconds
  console.log(
    `  round ${r + 1}: baseline ${Math.round(rps(b)).toLocaleString('en-US')}/s (p99 ${b.p99.toFixed(2)} ms)   server ${Math.round(rps(s)).toLocaleString('en-US')}/s (p50 ${s.p50.toFixed(2)}, p99 ${s.p99.toFixed(2)} ms)   ratio ${(rps(s) / rps(b)).toFixed(2)}   outcomes ${JSON.stringify(s.outcomes)}${s.exhausted ? '  (events ran out)' : ''}`,
  )
}
const serverRps = median(pairs.map((x) => x.server.ok / x.server.seconds))
const baselineRps = median(pairs.map((x) => x.baseline.ok / x.baseline.seconds))
const notApplied = pairs.reduce((a, x) => a + (x.server.sent - (x.server.outcomes.applied ?? 0)), 0)
let missed = 0
const verdict = (ok: boolean) => {
  if (!ok) missed++
  return ok ? 'ok' : 'MISSED'
}
console.log(
  `  median: server ${Math.round(serverRps).toLocaleString('en-US')} deliveries/s (target >= ${WEBHOOK_TARGET.toLocaleString('en-US')}/s, every one applied) ${verdict(serverRps >= WEBHOOK_TARGET && notApplied === 0)}${notApplied ? ` (${notApplied} not applied)` : ''}; baseline ${Math.round(baselineRps).toLocaleString('en-US')}/s, ratio ${(serverRps / baselineRps).toFixed(2)}`,
)

// --- (b) checkout latency -----------------------------------------------------------------------
console.log(`\n(b) checkout: ${CHECKOUTS} sequential requests per side and round, p50`)
const reg = await fetch(`${serverUrl}/api/auth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: `buyer-${run}@bench.example.com`, password: 'bench-password-1234', name: 'Buyer' }),
})
const { access_token: token } = (await reg.json()) as { access_token: string }
const viaServer = () =>
  fetch(`${serverUrl}/api/payments/checkout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"tier":"pro"}',
  })
// What the SDK sends for one session, straight to the fake.
const direct = () =>
  fetch(`${fakeUrl}/v1/checkout/sessions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${STRIPE_TEST_KEY}`,
      'content-type': 'application/x-www-form-urlencoded',
      'stripe-version': '2026-10-28.endive',
    },
    body: new URLSearchParams({
      mode: 'subscription',
      customer: 'cus_1',
      client_reference_id: 'u',
      'line_items[0][price]': STRIPE_PRICES.pro,
      'line_items[0][quantity]': '1',
      'metadata[user_id]': 'u',
      'metadata[tier]': 'pro',
      'subscription_data[metadata][user_id]': 'u',
      'subscription_data[metadata][tier]': 'pro',
      success_url: 'http://localhost:8000/billing?status=success&session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:8000/billing?status=cancelled',
    }).toString(),
  })
async function timed(call: () => Promise<Response>, n: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    const res = await call()
    await res.text()
    if (res.status !== 200) throw new Error(`checkout: ${res.status}`)
    out.push(performance.now() - t)
  }
  return out
}
await timed(viaServer, 50)
await timed(direct, 50)
const overheads: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  const d = median(await timed(direct, CHECKOUTS))
  const s = median(await timed(viaServer, CHECKOUTS))
  overheads.push(s - d)
  console.log(`  round ${r + 1}: fake Stripe alone p50 ${d.toFixed(2)} ms, through the server p50 ${s.toFixed(2)} ms, added ${(s - d).toFixed(2)} ms`)
}
const overhead = median(overheads)
console.log(`  median added: ${overhead.toFixed(2)} ms; target <= ${CHECKOUT_TARGET_MS} ms: ${verdict(overhead <= CHECKOUT_TARGET_MS)}`)

await stopAll()
if (opts.check && missed > 0) {
  console.log(`\n${missed} target(s) missed`)
  process.exit(1)
}
