// A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives, and can
// refuse messages (a temporary failure, 451) or stall before answering DATA, for the outbox tests.
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  from: string
  to: string[]
  /** the message as sent: headers and body */
  raw: string
  messageId: string | null
  subject: string | null
  /** when the server accepted it (ms): a copy after a kill must follow one */
  receivedAt: number
}

export interface TestSmtp {
  url: string
  port: number
  received: ReceivedMail[]
  /** the next n messages are refused with 451 (a temporary failure) */
  refuseNext(n: number): void
  /** hold DATA answers until release() (the sender waits: a kill lands mid-send; a sender gone by then delivered nothing) */
  stall(): void
  release(): void
  /** messages whose answer is being held by stall() */
  readonly held: number
  /** resolves once `count` messages have been received */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>
  close(): Promise<void>
}

const header = (raw: string, name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(raw.split(/\r?\n\r?\n/)[0] ?? '')?.[1]?.trim() ?? null

export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = []
  let refuse = 0
  let stalled: (() => void)[] | null = null
  const closed = new Set<string>()
  const server = new SMTPServer({
    authOptional: true,
    onClose(session) {
      closed.add(session.id)
    },
    // Plain SMTP on loopback: no certificate to trust.
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Pooled client connections are cut after this long when the tests end.
    closeTimeout: 200,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const finish = () => {
          // A client that went away before our answer: no 250 was sent, so nothing was accepted.
          if (closed.has(session.id)) return
          if (refuse > 0) {
            refuse--
            const error = Object.assign(new Error('try again later'), { responseCode: 451 })
            return callback(error)
          }
          const raw = Buffer.concat(chunks).toString('utf8')
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            messageId: header(raw, 'Message-ID'),
            subject: header(raw, 'Subject'),
            receivedAt: Date.now(),
          })
          callback(null)
        }
        if (stalled) stalled.push(finish)
        else finish()
      })
    },
  })
  // A client killed mid-conversation (the crash tests, scripts/crash.ts) resets its connection: expected, not an error.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') console.error('smtp server:', error)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as { port: number }).port
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    refuseNext: (n) => {
      refuse = n
    },
    stall: () => {
      stalled = []
    },
    get held() {
      return stalled?.length ?? 0
    },
    release: () => {
      const waiting = stalled ?? []
      stalled = null
      for (const finish of waiting) finish()
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} e-mail(s), got ${received.length}`)
        await Bun.sleep(20)
      }
      return received
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
