// What scripts/storm.ts and scripts/crash.ts share: the world on loopback (the fake PayPal API that
// serves the signing certificate, a real SMTP server, real server processes), the users written
// straight into the database, the signed deliveries and their senders, the serial replay into a
// fresh server, and the comparison of everything billing and mail keep.
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openStorage } from '../../src/db'
import type { Storage } from '../../src/db/storage'
import { type FakePaypal, signPaypal, startFakePaypal } from '../../test/support/fake-paypal'
import { signStripe, stripeEnv } from '../../test/support/fake-stripe'
import { dropTestDatabases, freshDatabaseUrl } from '../../test/support/postgres'
import { ROOT, type ServerProcess, startServer } from '../../test/support/process'
import { sqlRows } from '../../test/support/sql'
import { startSmtp, type TestSmtp } from '../../test/support/smtp'
import { tempDir } from '../bench/lib'
import type { Delivery, StormEvent } from './events'

export const PASSWORD = 'storm password, long enough'
const MAIL_DOMAIN = 'storm.example.com'

/** Everything a run started, stopped in reverse on the way out (also on failure and on the time limit). */
export class Stack {
  private stops: (() => unknown)[] = []
  add(stop: () => unknown) {
    this.stops.push(stop)
  }
  async stopAll() {
    for (const stop of this.stops.splice(0).reverse()) {
      try {
        await stop()
      } catch (error) {
        console.error('cleanup:', error instanceof Error ? error.message : error)
      }
    }
  }
}

/** Exits 1 with the reason after `seconds`, having stopped everything. */
export function timeLimit(seconds: number, stack: Stack) {
  setTimeout(() => {
    console.error(`\nFAILED: still running after ${seconds} s (the time limit); stopped`)
    void stack.stopAll().then(() => process.exit(1))
  }, seconds * 1000)
}

export interface World {
  paypal: FakePaypal
  smtp: TestSmtp
}

export async function startWorld(stack: Stack): Promise<World> {
  const paypal = startFakePaypal()
  stack.add(() => paypal.close())
  const smtp = await startSmtp()
  stack.add(() => smtp.close())
  return { paypal, smtp }
}

/** A server's own storage: a fresh data folder, and on PostgreSQL a fresh database. */
export async function freshStore(stack: Stack, engine: 'sqlite' | 'postgres'): Promise<Record<string, string>> {
  const dir = tempDir('promptlib-storm-')
  stack.add(() => rmSync(dir, { recursive: true, force: true }))
  if (engine === 'sqlite') return { DATA_DIR: dir }
  const url = await freshDatabaseUrl()
  if (!url) throw new Error('PostgreSQL: no admin URL')
  return { DATA_DIR: dir, DATABASE_URL: url }
}

export const dropDatabases = () => dropTestDatabases()

export function serverEnv(store: Record<string, string>, world: World, smtp: TestSmtp, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...store,
    JWT_SECRET: 'storm-secret-storm-secret-storm-secret-0123',
    AUTH_RATE_LIMIT: '0',
    LOG_LEVEL: 'warn',
    DEMO_CATALOGUE: 'false',
    // Card checkouts are not part of the storm: the API base is never called.
    ...stripeEnv('http://127.0.0.1:9'),
    ...world.paypal.env(),
    SMTP_URL: smtp.url,
    MAIL_FROM: `promptlib <noreply@${MAIL_DOMAIN}>`,
    MAIL_POLL_MS: '200',
    MAIL_RETRY_BASE_MS: '200',
    MAIL_SEND_TIMEOUT_MS: '2000',
    ...extra,
  }
}

export const serverCommand = (binary: string | undefined) => (binary ? [join(ROOT, binary), 'serve'] : undefined)

export async function start(stack: Stack, env: Record<string, string>, binary?: string): Promise<ServerProcess> {
  const server = await startServer(env, serverCommand(binary))
  stack.add(async () => {
    server.kill('SIGKILL')
    await server.exited
  })
  return server
}

/** Stops a server as an operator would (SIGTERM: in-flight work and the outbox's sends settle). */
export async function stop(server: ServerProcess): Promise<void> {
  server.kill('SIGTERM')
  const code = await Promise.race([server.exited, Bun.sleep(15_000).then(() => 'timeout' as const)])
  if (code === 'timeout') {
    server.kill('SIGKILL')
    throw new Error('the server did not stop within 15 s of SIGTERM')
  }
}

