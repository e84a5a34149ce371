// The services promptlib calls, misbehaving: an SMTP server that trickles its replies, speaks
// garbage, drops the connection mid-DATA or refuses; a sign-in provider whose user info never
// ends; payment APIs that send their headers and then stall. Real servers on loopback (raw TCP
// for SMTP, Bun.serve for HTTP); the code under test is never mocked.
import { afterAll, describe, expect, test } from 'bun:test'
import { createServer, type Socket } from 'node:net'
import { makeTestApp, register, uniqueEmail } from './support/app'
import { billingCounts, FRONTEND } from './support/billing'
import { startFakePaypal } from './support/fake-paypal'
import { stripeEnv } from './support/fake-stripe'
import { MockProvider, signIn } from './support/oauth-provider'
import { sqlRows } from './support/sql'

// --- a raw SMTP server whose every connection can misbehave in its own way ---------------------

/** How one connection behaves: `delayMs` before each reply; `fail` spoils it at that step (a 550: its first message only). */
interface Behaviour {
  delayMs?: number
  fail?: 'garbage-greeting' | 'drop-mid-data' | 'refuse-550'
}

interface RawSmtp {
  url: string
  /** Message-IDs of the messages accepted (a 250 sent after the final dot) */
  accepted: string[]
  /** every line the clients sent */
  transcript: string[]
  close(): void
}

function rawSmtp(plan: Behaviour[], credentials = ''): Promise<RawSmtp> {
  const accepted: string[] = []
  const transcript: string[] = []
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createServer((socket) => {
    const how = plan[connections++] ?? {}
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    const reply = (line: string) => setTimeout(() => socket.destroyed || socket.write(`${line}\r\n`), how.delayMs ?? 0)
    let buffer = ''
    let inData = false
    let refused = false
    if (how.fail === 'garbage-greeting') {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n\u0000\u00ff')
      return
    }
    reply('220 hostile.test ESMTP')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1')
      for (;;) {
        if (inData) {
          if (how.fail === 'drop-mid-data' && buffer.length > 0) {
            socket.destroy()
            return
          }
          const end = buffer.indexOf('\r\n.\r\n')
          if (end === -1) return
          const message = buffer.slice(0, end)
          buffer = buffer.slice(end + 5)
          inData = false
          // A pooled client keeps the connection after a refusal: only its first message is refused.
          if (how.fail === 'refuse-550' && !refused) {
            refused = true
            reply('550 5.7.1 refused')
            continue
          }
          accepted.push(/^Message-ID:\s*(.*)$/im.exec(message)?.[1]?.trim() ?? '')
          reply('250 2.0.0 queued')
          continue
        }
        const nl = buffer.indexOf('\r\n')
        if (nl === -1) return
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 2)
        transcript.push(line)
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'EHLO') reply(credentials ? '250-hostile.test\r\n250 AUTH PLAIN' : '250 hostile.test')
        else if (verb === 'AUTH') reply('235 2.7.0 accepted')
        else if (verb === 'DATA') {
          inData = true
          reply('354 go on')
        } else if (verb === 'QUIT') reply('221 bye')
        else reply('250 ok')
      }
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      resolve({
        url: `smtp://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}`,
        accepted,
        transcript,
        close() {
          for (const s of sockets) s.destroy()
          server.close()
        },
      })
    }),
  )
}

const message = (key: string) => ({ dedupeKey: key, userId: null, to: 'reader@example.com', subject: `Subject ${key}`, text: `Body of ${key}` })

async function outboxRow(t: Awaited<ReturnType<typeof makeTestApp>>, key: string) {
  const [row] = await sqlRows<{ id: string; status: string; attempts: number }>(
    t.storage,
    'SELECT id, status, attempts FROM mail_outbox WHERE dedupe_key = $1',
    [key],
  )
  return row!
}

/** Runs the worker until the message is settled (sent or failed) or `ms` have passed. */
async function deliverUntilSettled(t: Awaited<ReturnType<typeof makeTestApp>>, key: string, ms: number) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    await t.services.mail.deliverDue()
    if (['sent', 'failed'].includes((await outboxRow(t, key)).status)) return
    await Bun.sleep(20)
  }
}

