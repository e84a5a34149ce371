// Optimizer benchmark: the three targets, against the real server and the fake upstream
// (test/support/fake-llm.ts, run as a process of its own), all on loopback.
//   (a) built-in engine: time from sending the request to the first `delta` event, sequential
//   (b) 100 concurrent streams relayed through the OpenAI-compatible engine vs. reading the same
//       fake upstream directly, in the same run, alternating
//   (c) 1,000 concurrent open streams held by a slow upstream: the server's resident memory
// Users are rows written straight into the benchmark's database (pro tier, so neither the daily
// quota nor the 3-streams-per-user cap interferes: one stream per user) with JWTs signed by the
// benchmark's JWT_SECRET; registering 1,000 users through the API would spend minutes in argon2.
//
//   bun scripts/bench-optimizer.ts [--quick] [--binary dist/promptlib] [--check]
import { Database } from 'bun:sqlite'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { JwtCodec } from '../src/http/jwt'
import { freePort, median, pinned, ROOT, rssMb, type Started, startProcess, tempDir } from './bench/lib'

// Bun's fetch runs at most 256 requests at once unless told otherwise; (c) needs 1,000 in this
// client and in the server. Re-run this script with the limit raised.
const MAX_HTTP = '4096'
if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS !== MAX_HTTP) {
  const r = spawnSync(process.execPath, [import.meta.path, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_HTTP },
  })
  process.exit(r.status ?? 1)
}

const { values: opts } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, binary: { type: 'string' }, check: { type: 'boolean', default: false } },
})
const SEQUENTIAL = opts.quick ? 100 : 200
const ROUNDS = opts.quick ? 1 : 3
const HELD = opts.quick ? 300 : 1000
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123'
const serverCommand = opts.binary ? [join(ROOT, opts.binary), 'serve'] : [process.execPath, join(ROOT, 'src/main.ts'), 'serve']

const started: Started[] = []
async function start(command: string[], env: Record<string, string>, url: string, readyPath?: string): Promise<Started> {
  const s = await startProcess(command, { BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_HTTP, ...env }, url, readyPath)
  started.push(s)
  return s
}

// --- processes: the fake upstream (CPU 1, with this client) and two servers (CPU 0) ---------
const fakePort = freePort()
const fakeUrl = `http://127.0.0.1:${fakePort}`
await start(pinned(1, [process.execPath, join(ROOT, 'test/support/fake-llm.ts'), String(fakePort)]), {}, fakeUrl, '/__ready')
const setScript = (script: object) =>
  fetch(`${fakeUrl}/__script`, { method: 'PUT', body: JSON.stringify(script), headers: { 'content-type': 'application/json' } })

async function startServer(extra: Record<string, string>) {
  const port = freePort()
  const dataDir = tempDir('promptlib-bench-opt-')
  const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, JWT_SECRET, LOG_LEVEL: 'warn', ...extra }
  const server = await start(pinned(0, serverCommand), env, `http://127.0.0.1:${port}`)
  return { server, dataDir }
}
const builtin = await startServer({})
const relay = await startServer({ OPTIMIZER_BASE_URL: `${fakeUrl}/v1`, OPTIMIZER_MODEL: 'fake-model', OPTIMIZER_API_KEY: 'sk-bench' })

/** Pro users written into the server's database, and a JWT for each. */
function createUsers(dataDir: string, count: number, prefix: string): string[] {
  const db = new Database(join(dataDir, 'promptlib.db'))
  const jwt = new JwtCodec(JWT_SECRET)
  const now = Date.now()
  const insert = db.prepare("INSERT INTO users (id, email, name, tier, created_at, updated_at) VALUES (?, ?, 'Bench', 'pro', ?, ?)")
  const tokens: string[] = []
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = `${prefix}${i}`
      insert.run(id, `${id}@bench.example.com`, now, now)
      tokens.push(jwt.sign({ user_id: id, email: `${id}@bench.example.com` }))
    }
  })()
  db.close()
  return tokens
}

const PROMPT = `Our billing service charges customers twice when the payment provider times out. Review the retry
code below and propose a fix for my team; explain the root cause first. Keep it under 400 words.`
const optimizeBody = (mode = 'structured', prompt = PROMPT) => JSON.stringify({ prompt, mode })

