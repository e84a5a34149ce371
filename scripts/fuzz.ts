// Hostile input, generated: starts its own server on loopback (fresh SQLite or PostgreSQL, both payment
// providers configured against their fakes), reads /api/openapi.json and sends requests drawn
// from it with fast-check — every operation, valid and mutated, with and without tokens
// (scripts/fuzz/openapi-cases.ts) — plus signed webhook deliveries of hostile events
// (scripts/fuzz/webhooks.ts) and raw hostile bytes over TCP (scripts/fuzz/raw.ts).
//
//   bun scripts/fuzz.ts                   20,000 requests (the issue's target)
//   bun scripts/fuzz.ts --quick           2,000 requests (CI)
//   options: --seed N (replay a run) --case I (send only case I of that run) --requests N
//            --concurrency N --binary dist/promptlib (fuzz the compiled binary)
//            --engine postgres [--database-url ADMIN_URL]   on PostgreSQL: a database of its own on
//                                   that cluster, dropped after (else a throwaway cluster, scripts/postgres.sh)
//            --server-log PATH (the server's whole output, where the report quotes its first lines)
// Passes (exit 0) when no answer is a 5xx, no answer shows a stack trace, SQL or a file path
// (scripts/fuzz/leaks.ts), every well-formed request got an answer, the server is healthy at the
// end, stops cleanly on SIGTERM, and its log has no error lines. Otherwise prints a reproducer
// of each failure (method, path, headers, body prefix) and the seed, and exits 1.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import postgres from 'postgres'
import { signPaypal, startFakePaypal } from '../test/support/fake-paypal'
import { signStripe, startFakeStripe } from '../test/support/fake-stripe'
import { ROOT, startServer } from '../test/support/process'
import { tempDir } from './bench/lib'
import { findLeak, leakDetectors } from './fuzz/leaks'
import { type McpTool, mcpCase } from './fuzz/mcp-cases'
import { type AuthKind, type HttpCase, type KnownValues, operationCase, operationsOf } from './fuzz/openapi-cases'
import { type RawCase, rawCase, sendRaw } from './fuzz/raw'
import { signedDelivery } from './fuzz/webhooks'
import { throwawayPostgres } from './storm/pg'

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seed: { type: 'string' },
    case: { type: 'string' },
    requests: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    binary: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    'server-log': { type: 'string' },
  },
})
if (opts.engine !== 'sqlite' && opts.engine !== 'postgres') throw new Error('--engine is sqlite or postgres')
const seed = opts.seed !== undefined ? Number(opts.seed) : Math.floor(Math.random() * 2 ** 31)
const total = Number(opts.requests ?? (opts.quick ? 2_000 : 20_000))
const concurrency = Number(opts.concurrency)
const started = performance.now()

// --- the server ------------------------------------------------------------------------------

const stripe = startFakeStripe()
const paypal = startFakePaypal()
const dataDir = tempDir('promptlib-fuzz-')
// PostgreSQL refuses what SQLite stores (NUL in text, for one): the same requests on both engines.
const database = opts.engine === 'postgres' ? await freshDatabase(opts['database-url'] ?? throwawayPostgres()) : null
const command = opts.binary ? [join(ROOT, opts.binary), 'serve'] : undefined
const env = {
  DATA_DIR: dataDir,
  AUTH_RATE_LIMIT: '0',
  JWT_SECRET: 'fuzz-secret-fuzz-secret-fuzz-secret-0123456',
  ...stripe.env(),
  ...paypal.env(),
  // a sign-in provider that is configured but unreachable: the callbacks run their checks
  OAUTH_A_CLIENT_ID: 'fuzz-client',
  OAUTH_A_CLIENT_SECRET: 'fuzz-secret',
  OAUTH_A_AUTHORIZE_URL: 'http://127.0.0.1:9/authorize',
  OAUTH_A_TOKEN_URL: 'http://127.0.0.1:9/token',
  OAUTH_A_USERINFO_URL: 'http://127.0.0.1:9/userinfo',
  ...(database ? { DATABASE_URL: database.url } : {}),
}
const server = await startServer(env, command)
// however this script ends, the server goes with it
process.on('exit', () => server.kill('SIGKILL'))
const { hostname, port } = new URL(server.url)
console.log(
  `fuzz: seed ${seed}, ${total} requests, ${concurrency} at a time, against ${opts.binary ?? 'src/main.ts'} on ${opts.engine} at ${server.url}`,
)