describe('an SMTP server that misbehaves', () => {
  test('one that trickles its replies past the send deadline: the abandoned attempt delivers nothing, the retry delivers once', async () => {
    // Each reply comes 250 ms late: no single wait reaches the 300 ms socket timeout, but the whole
    // conversation outlasts the 600 ms send deadline. The first connection is slow, the next prompt.
    const smtp = await rawSmtp([{ delayMs: 250 }])
    try {
      const t = await makeTestApp({
        SMTP_URL: smtp.url,
        MAIL_FROM: 'promptlib <billing@promptlib.test>',
        MAIL_SEND_TIMEOUT_MS: '300',
        MAIL_RETRY_BASE_MS: '1500',
        MAIL_MAX_ATTEMPTS: '3',
      })
      await t.services.mail.enqueue(message('trickle'))
      expect(await t.services.mail.deliverDue()).toBe(0)
      expect(await outboxRow(t, 'trickle')).toMatchObject({ status: 'pending', attempts: 1 })
      // Before the retry is due, the slow server would have finished the abandoned conversation.
      await Bun.sleep(1600)
      await deliverUntilSettled(t, 'trickle', 3000)
      const row = await outboxRow(t, 'trickle')
      expect(row).toMatchObject({ status: 'sent', attempts: 2 })
      expect(smtp.accepted).toEqual([`<${row.id}@promptlib.test>`])
      await t.services.mail.stop()
    } finally {
      smtp.close()
    }
  })

  test('garbage instead of a greeting, a connection dropped mid-DATA, a 550: retried as documented, then sent exactly once; no password logged', async () => {
    const password = 'Sm7p-pa55w0rd-never-logged'
    const smtp = await rawSmtp([{ fail: 'garbage-greeting' }, { fail: 'drop-mid-data' }, { fail: 'refuse-550' }], `mailer:${password}`)
    try {
      const t = await makeTestApp({
        SMTP_URL: smtp.url,
        MAIL_FROM: 'promptlib <billing@promptlib.test>',
        MAIL_SEND_TIMEOUT_MS: '500',
        MAIL_RETRY_BASE_MS: '10',
        MAIL_MAX_ATTEMPTS: '5',
      })
      await t.services.mail.enqueue(message('hostile'))
      await deliverUntilSettled(t, 'hostile', 8000)
      const row = await outboxRow(t, 'hostile')
      expect(row).toMatchObject({ status: 'sent', attempts: 4 })
      expect(smtp.accepted).toEqual([`<${row.id}@promptlib.test>`])
      // The client did authenticate with the password (so it was there to leak)…
      expect(smtp.transcript.some((l) => l.startsWith('AUTH PLAIN'))).toBe(true)
      const warnings = t.log.lines().filter((l) => l.msg === 'e-mail not sent; will retry')
      expect(warnings).toHaveLength(3)
      // …and neither the log nor the stored error carries it, plain or base64 (as AUTH PLAIN sends it).
      const plain = Buffer.from(`\u0000mailer\u0000${password}`).toString('base64')
      expect(t.log.text()).not.toContain(password)
      expect(t.log.text()).not.toContain(plain)
      const [stored] = await sqlRows<{ last_error: string | null }>(t.storage, 'SELECT last_error FROM mail_outbox WHERE id = $1', [row.id])
      expect(String(stored!.last_error)).not.toContain(password)
      await t.services.mail.stop()
    } finally {
      smtp.close()
    }
  })
})

// --- a sign-in provider whose answers never end --------------------------------------------------

const idp = await MockProvider.start('oidc')
afterAll(() => idp.stop())