export async function withDb<T>(store: Record<string, string>, fn: (storage: Storage) => Promise<T>): Promise<T> {
  const { storage } = await openStorage(
    { dataDir: store.DATA_DIR!, databaseUrl: store.DATABASE_URL ?? null, sqlite: { lockTimeoutMs: 5000, synchronous: 'normal' } },
    { poolSize: 2 },
  )
  try {
    return await fn(storage)
  } finally {
    await storage.close()
  }
}

/** The users, written straight into the (migrated) database, all with one cheap password hash. */
export async function seedUsers(store: Record<string, string>, userIds: string[]): Promise<void> {
  const hash = await Bun.password.hash(PASSWORD, { algorithm: 'argon2id', memoryCost: 1024, timeCost: 1 })
  const now = new Date()
  await withDb(store, async (storage) => {
    for (let i = 0; i < userIds.length; i += 200) {
      const chunk = userIds.slice(i, i + 200)
      const values = chunk.map(
        (_, j) => `($${j * 3 + 1}, $${j * 3 + 2}, 'Storm', $${j * 3 + 3}, 'free', $${chunk.length * 3 + 1}, $${chunk.length * 3 + 1})`,
      )
      const params = chunk.flatMap((id) => [id, emailOf(id), hash])
      await sqlRows(storage, `INSERT INTO users (id, email, name, password_hash, tier, created_at, updated_at) VALUES ${values.join(', ')}`, [
        ...params,
        now,
      ])
    }
  })
}

export const emailOf = (userId: string) => `${userId}@storm.example.com`

// --- deliveries --------------------------------------------------------------------------------

export interface Answer {
  /** HTTP status, or 0 when the connection failed */
  status: number
  outcome: string | null
  error?: string
}

const paypalHeaders = new Map<string, Record<string, string>>()

/** PayPal's signatures (RSA), made before the clock starts: the provider's cost, not the server's. */
export function presignWallet(events: StormEvent[], world: World) {
  for (const e of events) if (e.provider === 'wallet' && !paypalHeaders.has(e.id)) paypalHeaders.set(e.id, signPaypal(e.body, world.paypal.certUrl))
}

/** One delivery, signed as the provider signs it: Stripe at each attempt (300 s tolerance), PayPal once per event. */
export async function deliver(url: string, event: StormEvent, world: World): Promise<Answer> {
  let headers: Record<string, string>
  if (event.provider === 'card') headers = { 'stripe-signature': await signStripe(event.body) }
  else {
    headers = paypalHeaders.get(event.id) ?? signPaypal(event.body, world.paypal.certUrl)
    paypalHeaders.set(event.id, headers)
  }
  const path = event.provider === 'card' ? '/api/payments/webhook' : '/api/payments/altpay/webhook'
  try {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: event.body,
      signal: AbortSignal.timeout(15_000),
    })
    const text = await res.text()
    let outcome: string | null = null
    try {
      outcome = (JSON.parse(text) as { outcome?: string }).outcome ?? null
    } catch {}
    return { status: res.status, outcome, error: res.status === 200 ? undefined : text.slice(0, 300) }
  } catch (error) {
    return { status: 0, outcome: null, error: error instanceof Error ? error.message : String(error) }
  }
}

export interface Sent {
  delivery: Delivery
  /** every attempt's answer, the last one acknowledged when it is a 2xx */
  answers: Answer[]
}

/**
 * Sends the deliveries from `concurrency` senders. With `retry`, a delivery that is not
 * acknowledged (no answer, or a 5xx) is sent again after a doubling wait, as Stripe and PayPal
 * do (here milliseconds, not hours); a 4xx is a refusal and is not retried.
 */
export async function sendAll(
  url: string,
  deliveries: Delivery[],
  world: World,
  options: { concurrency: number; retry: boolean; onAck?: (acked: number) => void },
): Promise<{ sent: Sent[]; seconds: number }> {
  const sent: Sent[] = deliveries.map((delivery) => ({ delivery, answers: [] }))
  let next = 0
  let acked = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < sent.length) {
        const item = sent[next++]!
        for (let attempt = 0; ; attempt++) {
          const answer = await deliver(url, item.delivery.event, world)
          item.answers.push(answer)
          const unacknowledged = answer.status === 0 || answer.status >= 500
          if (!options.retry || !unacknowledged) break
          if (attempt >= 60) throw new Error(`delivery of ${item.delivery.event.id} not acknowledged after ${attempt + 1} attempts: ${answer.error}`)
          await Bun.sleep(Math.min(2000, 25 * 2 ** attempt) * (0.5 + Math.random()))
        }
        acked++
        options.onAck?.(acked)
      }
    }),
  )
  return { sent, seconds: (performance.now() - t0) / 1000 }
}