/** A database of its own on the cluster at `adminUrl`, and how to drop it. */
async function freshDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `promptlib_fuzz_${process.pid}`
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin.unsafe(`CREATE DATABASE "${name}"`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin.end()
    },
  }
}

function cli(args: string[]) {
  const cmd = command ?? [process.execPath, join(ROOT, 'src/main.ts'), 'serve']
  const r = spawnSync(cmd[0]!, [...cmd.slice(1, -1), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
}

async function call(path: string, init: RequestInit & { token?: string; json?: unknown } = {}) {
  const { token, json, ...rest } = init
  const headers = new Headers(rest.headers)
  if (token) headers.set('authorization', `Bearer ${token}`)
  if (json !== undefined) headers.set('content-type', 'application/json')
  const res = await fetch(server.url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body })
  if (!res.ok) throw new Error(`setup: ${init.method ?? 'GET'} ${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

// --- the users, and what the server has --------------------------------------------------------

interface User {
  id: string
  jwt: string
  /** a personal access token (starter and up) */
  pat: string
}
async function user(name: string, tier?: string): Promise<User> {
  const email = `fuzz-${name}-${seed}@example.com`
  const reg = await call('/api/auth/register', { method: 'POST', json: { email, password: 'a sufficiently long passphrase', name } })
  const jwt = reg.access_token as string
  let pat = ''
  if (tier) {
    cli(['user', 'set-tier', email, tier])
    pat = (await call('/api/user/tokens', { method: 'POST', token: jwt, json: { name: 'fuzz' } })).token as string
  }
  return { id: (reg.user as { id: string }).id, jwt, pat }
}
const free = await user('free')
const starter = await user('starter', 'starter')
const pro = await user('pro', 'pro')
const victims = await Promise.all(Array.from({ length: 4 }, (_, i) => user(`victim-${i}`)))
// a token of its own for the fuzzer to revoke, so the users keep theirs
const spareToken = (await call('/api/user/tokens', { method: 'POST', token: pro.jwt, json: { name: 'spare' } })).token_id as string

const categories = ((await call('/api/categories')).items as { id: string }[]).map((c) => c.id)
const prompts = ((await call(`/api/categories/${categories[0]}/prompts?limit=50`)).items as { id: string }[]).map((p) => p.id)
const skills = ((await call('/api/skills?limit=20', { token: pro.jwt })).items as { id: string }[]).map((s) => s.id)
const known: KnownValues = {
  prompt_id: prompts,
  category_id: categories,
  category: categories,
  skill_id: skills,
  token_id: [spareToken],
  q: ['email', 'code review', 'write a', 'marketing plan'],
}

const doc = await call('/api/openapi.json')
const operations = operationsOf(doc)
const tools = (
  (await call('/api/mcp', {
    method: 'POST',
    token: pro.pat,
    headers: { accept: 'application/json, text/event-stream' },
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  })) as { result: { tools: McpTool[] } }
).result.tools
const rawContext = { token: pro.jwt, promptId: prompts[0]! }

type SignedCase = { kind: 'signed'; provider: 'card' | 'wallet'; body: string }
type Case = HttpCase | RawCase | SignedCase
const caseArbitrary: fc.Arbitrary<Case> = fc.oneof(
  { arbitrary: fc.oneof(...operations.map((op) => operationCase(op, known))), weight: 78 },
  { arbitrary: mcpCase(tools, known), weight: 7 },
  { arbitrary: signedDelivery([free.id, starter.id, pro.id]).map((d): Case => ({ kind: 'signed', ...d })), weight: 5 },
  { arbitrary: rawCase(rawContext), weight: 10 },
)
/** Case i of this run: its own seed, so one case replays alone (--case) and cases are made as they are sent. */
const caseAt = (i: number): Case => fc.sample(caseArbitrary, { seed: seed + i, numRuns: 1, unbiased: i % 2 === 1 })[0]!

// --- sending and judging -----------------------------------------------------------------------

const victimFor = (i: number) => victims[i % victims.length]!
function authorization(auth: AuthKind, i: number): string | null {
  switch (auth) {
    case 'none':
      return null
    case 'free-jwt':
      return `Bearer ${free.jwt}`
    case 'starter-pat':
      return `Bearer ${starter.pat}`
    case 'pro-jwt':
      return `Bearer ${pro.jwt}`
    case 'pro-pat':
      return `Bearer ${pro.pat}`
    case 'victim-jwt':
      return `Bearer ${victimFor(i).jwt}`
    case 'garbage':
      return `Bearer ${'x'.repeat(i % 3 === 0 ? 5000 : 20)}`
    case 'forged-jwt': {
      // a valid-looking token signed with another key, with alg none, or with its payload cut
      const [head, body] = pro.jwt.split('.')
      const forged = [`${head}.${body}.AAAA`, `eyJhbGciOiJub25lIn0.${body}.`, `${head}.${body!.slice(0, 10)}.x`, `${head}..`]
      return `Bearer ${forged[i % forged.length]}`
    }
    case 'malformed-header': {
      // a victim's token: "bearer" in lower case is a valid scheme, and DELETE /api/user/me with it
      // deleted the pro user, after which every pro-jwt and pro-pat case only tested a 401
      const jwt = victimFor(i).jwt
      return ['Bearer', 'Bearer  ', 'Basic dXNlcjpwYXNz', `bearer ${jwt}`, `Bearer ${jwt} extra`, `${jwt}`][i % 6]!
    }
  }
}

interface Failure {
  index: number
  why: string
  reproducer: string
}

const detectors = leakDetectors(ROOT, dataDir)
const statuses = new Map<number, number>()
const failures: Failure[] = []
let sent = 0
let noAnswer = 0
/** 505s from Bun's own HTTP parser for a request line that does not parse (see refusedByParser) */
let parserRefusals = 0
const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)
const excerpt = (text: string, max = 300) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text)

function httpReproducer(c: { method: string; path: string; headers: Record<string, string>; body?: string }, label: string): string {
  const headers = Object.entries(c.headers).map(([k, v]) => `${k}: ${k === 'authorization' ? v.slice(0, 40) + (v.length > 40 ? '…' : '') : v}`)
  return [
    `${c.method} ${c.path.length > 300 ? `${c.path.slice(0, 300)}… (${c.path.length} chars)` : c.path}   [${label}]`,
    ...headers.map((h) => `  ${h}`),
    c.body === undefined ? '  (no body)' : `  body (${c.body.length} chars): ${excerpt(c.body)}`,
  ].join('\n')
}

/** Judges one answer: a 5xx or a leak is a failure. */
function judge(index: number, status: number | null, responseText: string, requestText: string, reproducer: () => string): void {
  if (status !== null) count(status)
  let why: string | null = null
  if (status !== null && status >= 500) why = `answered ${status}: ${excerpt(responseText.slice(responseText.indexOf('\r\n\r\n') + 1), 400)}`
  const leak = findLeak(detectors, responseText, requestText, status === null || status >= 400)
  if (leak) why = `${why ? `${why}; ` : ''}leaks ${leak.detector}: ${excerpt(leak.excerpt)}`
  if (why) failures.push({ index, why, reproducer: reproducer() })
}

async function sendHttp(index: number, c: HttpCase): Promise<void> {
  const headers: Record<string, string> = { ...c.headers }
  const auth = authorization(c.auth, index)
  if (auth !== null) headers.authorization = auth
  const label = `${c.op}, ${c.mutation}, auth ${c.auth}`
  const request = { method: c.method, path: c.path, headers, body: c.body }
  let res: Response
  try {
    res = await fetch(server.url + c.path, { method: c.method, headers, body: c.body, redirect: 'manual', signal: AbortSignal.timeout(30_000) })
  } catch (error) {
    if (error instanceof TypeError && /header|invalid/i.test(String(error)) && !/socket|connection/i.test(String(error))) return // fetch refused to send it
    noAnswer++
    failures.push({ index, why: `no answer: ${String(error)}`, reproducer: httpReproducer(request, label) })
    return
  }
  sent++
  const text = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${await res.text()}`
  judge(index, res.status, text, `${decodeSafely(c.path)}\n${JSON.stringify(headers)}\n${c.body ?? ''}`, () => httpReproducer(request, label))
}

async function sendSigned(index: number, c: SignedCase): Promise<void> {
  const signature = c.provider === 'card' ? { 'stripe-signature': await signStripe(c.body) } : signPaypal(c.body, paypal.certUrl)
  const path = c.provider === 'card' ? '/api/payments/webhook' : '/api/payments/altpay/webhook'
  await sendHttp(index, {
    kind: 'http',
    op: `POST ${path}`,
    mutation: 'signed hostile event',
    method: 'POST',
    path,
    auth: 'none',
    headers: { 'content-type': 'application/json', ...signature },
    body: c.body,
  })
}

async function sendRawCase(index: number, c: RawCase): Promise<void> {
  const answer = await sendRaw(hostname, Number(port), c)
  sent++
  const bytes = Buffer.concat(c.chunks.map((k) => k.bytes))
  const reproducer = () =>
    `raw TCP: ${c.name}   (${bytes.length} bytes in ${c.chunks.length} writes)\n  first bytes: ${excerpt(bytes.toString('latin1'))}`
  if (answer.statuses.length === 0) {
    // No answer: a closed connection is a fine way to refuse garbage; silence is too for a partial request.
    count(0)
    const leak = findLeak(detectors, answer.text, bytes.toString('latin1'), true)
    if (leak) failures.push({ index, why: `leaks ${leak.detector}: ${excerpt(leak.excerpt)}`, reproducer: reproducer() })
    return
  }
  if (refusedByParser(bytes, answer)) {
    parserRefusals++
    count(answer.statuses[0]!)
    return
  }
  for (const [n, status] of answer.statuses.entries()) {
    judge(index, status, n === 0 ? answer.text : '', bytes.toString('latin1'), reproducer)
  }
}

/**
 * Bun's HTTP parser answers `505 HTTP Version Not Supported` (and closes) when the request line
 * is not METHOD SP target SP HTTP/1.x: another version (RFC 9110 §15.6.6), or a space or control
 * byte (NUL, ESC, DEL) inside the target, which leaves it reading the rest as the version, as
 * cowboy and akka-http do. The service never
 * sees such a request (no X-Request-Id: the edge did not run); the runtime refuses it before it
 * reaches JavaScript, so it is counted apart, not as a 5xx of the service.
 */
function refusedByParser(bytes: Buffer, answer: { statuses: number[]; text: string }): boolean {
  const requestLine = bytes.toString('latin1').split('\r\n', 1)[0]!
  const wellFormed = /^[A-Z]+ [\x21-\x7e\x80-\xff]+ HTTP\/1\.[01]$/.test(requestLine)
  return !wellFormed && answer.statuses.length === 1 && answer.statuses[0] === 505 && !/x-request-id:/i.test(answer.text)
}

/** The path as sent and as decoded (leniently: one bad escape does not stop the others), to tell echoes from leaks. */
function decodeSafely(path: string): string {
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : ''
  const params = [...new URLSearchParams(query)].flat().join('\n')
  try {
    return `${path}\n${decodeURIComponent(path)}\n${params}`
  } catch {
    return `${path}\n${params}`
  }
}

async function send(index: number): Promise<void> {
  const c = caseAt(index)
  if (c.kind === 'http') return sendHttp(index, c)
  if (c.kind === 'signed') return sendSigned(index, c)
  return sendRawCase(index, c)
}

const indexes = opts.case !== undefined ? [Number(opts.case)] : Array.from({ length: total }, (_, i) => i)
let next = 0
let lastReport = performance.now()
await Promise.all(
  Array.from({ length: Math.min(concurrency, indexes.length) }, async () => {
    while (next < indexes.length) {
      const i = indexes[next++]!
      await send(i)
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now()
        console.log(`  ${next} of ${indexes.length} sent, ${failures.length} failures so far`)
      }
    }
  }),
)
const sentSeconds = (performance.now() - started) / 1000

// --- after: healthy, a clean stop, a clean log ------------------------------------------------

const health = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(5000) }).catch((e: unknown) => e as Error)
if (health instanceof Error || health.status !== 200) {
  failures.push({
    index: -1,
    why: `the server is not healthy at the end: ${health instanceof Error ? health.message : health.status}`,
    reproducer: '',
  })
}
server.kill('SIGTERM')
const exitCode = await Promise.race([server.exited, Bun.sleep(15_000).then(() => 'timeout' as const)])
if (exitCode !== 0) {
  failures.push({ index: -1, why: `the server did not stop cleanly on SIGTERM (exit ${exitCode})`, reproducer: '' })
  server.kill('SIGKILL')
}
stripe.close()
paypal.close()
await database?.drop()

