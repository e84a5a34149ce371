// E-mail through a transactional outbox: a feature queues a message in the same transaction as
// the change it reports (mail.enqueue(message, tx)), so the message exists exactly when the change
// does, and a crash can lose neither. A worker in every instance claims due rows (atomically, so
// two workers never hold the same row), sends them, and settles each row: sent, or back to pending
// with a doubling wait, or failed after the last attempt.
import { createId } from '../../lib/ids'
import type { Tx } from '../../db/storage'
import type { Logger } from '../../log'
import type { MailStore, OutboxRecord } from './store'
import type { MailTransport } from './transport'

export interface MailMessage {
  /** one message per key, however often the event behind it is processed (`lifetime:card:cs_…`) */
  dedupeKey: string
  /** the account it concerns: its messages go when the account does */
  userId: string | null
  to: string
  subject: string
  text: string
}

export interface OutboxSettings {
  sendTimeoutMs: number
  retryBaseMs: number
  maxAttempts: number
  pollMs: number
}

const BATCH = 10
const MAX_RETRY_WAIT_MS = 60 * 60 * 1000
/** Sent and given-up messages are kept this long for inspection, then pruned. */
const KEEP_SETTLED_MS = 30 * 24 * 60 * 60 * 1000

export function createMailService({
  store,
  transport,
  log,
  settings,
}: {
  store: MailStore
  transport: MailTransport
  log: Logger
  settings: OutboxSettings
}) {
  // A send is abandoned after twice the SMTP timeout; its claim lasts three times it, so a live
  // worker always settles its row before another may take it over.
  const sendDeadlineMs = 2 * settings.sendTimeoutMs
  const leaseMs = 3 * settings.sendTimeoutMs

  const retryWait = (attempts: number) => Math.min(MAX_RETRY_WAIT_MS, settings.retryBaseMs * 2 ** Math.max(0, attempts - 1))

  async function sendOne(row: OutboxRecord, token: string): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined
    // At the deadline the attempt is aborted, not just no longer awaited: an abandoned send that
    // went on would deliver a message the outbox is about to record unsent (and send again).
    const abandon = new AbortController()
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new Error(`no answer from the mail server within ${sendDeadlineMs} ms`)
          abandon.abort(error)
          reject(error)
        }, sendDeadlineMs)
      })
      const sending = transport.send({ id: row.id, to: row.toAddress, subject: row.subject, text: row.bodyText }, abandon.signal)
      // Settled apart: once the deadline has won the race, the aborted send's rejection is expected.
      sending.catch(() => {})
      await Promise.race([sending, deadline])
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500)
      const giveUp = row.attempts >= settings.maxAttempts
      const retryAt = giveUp ? null : new Date(Date.now() + retryWait(row.attempts))
      await store.markUnsent(row.id, token, retryAt, reason)
      if (giveUp) log.error('e-mail given up', { mail_id: row.id, attempts: row.attempts, error: reason })
      else log.warn('e-mail not sent; will retry', { mail_id: row.id, attempts: row.attempts, retry_at: retryAt!.toISOString(), error: reason })
      return false
    } finally {
      clearTimeout(timer)
    }
    // false: our lease lapsed and another worker took the row over (it will send it again; the
    // Message-ID is the same, so the copy can be recognised).
    if (!(await store.markSent(row.id, token, new Date()))) log.warn('e-mail sent after its claim lapsed', { mail_id: row.id })
    return true
  }

  /** Claims and sends every message due now, batch after batch; returns how many were sent. */
  async function deliverDue(): Promise<number> {
    let sent = 0
    for (;;) {
      const token = createId()
      const now = new Date()
      const batch = await store.claim(now, new Date(now.getTime() + leaseMs), token, BATCH)
      for (const row of batch) if (await sendOne(row, token)) sent++
      if (batch.length < BATCH) return sent
    }
  }

  // The worker: one pass at a time per process; a wake-up during a pass runs another after it.
  let timer: ReturnType<typeof setInterval> | null = null
  let running: Promise<void> | null = null
  let again = false
  function runPass(): Promise<void> {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      do {
        again = false
        try {
          await deliverDue()
        } catch (error) {
          log.error('e-mail worker pass failed', { error })
        }
      } while (again && timer !== null)
    })().finally(() => {
      running = null
    })
    return running
  }

  return {
    transport: transport.kind,

    /**
     * Queues a message, inside the caller's transaction when `tx` is given (the outbox row commits
     * or rolls back with the change it reports). false when its dedupe key was already queued.
     */
    enqueue(message: MailMessage, tx?: Tx): Promise<boolean> {
      const now = new Date()
      return store.insert(
        {
          id: createId(),
          dedupeKey: message.dedupeKey,
          userId: message.userId,
          toAddress: message.to,
          subject: message.subject,
          bodyText: message.text,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseUntil: null,
          claimToken: null,
          lastError: null,
          createdAt: now,
          sentAt: null,
        },
        tx,
      )
    },

    deliverDue,

    /** Starts this process's worker: a pass every pollMs, and at once on wake(). */
    start() {
      if (timer) return
      timer = setInterval(() => void runPass(), settings.pollMs)
      timer.unref()
      void runPass()
    },

    /** After a transaction that queued mail has committed: deliver now rather than at the next poll. */
    wake() {
      if (timer) void runPass()
    },

    /** Stops the worker; an ongoing pass finishes (its messages are settled) first. */
    async stop() {
      if (timer) clearInterval(timer)
      timer = null
      await running
      transport.close()
    },

    prune: (now = Date.now()) => store.prune(new Date(now - KEEP_SETTLED_MS)),
  }
}

export type MailService = ReturnType<typeof createMailService>