/** The distinct events, one at a time in the order they happened, into a server of their own. */
export async function replaySerially(url: string, events: StormEvent[], world: World): Promise<string[]> {
  const failures: string[] = []
  for (const event of events) {
    const answer = await deliver(url, event, world)
    if (answer.status !== 200) failures.push(`${event.id} (${event.type}): ${answer.status} ${answer.error}`)
  }
  return failures
}

// --- state ---------------------------------------------------------------------------------------

/** A row as plain values: dates as epoch ms, booleans as true/false, whatever the engine. */
function plain(row: Record<string, unknown>, booleans: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(row)) {
    out[k] = v instanceof Date ? v.getTime() : booleans.includes(k) ? Boolean(v) : typeof v === 'bigint' ? Number(v) : v
  }
  return out
}

/** Everything billing and mail keep that does not depend on when or how often a delivery arrived. */
const STATE_QUERIES: Record<string, { sql: string; key: string[]; booleans?: string[] }> = {
  users: { sql: 'SELECT id, tier, tier_until, tier_after FROM users', key: ['id'] },
  subscriptions: {
    sql: 'SELECT provider, provider_subscription_id, user_id, tier, status, current_period_end, cancel_at_period_end, version FROM subscriptions',
    key: ['provider', 'provider_subscription_id'],
    booleans: ['cancel_at_period_end'],
  },
  payments: {
    sql: 'SELECT provider, provider_payment_id, user_id, kind, subscription_id, amount, currency, grants_lifetime, paid_at FROM payments',
    key: ['provider', 'provider_payment_id'],
    booleans: ['grants_lifetime'],
  },
  billing_customers: { sql: 'SELECT user_id, provider, customer_id FROM billing_customers', key: ['user_id', 'provider'] },
  webhook_events: { sql: 'SELECT provider, event_id, type FROM webhook_events', key: ['provider', 'event_id'] },
  mail_outbox: { sql: 'SELECT dedupe_key, user_id, to_address, subject, body_text, status FROM mail_outbox', key: ['dedupe_key'] },
}

export type Snapshot = Record<string, Map<string, Record<string, unknown>>>

export async function snapshot(storage: Storage): Promise<Snapshot> {
  const out: Snapshot = {}
  for (const [table, q] of Object.entries(STATE_QUERIES)) {
    const rows = (await sqlRows(storage, q.sql)).map((r) => plain(r, q.booleans ?? []))
    out[table] = new Map(rows.map((r) => [q.key.map((k) => String(r[k])).join(' '), r]))
  }
  return out
}

/** The differences between two snapshots, at most `limit` per table. */
export function compareSnapshots(actual: Snapshot, expected: Snapshot, limit = 5): string[] {
  const diffs: string[] = []
  for (const table of Object.keys(expected)) {
    const a = actual[table]!
    const e = expected[table]!
    const lines: string[] = []
    for (const [key, row] of e) {
      const other = a.get(key)
      if (!other) lines.push(`  missing ${key}: replay has ${JSON.stringify(row)}`)
      else if (JSON.stringify(other) !== JSON.stringify(row))
        lines.push(`  ${key}: storm ${JSON.stringify(other)}\n  ${' '.repeat(key.length)}  replay ${JSON.stringify(row)}`)
    }
    for (const [key, row] of a) if (!e.has(key)) lines.push(`  extra ${key}: ${JSON.stringify(row)}`)
    if (lines.length) diffs.push(`${table}: ${lines.length} row(s) differ\n${lines.slice(0, limit).join('\n')}`)
  }
  return diffs
}