describe('a sign-in provider whose user info never ends', () => {
  test('an endless chunked answer is cut at its size limit: #error=provider_error at once, not a deadline’s worth of buffering', async () => {
    let served = 0
    const endless = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      idleTimeout: 0,
      // No Content-Length: only counting the bytes as they come can tell the answer is too large.
      fetch: () =>
        new Response(
          new ReadableStream({
            async pull(c) {
              await Bun.sleep(1)
              served += 64 * 1024
              c.enqueue(new Uint8Array(64 * 1024).fill(0x20))
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    })
    try {
      const t = await makeTestApp(
        { FRONTEND_URL: FRONTEND, ...idp.env('A'), OAUTH_A_USERINFO_URL: `http://127.0.0.1:${endless.port}/userinfo` },
        { oauthTimeoutMs: 6000 },
      )
      const user = idp.add({ sub: `endless-${Date.now()}`, email: uniqueEmail('endless'), email_verified: true, name: 'E' })
      const started = performance.now()
      const { fragment } = await signIn(t, 'provider-a', user.sub)
      expect({ error: fragment.get('error'), token: fragment.get('access_token') }).toEqual({ error: 'provider_error', token: null })
      expect(performance.now() - started).toBeLessThan(3000)
      // The reader stopped soon after the 1 MiB limit (a few chunks in flight), not at the deadline.
      await Bun.sleep(200)
      expect(served).toBeLessThan(16 * 1024 * 1024)
      // No account was made for the would-be user.
      expect(await sqlRows(t.storage, 'SELECT id FROM users WHERE email = $1', [user.email!])).toHaveLength(0)
    } finally {
      endless.stop(true)
    }
  })
})

describe('a sign-in provider’s token endpoint that misbehaves', () => {
  /** A token endpoint answering 200 and JSON headers, then `body` (a stream that may never end). */
  const tokenEndpoint = (body: () => ReadableStream<Uint8Array>) =>
    Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      idleTimeout: 0,
      fetch: () => new Response(body(), { headers: { 'content-type': 'application/json' } }),
    })

  async function signInThrough(tokenUrl: string, timeoutMs: number) {
    const t = await makeTestApp({ FRONTEND_URL: FRONTEND, ...idp.env('A'), OAUTH_A_TOKEN_URL: tokenUrl }, { oauthTimeoutMs: timeoutMs })
    const user = idp.add({ sub: `token-${Date.now()}-${Math.random()}`, email: uniqueEmail('token'), email_verified: true, name: 'T' })
    const started = performance.now()
    const { fragment } = await signIn(t, 'provider-a', user.sub)
    return { error: fragment.get('error'), token: fragment.get('access_token'), ms: performance.now() - started, t, user }
  }

  test('an endless answer is cut at 1 MiB (provider_error at once), its connection closed; no account', async () => {
    let served = 0
    const endless = tokenEndpoint(
      () =>
        new ReadableStream({
          async pull(c) {
            await Bun.sleep(1)
            served += 64 * 1024
            c.enqueue(new Uint8Array(64 * 1024).fill(0x20))
          },
        }),
    )
    try {
      const result = await signInThrough(`http://127.0.0.1:${endless.port}/token`, 6000)
      expect({ error: result.error, token: result.token }).toEqual({ error: 'provider_error', token: null })
      expect(result.ms).toBeLessThan(3000)
      await Bun.sleep(200)
      const after = served
      await Bun.sleep(300)
      // Nobody reads it any more: what was sent stopped growing, a few chunks past the limit.
      expect(served).toBe(after)
      expect(served).toBeLessThan(16 * 1024 * 1024)
      expect(await sqlRows(result.t.storage, 'SELECT id FROM users WHERE email = $1', [result.user.email!])).toHaveLength(0)
    } finally {
      endless.stop(true)
    }
  })

  test('an answer that stalls after its headers ends at the deadline (provider_unavailable), and the socket with it', async () => {
    let cancelled = false
    const stalled = tokenEndpoint(
      () =>
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"access_token":'))
          },
          cancel() {
            cancelled = true
          },
        }),
    )
    try {
      const result = await signInThrough(`http://127.0.0.1:${stalled.port}/token`, 400)
      expect({ error: result.error, token: result.token }).toEqual({ error: 'provider_unavailable', token: null })
      expect(result.ms).toBeLessThan(2000)
      // The request was aborted, not left to the idle timeout: the upstream sees its client go.
      for (let i = 0; i < 50 && !cancelled; i++) await Bun.sleep(20)
      expect(cancelled).toBe(true)
    } finally {
      stalled.stop(true)
    }
  })

  test('a redirect is never followed: the code and the client credentials stay with the configured endpoint', async () => {
    const elsewhere: string[] = []
    const other = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        elsewhere.push(`${req.method} ${await req.text()} ${req.headers.get('authorization')}`)
        return Response.json({ access_token: 'stolen', token_type: 'bearer' })
      },
    })
    const redirecting = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => new Response(null, { status: 307, headers: { location: `http://127.0.0.1:${other.port}/token` } }),
    })
    try {
      const result = await signInThrough(`http://127.0.0.1:${redirecting.port}/token`, 2000)
      expect({ error: result.error, token: result.token }).toEqual({ error: 'provider_error', token: null })
      expect(elsewhere).toEqual([])
    } finally {
      other.stop(true)
      redirecting.stop(true)
    }
  })
})

