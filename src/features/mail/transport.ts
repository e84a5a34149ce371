// How a message leaves: SMTP through nodemailer when SMTP_URL is set, else a line in the log
// (a first run, a development machine). Either way the outbox decides when and how often.
import type { Transporter } from 'nodemailer'
import type { Logger } from '../../log'

export interface OutgoingMail {
  /** the outbox row's id: the Message-ID is made from it, the same on every attempt */
  id: string
  to: string
  subject: string
  text: string
}

export interface MailTransport {
  readonly kind: 'smtp' | 'log'
  /**
   * Resolves when the message is accepted; throws when it is not (the outbox retries). When
   * `signal` aborts, the attempt stops (its connection is closed), so an abandoned send can never
   * be accepted later behind the outbox's back.
   */
  send(mail: OutgoingMail, signal?: AbortSignal): Promise<void>
  close(): void
}

/** The domain of `promptlib <noreply@example.com>`, for Message-IDs. */
function domainOf(from: string): string {
  return /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost'
}

export function smtpTransport(url: string, from: string, timeoutMs: number): MailTransport {
  // nodemailer (~20 MB of memory) is loaded only when SMTP_URL is set: a moment after start-up
  // (loading blocks the event loop for tens of milliseconds), or with an earlier first message.
  let transporter: Promise<Transporter> | null = null
  let closed = false
  const open = () =>
    (transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      // A small pool: a burst of messages reuses one connection instead of a handshake each.
      nodemailer.createTransport({
        url,
        pool: true,
        maxConnections: 2,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      }),
    ))
  setTimeout(() => void open().catch(() => {}), 500).unref()
  const domain = domainOf(from)
  return {
    kind: 'smtp',
    async send(mail, signal) {
      if (closed) throw new Error('the SMTP transport is closed')
      // A fixed Message-ID: if a worker dies after the server accepted the message but before the
      // outbox recorded it, the retry carries the same id and mail systems can drop the copy.
      // The signal closes the connection of an attempt the outbox gave up on: a server that trickles
      // its replies (each within the socket timeout) would otherwise accept the message after the
      // outbox recorded it unsent, and every retry would deliver another copy.
      const smtp = await open()
      signal?.throwIfAborted()
      await smtp.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, messageId: `<${mail.id}@${domain}>`, signal })
    },
    close() {
      closed = true
      void transporter?.then((smtp) => smtp.close())
    },
  }
}

export function logTransport(log: Logger): MailTransport {
  return {
    kind: 'log',
    async send(mail) {
      log.info('e-mail not sent (SMTP_URL is unset)', { mail_id: mail.id, to: mail.to, subject: mail.subject, text: mail.text })
    },
    close() {},
  }
}