/** What the API tells a sample of users about their tier and subscription. */
export async function apiViews(url: string, userIds: string[]): Promise<Map<string, string>> {
  const views = new Map<string, string>()
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = w; i < userIds.length; i += 8) {
        const id = userIds[i]!
        const login = await fetch(`${url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: emailOf(id), password: PASSWORD }),
        })
        if (login.status !== 200) throw new Error(`login of ${id}: ${login.status} ${await login.text()}`)
        const { access_token: token } = (await login.json()) as { access_token: string }
        const auth = { authorization: `Bearer ${token}` }
        const me = (await (await fetch(`${url}/api/user/me`, { headers: auth })).json()) as { tier: string }
        const sub = await (await fetch(`${url}/api/user/subscription`, { headers: auth })).json()
        views.set(id, JSON.stringify({ tier: me.tier, subscription: sub }))
      }
    }),
  )
  return views
}

export function compareViews(actual: Map<string, string>, expected: Map<string, string>, limit = 5): string[] {
  const diffs: string[] = []
  for (const [id, view] of expected)
    if (actual.get(id) !== view) diffs.push(`  ${id}: storm ${actual.get(id)}\n  ${' '.repeat(id.length)}  replay ${view}`)
  return diffs.length ? [`API (/api/user/me, /api/user/subscription): ${diffs.length} user(s) differ\n${diffs.slice(0, limit).join('\n')}`] : []
}

// --- mail ----------------------------------------------------------------------------------------

export interface OutboxRow {
  id: string
  dedupe_key: string
  status: string
}

export const outboxRows = (storage: Storage) => sqlRows<OutboxRow>(storage, 'SELECT id, dedupe_key, status FROM mail_outbox')

/** Waits until the outbox has nothing left to send and the SMTP server has a message for each row sent. */
export async function drainOutbox(storage: Storage, smtp: TestSmtp, timeoutMs: number): Promise<OutboxRow[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const rows = await outboxRows(storage)
    const open = rows.filter((r) => r.status === 'pending' || r.status === 'sending').length
    const received = new Set(smtp.received.map((m) => outboxIdOf(m.messageId)))
    if (open === 0 && rows.every((r) => r.status !== 'sent' || received.has(r.id))) return rows
    if (Date.now() > deadline) {
      const counts = rows.reduce<Record<string, number>>((a, r) => ((a[r.status] = (a[r.status] ?? 0) + 1), a), {})
      throw new Error(`the outbox did not drain within ${timeoutMs / 1000} s: ${JSON.stringify(counts)}, ${smtp.received.length} received`)
    }
    await Bun.sleep(100)
  }
}

/** The outbox row behind a Message-ID (`<row id@domain>`). */
export const outboxIdOf = (messageId: string | null) => (messageId ? (/^<([^@>]+)@/.exec(messageId)?.[1] ?? messageId) : '')

/**
 * Each outbox row sent and received; no message without a row. `copies`: how many receipts of
 * one row are allowed (1 in the storm; in the crash run a second only when a kill fell between
 * the two, the one window the outbox documents).
 */
export function checkMail(rows: OutboxRow[], smtp: TestSmtp, kills: number[] = []): { errors: string[]; resent: number; windowMs: number } {
  const errors: string[] = []
  const byRow = new Map<string, number[]>()
  for (const m of smtp.received) {
    const id = outboxIdOf(m.messageId)
    byRow.set(id, [...(byRow.get(id) ?? []), m.receivedAt])
  }
  const ids = new Set(rows.map((r) => r.id))
  let resent = 0
  /** the longest time from a copy's acceptance to the kill that made it be sent again */
  let windowMs = 0
  for (const r of rows) {
    const times = byRow.get(r.id) ?? []
    if (r.status !== 'sent') errors.push(`outbox ${r.dedupe_key}: ${r.status}, not sent`)
    if (times.length === 0) errors.push(`outbox ${r.dedupe_key}: never received`)
    for (let i = 1; i < times.length; i++) {
      const kill = kills.find((k) => k > times[i - 1]! && k < times[i]!)
      if (kill !== undefined) {
        resent++
        windowMs = Math.max(windowMs, kill - times[i - 1]!)
      } else errors.push(`outbox ${r.dedupe_key}: received ${times.length} times, with no kill between two of them`)
    }
  }
  for (const [id, times] of byRow) if (!ids.has(id)) errors.push(`received ${times.length} message(s) with no outbox row (${id})`)
  return { errors, resent, windowMs }
}

// --- checks --------------------------------------------------------------------------------------

export class Checks {
  private results: { name: string; ok: boolean; detail: string }[] = []
  check(name: string, ok: boolean, detail = '') {
    this.results.push({ name, ok, detail })
    console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`)
  }
  get failed() {
    return this.results.filter((r) => !r.ok)
  }
  get count() {
    return this.results.length
  }
}

/** Outcomes that mean "this delivery applied (or recorded) the event", as opposed to a repeat. */
export const firstOutcome = (outcome: string | null) => outcome !== null && outcome !== 'duplicate'

export function integrityCheck(store: Record<string, string>): string {
  const db = new Database(join(store.DATA_DIR!, 'promptlib.db'), { readonly: true })
  try {
    const rows = db.query('PRAGMA integrity_check').all() as { integrity_check: string }[]
    return rows.map((r) => r.integrity_check).join('; ')
  } finally {
    db.close()
  }
}

export function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1
  return out
}
