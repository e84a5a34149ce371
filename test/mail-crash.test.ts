// None is lost when the process is killed: real server processes (kill -9), the outbox in their
// database (SQLite file or PostgreSQL), a real SMTP server on loopback.
import { afterAll, describe, expect, test } from 'bun:test'
import { processEnv } from './support/app'
import { checkoutCompleted } from './support/billing'
import { signStripe, startFakeStripe } from './support/fake-stripe'
import { freePort, startServer, type ServerProcess } from './support/process'
import { startSmtp } from './support/smtp'

const smtp = await startSmtp()
const stripe = startFakeStripe()
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const s of servers) s.kill('SIGKILL')
  stripe.close()
  await smtp.close()
})

async function start(env: Record<string, string>) {
  const server = await startServer(env)
  servers.push(server)
  return server
}

async function kill9(server: ServerProcess) {
  server.kill('SIGKILL')
  await server.exited
}

async function buyLifetime(url: string): Promise<string> {
  const email = `crash-${crypto.randomUUID()}@example.com`
  const res = await fetch(`${url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a sufficiently long passphrase', name: 'Crash' }),
  })
  const { user } = (await res.json()) as { user: { id: string } }
  const body = checkoutCompleted(user, 'lifetime')
  const delivered = await fetch(`${url}/api/payments/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': await signStripe(body) },
    body,
  })
  expect(delivered.status).toBe(200)
  return email
}

const waitUntil = async (what: string, check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

describe('the outbox survives kill -9', () => {
  test('queued while the mail server is unreachable, the process killed: the next process sends it', async () => {
    // Retries every 50 ms: the kill may land while an attempt holds the row's claim, which then
    // lapses (three times MAIL_SEND_TIMEOUT_MS: 1.5 s here, 90 s by default) before the next sends.
    const base = await processEnv({
      ...stripe.env(),
      MAIL_POLL_MS: '100',
      MAIL_RETRY_BASE_MS: '50',
      MAIL_SEND_TIMEOUT_MS: '500',
      LOG_LEVEL: 'warn',
      DEMO_CATALOGUE: 'false',
    })
    const first = await start({ ...base, SMTP_URL: `smtp://127.0.0.1:${freePort()}` })
    const email = await buyLifetime(first.url)
    await waitUntil('a failed attempt', () => first.output().includes('e-mail not sent; will retry'))
    await kill9(first)
    expect(smtp.received.some((m) => m.to.includes(email))).toBe(false)
    await start({ ...base, SMTP_URL: smtp.url })
    await waitUntil('the e-mail', () => smtp.received.some((m) => m.to.includes(email)))
    await Bun.sleep(300)
    expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(1)
  })

  test('killed in the middle of sending: the claim lapses and the next process sends it, once', async () => {
    // Claims last three times MAIL_SEND_TIMEOUT_MS: 1.5 s here.
    const base = await processEnv({
      ...stripe.env(),
      SMTP_URL: smtp.url,
      MAIL_POLL_MS: '100',
      MAIL_SEND_TIMEOUT_MS: '500',
      LOG_LEVEL: 'warn',
      DEMO_CATALOGUE: 'false',
    })
    const first = await start(base)
    smtp.stall()
    let email = ''
    try {
      const received = smtp.received.length
      email = await buyLifetime(first.url)
      // The message's data has reached the SMTP server, which holds back its answer.
      await waitUntil('the message held by the SMTP server', () => smtp.held === 1)
      await kill9(first)
      expect(smtp.received.length).toBe(received)
    } finally {
      smtp.release()
    }
    const started = Date.now()
    await start(base)
    await waitUntil('the e-mail', () => smtp.received.some((m) => m.to.includes(email)))
    expect(Date.now() - started).toBeLessThan(8000)
    await Bun.sleep(300)
    expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(1)
  })
})
