// The e-mail outbox (src/features/mail): rows written in the transaction of the change they
// report, delivered by workers over SMTP to a real SMTP server on loopback (smtp-server), with
// retries and backoff, at most once per event, or written to the log without SMTP_URL.
import { afterAll, describe, expect, test } from 'bun:test'
import { createMail } from '../src/features/mail'
import { makeTestApp, register, TEST_ENGINE } from './support/app'
import { checkoutCompleted, paymentsApp } from './support/billing'
import { startSmtp } from './support/smtp'
import { sqlRows, sqlRun } from './support/sql'

const smtp = await startSmtp()
afterAll(() => smtp.close())

const settings = (extra: Record<string, string> = {}) => ({
  SMTP_URL: smtp.url,
  MAIL_FROM: 'promptlib <billing@promptlib.test>',
  MAIL_RETRY_BASE_MS: '40',
  MAIL_MAX_ATTEMPTS: '3',
  ...extra,
})
const message = (key: string, to = 'someone@example.com') => ({ dedupeKey: key, userId: null, to, subject: `Subject ${key}`, text: `Body of ${key}` })
const rowOf = async (t: { storage: Parameters<typeof sqlRows>[0] }, key: string) =>
  (
    await sqlRows<{ status: string; attempts: number; last_error: string | null }>(
      t.storage,
      'SELECT status, attempts, last_error FROM mail_outbox WHERE dedupe_key = $1',
      [key],
    )
  )[0]
const receivedFor = (key: string) => smtp.received.filter((m) => m.subject === `Subject ${key}`)