function postOptimize(url: string, token: string, body = optimizeBody(), signal?: AbortSignal) {
  return fetch(`${url}/api/optimizer/optimize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    signal,
  })
}

/** Reads a response body; resolves with the time the first chunk containing `marker` arrived, then reads to the end. */
async function readUntil(res: Response, marker: string | null): Promise<{ markAt: number; text: string }> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let markAt = Number.NaN
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    text += decoder.decode(r.value, { stream: true })
    if (marker !== null && Number.isNaN(markAt) && text.includes(marker)) markAt = performance.now()
  }
  return { markAt, text }
}

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!
const ms = (n: number) => `${n.toFixed(2)} ms`
let missed = 0
const verdict = (ok: boolean) => {
  if (!ok) missed++
  return ok ? 'ok' : 'MISSED'
}

// --- (a) built-in engine: request → first delta ----------------------------------------------
console.log(`\n(a) built-in engine, ${SEQUENTIAL} sequential requests per prompt size, time to the first delta event`)
const [builtinToken] = createUsers(builtin.dataDir, 1, 'a')
const longPrompt = 'Our checkout must stay under 200 ms and we never store card numbers. '.repeat(300).slice(0, 20_000)
for (const [label, prompt] of [
  ['~200-character prompt', PROMPT],
  ['20,000-character prompt', longPrompt],
] as const) {
  const modes = ['enhance', 'structured', 'chain-of-thought', 'few-shot', 'model-specific']
  for (let i = 0; i < 20; i++) await readUntil(await postOptimize(builtin.server.url, builtinToken!, optimizeBody(modes[i % 5], prompt)), null)
  const times: number[] = []
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now()
    const res = await postOptimize(builtin.server.url, builtinToken!, optimizeBody(modes[i % 5], prompt))
    const { markAt, text } = await readUntil(res, 'event: delta')
    if (!text.includes('event: done')) throw new Error(`(a) stream did not finish: ${text.slice(0, 300)}`)
    times.push(markAt - t0)
  }
  const p50 = pct(times, 50)
  const p99 = pct(times, 99)
  console.log(`    ${label.padEnd(24)} p50 ${ms(p50)}  p99 ${ms(p99)}  (target <= 10 ms)  ${verdict(p99 <= 10)}`)
}

// --- (b) relay vs direct, 100 concurrent streams ---------------------------------------------
const TOKENS = 100
const TOKEN_DELAY = 10
console.log(`\n(b) 100 concurrent streams, upstream sends ${TOKENS} tokens ${TOKEN_DELAY} ms apart; ${ROUNDS} round(s), alternating`)
await setScript({ tokens: Array.from({ length: TOKENS }, (_, i) => `tok${i} `), tokenDelayMs: TOKEN_DELAY })
const relayTokens = createUsers(relay.dataDir, 100, 'b')
const upstreamBody = JSON.stringify({
  model: 'fake-model',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: PROMPT }],
})

async function wave(kind: 'direct' | 'relay'): Promise<{ total: number; mean: number }> {
  const t0 = performance.now()
  const durations = await Promise.all(
    relayTokens.map(async (token) => {
      const s = performance.now()
      const res =
        kind === 'direct'
          ? await fetch(`${fakeUrl}/v1/chat/completions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
              body: upstreamBody,
            })
          : await postOptimize(relay.server.url, token)
      const { text } = await readUntil(res, null)
      if (!text.includes(kind === 'direct' ? '[DONE]' : 'event: done')) throw new Error(`(b) ${kind} stream did not finish: ${text.slice(-300)}`)
      return performance.now() - s
    }),
  )
  return { total: performance.now() - t0, mean: durations.reduce((a, b) => a + b, 0) / durations.length }
}
await wave('direct')
await wave('relay') // warm-up: JIT, connection pools
const direct: { total: number; mean: number }[] = []
const relayed: { total: number; mean: number }[] = []
for (let i = 0; i < ROUNDS; i++) {
  direct.push(await wave('direct'))
  relayed.push(await wave('relay'))
}
const dTotal = median(direct.map((d) => d.total))
const rTotal = median(relayed.map((d) => d.total))
const dMean = median(direct.map((d) => d.mean))
const rMean = median(relayed.map((d) => d.mean))
console.log(`    direct from the fake upstream: all done in ${ms(dTotal)}, mean stream ${ms(dMean)}`)
console.log(`    relayed through the server:    all done in ${ms(rTotal)}, mean stream ${ms(rMean)}`)
const overhead = rTotal / dTotal - 1
console.log(
  `    a mean stream ${((rMean / dMean - 1) * 100).toFixed(2)} % longer; relay adds ${(overhead * 100).toFixed(2)} % to the total stream time  (target <= 5 %)  ${verdict(overhead <= 0.05)}`,
)

// --- (c) 1,000 open streams: resident memory --------------------------------------------------
console.log(`\n(c) ${HELD} concurrent open streams held by the upstream (one per user, pro tier)`)
await setScript({ tokens: ['held ', 'open '], tokenDelayMs: 20, hold: true })
const heldTokens = createUsers(relay.dataDir, HELD, 'c')
const pid = relay.server.child.pid!
const idleRss = rssMb(pid)
const controller = new AbortController()
let established = 0
const held = heldTokens.map(async (token, i) => {
  await Bun.sleep(Math.floor(i / 100) * 50) // open in waves of 100
  const res = await postOptimize(relay.server.url, token, optimizeBody('enhance'), controller.signal)
  if (res.status !== 200) throw new Error(`(c) stream ${i}: HTTP ${res.status} ${await res.text()}`)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let counted = false
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true })
      if (!counted && text.split('event: delta').length > 2) {
        counted = true
        established++
      }
    }
  } catch {
    // aborted at the end of the measurement
  }
})
const deadline = Date.now() + 60_000
while (established < HELD && Date.now() < deadline) await Bun.sleep(50)
if (established < HELD) throw new Error(`(c) only ${established} of ${HELD} streams got their deltas`)
await Bun.sleep(1000)
const heldRss = rssMb(pid)
console.log(
  `    all ${HELD} streams open and streaming (idle before: ${idleRss} MB); server RSS ${heldRss} MB  (target <= 250 MB)  ${verdict(heldRss <= 250)}`,
)
const abortedAt = performance.now()
controller.abort()
await Promise.allSettled(held)
// Every client left: every upstream request must have been aborted and stored as aborted.
const db = new Database(join(relay.dataDir, 'promptlib.db'), { readonly: true })
let running = Number.POSITIVE_INFINITY
while (running > 0 && performance.now() - abortedAt < 10_000) {
  running = (db.query("SELECT count(*) AS n FROM optimization_history WHERE status = 'running'").get() as { n: number }).n
  if (running > 0) await Bun.sleep(10)
}
const aborted = (db.query("SELECT count(*) AS n FROM optimization_history WHERE status = 'aborted'").get() as { n: number }).n
db.close()
console.log(
  `    clients closed: ${aborted} entries stored as aborted, ${running} still running, ${ms(performance.now() - abortedAt)} after the abort`,
)

for (const s of started.reverse()) await s.stop()
console.log(missed ? `\n${missed} target(s) missed` : '\nall targets met')
if (opts.check && missed > 0) process.exit(1)