if (opts['server-log']) writeFileSync(opts['server-log'], server.output())
const logProblems: string[] = []
for (const line of server.output().split('\n')) {
  if (line.trim() === '') continue
  let entry: { level?: string; msg?: string }
  try {
    entry = JSON.parse(line)
  } catch {
    logProblems.push(line) // not one of ours: an uncaught error printed by the runtime
    continue
  }
  if (entry.level === 'error' || entry.level === 'fatal') logProblems.push(line)
}
for (const line of logProblems.slice(0, 5)) failures.push({ index: -1, why: `the server logged: ${excerpt(line, 600)}`, reproducer: '' })

// --- report ------------------------------------------------------------------------------------

const byStatus = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'no answer (raw)' : s}: ${n}`)
const fiveHundreds = [...statuses.entries()].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0)
console.log(`sent ${sent} requests in ${sentSeconds.toFixed(1)} s (${operations.length} operations; seed ${seed})`)
console.log(`statuses: ${byStatus.join(', ')}`)
console.log(
  `5xx: ${fiveHundreds - parserRefusals} from the service, ${parserRefusals} from Bun's HTTP parser (a request line that is not METHOD target HTTP/1.x); unanswered well-formed requests: ${noAnswer}; server log error lines: ${logProblems.length}`,
)
if (failures.length === 0) {
  console.log('fuzz: passed')
  process.exit(0)
}
console.log(`fuzz: ${failures.length} failures`)
// One reproducer per kind of failure (what went wrong, on which operation), with how often it happened.
const kinds = new Map<string, { first: Failure; count: number }>()
for (const f of failures) {
  const key = `${f.why.replace(/\d+/g, 'N').slice(0, 60)} ${f.reproducer.split(/\s{3}|\n/)[0]}`
  const kind = kinds.get(key)
  if (kind) kind.count++
  else kinds.set(key, { first: f, count: 1 })
}
for (const { first: f, count } of [...kinds.values()].slice(0, 30)) {
  console.log(`\n#${f.index}: ${f.why}${count > 1 ? ` (and ${count - 1} more like it)` : ''}`)
  if (f.reproducer) console.log(f.reproducer)
  if (f.index >= 0) console.log(`  replay: bun scripts/fuzz.ts --seed ${seed} --case ${f.index}`)
}
process.exit(1)