// --- payment APIs that answer their headers, then stall -----------------------------------------

/** Answers 200 and a JSON content type at once, then the first bytes of a body that never ends. */
const stalling = () =>
  Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch: () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"id":'))
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      ),
  })

describe('a payment API that sends its headers and then stalls', () => {
  test('card checkout, wallet checkout and the wallet capture end within the call timeout (10 s): 502 or status=error, nothing paid', async () => {
    const stripeApi = stalling()
    const paypalApi = stalling()
    // A capture needs an order first: created at a working fake, captured while the API stalls.
    const paypal = startFakePaypal()
    try {
      const card = await makeTestApp(stripeEnv(`http://127.0.0.1:${stripeApi.port}`))
      const wallet = await makeTestApp({ ...paypal.env(), PAYPAL_API_BASE: `http://127.0.0.1:${paypalApi.port}`, FRONTEND_URL: FRONTEND })
      const [cardUser, walletUser] = await Promise.all([register(card), register(wallet)])
      const started = performance.now()
      const [cardRes, walletRes, returned] = await Promise.all([
        card.request('/api/payments/checkout', { method: 'POST', token: cardUser.token, json: { tier: 'pro' } }),
        wallet.request('/api/payments/altpay/checkout', { method: 'POST', token: walletUser.token, json: { tier: 'lifetime' } }),
        wallet.request('/api/payments/altpay/return?token=ORDER1&PayerID=P1'),
      ])
      expect(performance.now() - started).toBeLessThan(14_000)
      for (const res of [cardRes, walletRes]) {
        expect(res.status).toBe(502)
        expect(res.headers.get('content-type')).toStartWith('application/problem+json')
        expect(((await res.json()) as { code: string }).code).toBe('upstream_unavailable')
      }
      expect(returned.status).toBe(302)
      expect(returned.headers.get('location')).toBe(`${FRONTEND}/billing?status=error`)
      expect(await billingCounts(wallet)).toMatchObject({ payments: 0, subscriptions: 0, mail_outbox: 0 })
      expect(await billingCounts(card)).toMatchObject({ payments: 0, billing_customers: 0 })
    } finally {
      stripeApi.stop(true)
      paypalApi.stop(true)
      paypal.close()
    }
  }, 20_000)
})

describe('a payment API that redirects elsewhere', () => {
  test('the wallet checkout is a 502: its credentials and the order (with the user id) never reach the other origin', async () => {
    let reached = 0
    const elsewhere = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => {
        reached++
        return Response.json({ access_token: 'theirs', expires_in: 3600, id: 'ORDER-X', links: [] })
      },
    })
    const redirecting = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req) => Response.redirect(`http://127.0.0.1:${elsewhere.port}${new URL(req.url).pathname}`, 307),
    })
    const paypal = startFakePaypal()
    try {
      const wallet = await makeTestApp({ ...paypal.env(), PAYPAL_API_BASE: `http://127.0.0.1:${redirecting.port}`, FRONTEND_URL: FRONTEND })
      const user = await register(wallet)
      const res = await wallet.request('/api/payments/altpay/checkout', { method: 'POST', token: user.token, json: { tier: 'lifetime' } })
      expect(res.status).toBe(502)
      expect(((await res.json()) as { code: string }).code).toBe('upstream_unavailable')
      expect(reached).toBe(0)
    } finally {
      elsewhere.stop(true)
      redirecting.stop(true)
      paypal.close()
    }
  })
})
