// Defects scripts/fuzz.ts found, each pinned: what a hostile client sent, and what the service
// must do instead of what it did.
import { afterAll, describe, expect, test } from 'bun:test'
import { problem, register, setTier } from './support/app'
import { paymentsApp } from './support/billing'

const payments = await paymentsApp()
const t = payments.t
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.handle })
afterAll(async () => {
  await server.stop(true)
  payments.close()
})

describe('validation messages', () => {
  test('name what was expected, never echo the value sent ("[object Object]", an array’s contents)', async () => {
    const bodies: Record<string, unknown>[] = [
      { email: { nested: 'object' }, password: 'x' },
      // Objects no template can print: Elysia built its message with `${value}` and threw a 500 (patches/elysia@1.4.30.patch)
      { email: { toString: 'not a function' }, password: 'x' },
      { email: { valueOf: 1, toString: {} }, password: 'x' },
      { email: 'a@example.com', password: Array.from({ length: 500 }, (_, i) => i) },
    ]
    for (const json of bodies) {
      const body = await problem(await t.request('/api/auth/login', { method: 'POST', json }), 422, 'validation_failed')
      const messages = (body.errors as { path: string; message: string }[]).map((e) => e.message)
      expect(messages.length).toBeGreaterThan(0)
      for (const message of messages) {
        expect(message).toContain('to be string')
        expect(message).not.toContain('[object Object]')
        expect(message).not.toContain('1,2,3')
        expect(message).not.toContain('found')
      }
    }
  })
})

/** Sends a request head declaring `declared` body bytes, a few of them, then closes the connection. */
async function cutOffBody(path: string, headers: Record<string, string>, declared = 5000) {
  const socket = await Bun.connect({ hostname: '127.0.0.1', port: server.port!, socket: { data() {} } })
  const head = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(declared), ...headers })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n\r\n{"id":`)
  await Bun.sleep(50)
  socket.end()
  await Bun.sleep(100)
}

describe('a body cut off by a client that goes away', () => {
  test('is no server error: nothing logged as an error, on every body route, the webhooks included', async () => {
    const { token, user } = await register(t)
    await setTier(t, user.id, 'pro')
    const routes = t.app.routes.filter((r) => r.method === 'POST').map((r) => r.path)
    expect(routes).toContain('/api/payments/webhook')
    expect(routes).toContain('/api/payments/altpay/webhook')
    const before = t.log.lines().length
    for (const path of routes) await cutOffBody(path, { authorization: `Bearer ${token}`, 'stripe-signature': 't=1,v1=00' })
    const errors = t.log
      .lines()
      .slice(before)
      .filter((line) => line.level === 'error')
    expect(errors).toEqual([])
    // and the server answers as before
    expect((await fetch(`http://127.0.0.1:${server.port}/api/health`)).status).toBe(200)
  })
})