describe('queueing', () => {
  test('a row commits with its transaction, or not at all; one per dedupe key', async () => {
    const t = await makeTestApp(settings())
    const mail = t.services.mail
    await expect(
      t.storage.transaction(async (tx) => {
        await mail.enqueue(message('rolled-back'), tx)
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await rowOf(t, 'rolled-back')).toBeUndefined()
    expect(await t.storage.transaction((tx) => mail.enqueue(message('kept'), tx))).toBe(true)
    expect(await mail.enqueue(message('kept'))).toBe(false)
    expect(await rowOf(t, 'kept')).toMatchObject({ status: 'pending', attempts: 0 })
  })
})

describe('delivery over SMTP', () => {
  test('a payment’s confirmation reaches the SMTP server once, with a Message-ID made from the outbox row', async () => {
    const p = await paymentsApp(settings())
    try {
      const user = await register(p.t)
      expect((await p.deliverCard(checkoutCompleted(user.user, 'lifetime'))).status).toBe(200)
      const before = smtp.received.length
      expect(await p.t.services.mail.deliverDue()).toBe(1)
      expect(await p.t.services.mail.deliverDue()).toBe(0)
      const [sent] = smtp.received.slice(before)
      expect(smtp.received.length).toBe(before + 1)
      expect(sent!.to).toEqual([user.email])
      expect(sent!.from).toBe('billing@promptlib.test')
      expect(sent!.subject).toBe('Your promptlib lifetime access')
      expect(sent!.raw).toContain('lifetime access')
      const [row] = await sqlRows<{ id: string; status: string; sent_at: unknown }>(
        p.t.storage,
        'SELECT id, status, sent_at FROM mail_outbox WHERE user_id = $1',
        [user.user.id],
      )
      expect(sent!.messageId).toBe(`<${row!.id}@promptlib.test>`)
      expect(row!.status).toBe('sent')
      expect(row!.sent_at).not.toBeNull()
    } finally {
      p.close()
    }
  })

  test('a refused message is retried after a doubling wait, then sent', async () => {
    // Waits of 200 and then 400 ms: a "not yet" check has 200 ms to spare on a busy machine (with
    // waits of 40 and 80 ms it had 30, and a loaded CI run once went past them).
    const t = await makeTestApp(settings({ MAIL_RETRY_BASE_MS: '200' }))
    await t.services.mail.enqueue(message('retry'))
    smtp.refuseNext(2)
    expect(await t.services.mail.deliverDue()).toBe(0)
    expect(await rowOf(t, 'retry')).toMatchObject({ status: 'pending', attempts: 1 })
    expect((await rowOf(t, 'retry'))!.last_error).toContain('451')
    // Not due yet: nothing is claimed.
    expect(await t.services.mail.deliverDue()).toBe(0)
    expect(await rowOf(t, 'retry')).toMatchObject({ attempts: 1 })
    await Bun.sleep(260)
    expect(await t.services.mail.deliverDue()).toBe(0)
    expect(await rowOf(t, 'retry')).toMatchObject({ status: 'pending', attempts: 2 })
    await Bun.sleep(200)
    expect(await t.services.mail.deliverDue()).toBe(0) // the second wait is 400 ms
    await Bun.sleep(260)
    expect(await t.services.mail.deliverDue()).toBe(1)
    expect(await rowOf(t, 'retry')).toMatchObject({ status: 'sent', attempts: 3 })
    expect(receivedFor('retry')).toHaveLength(1)
  })

  test('after MAIL_MAX_ATTEMPTS the message is given up (failed, logged as an error)', async () => {
    const t = await makeTestApp(settings({ MAIL_MAX_ATTEMPTS: '2', MAIL_RETRY_BASE_MS: '10' }))
    await t.services.mail.enqueue(message('doomed'))
    smtp.refuseNext(5)
    await t.services.mail.deliverDue()
    await Bun.sleep(20)
    await t.services.mail.deliverDue()
    expect(await rowOf(t, 'doomed')).toMatchObject({ status: 'failed', attempts: 2 })
    await Bun.sleep(30)
    expect(await t.services.mail.deliverDue()).toBe(0)
    smtp.refuseNext(0)
    expect(t.log.lines().some((l) => l.level === 'error' && l.msg === 'e-mail given up')).toBe(true)
    expect(receivedFor('doomed')).toHaveLength(0)
  })

  test('workers running at once (and, on PostgreSQL, two instances) send each message exactly once', async () => {
    const t = await makeTestApp(settings())
    const keys = Array.from({ length: 40 }, (_, i) => `burst-${TEST_ENGINE}-${i}`)
    for (const key of keys) await t.services.mail.enqueue(message(key))
    const workers = [t.services.mail, createMail({ storage: t.storage, config: t.config, log: t.log })]
    let second: { close(): Promise<void> } | null = null
    if (t.storage.engine === 'postgres') {
      const { openStorage } = await import('../src/db')
      const { storage } = await openStorage(t.config, { poolSize: 2 })
      workers.push(createMail({ storage, config: t.config, log: t.log }))
      second = storage
    }
    const sent = await Promise.all([...workers, ...workers].map((w) => w.deliverDue()))
    await second?.close()
    expect(sent.reduce((a, b) => a + b, 0)).toBe(40)
    for (const key of keys) expect({ key, n: receivedFor(key).length }).toEqual({ key, n: 1 })
  })

  test('a claim whose worker died lapses and another worker sends the message; a live claim is left alone', async () => {
    const t = await makeTestApp(settings())
    await t.services.mail.enqueue(message('orphan'))
    await t.services.mail.enqueue(message('claimed'))
    await sqlRun(
      t.storage,
      "UPDATE mail_outbox SET status = 'sending', attempts = 1, claim_token = 'dead', lease_until = $1 WHERE dedupe_key = 'orphan'",
      [new Date(Date.now() - 1)],
    )
    await sqlRun(
      t.storage,
      "UPDATE mail_outbox SET status = 'sending', attempts = 1, claim_token = 'alive', lease_until = $1 WHERE dedupe_key = 'claimed'",
      [new Date(Date.now() + 60_000)],
    )
    expect(await t.services.mail.deliverDue()).toBe(1)
    expect(receivedFor('orphan')).toHaveLength(1)
    expect(receivedFor('claimed')).toHaveLength(0)
    expect(await rowOf(t, 'orphan')).toMatchObject({ status: 'sent', attempts: 2 })
  })

  test('the worker sends what its own process queued at once, without waiting for the next poll', async () => {
    const p = await paymentsApp(settings({ MAIL_POLL_MS: '600000' }))
    p.t.services.mail.start()
    try {
      const user = await register(p.t)
      await p.deliverCard(checkoutCompleted(user.user, 'lifetime'))
      const deadline = Date.now() + 5000
      while (!smtp.received.some((m) => m.to.includes(user.email)) && Date.now() < deadline) await Bun.sleep(10)
      expect(smtp.received.filter((m) => m.to.includes(user.email))).toHaveLength(1)
    } finally {
      await p.t.services.mail.stop()
      p.close()
    }
  })
})

describe('without SMTP_URL', () => {
  test('messages are written to the log and marked sent', async () => {
    const t = await makeTestApp()
    expect(t.services.mail.transport).toBe('log')
    await t.services.mail.enqueue(message('logged', 'reader@example.com'))
    expect(await t.services.mail.deliverDue()).toBe(1)
    const line = t.log.lines().find((l) => l.msg === 'e-mail not sent (SMTP_URL is unset)')
    expect(line).toMatchObject({ to: 'reader@example.com', subject: 'Subject logged', text: 'Body of logged' })
    expect(await rowOf(t, 'logged')).toMatchObject({ status: 'sent' })
  })
})
