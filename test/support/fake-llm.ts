// A fake OpenAI-compatible chat-completions server on loopback, written on raw TCP (Bun.listen)
// so it can misbehave the way real upstreams do: answer slowly, fail before the first token
// (HTTP 500, a dropped connection, no answer at all), fail mid-stream, split UTF-8 characters
// across writes, or hold a stream open. It records each request and when its client went away.
// Used by the tests and by scripts/bench-optimizer.ts (which also runs it as its own process).

export interface FakeLlmScript {
  /** the text pieces, sent as choices[0].delta.content (default: three short pieces) */
  tokens?: string[]
  /** wait this long before the response headers */
  headerDelayMs?: number
  /** wait this long before each piece */
  tokenDelayMs?: number
  /** answer this status with a JSON error body instead of a stream */
  status?: number
  /** close the connection without answering at all */
  dropBeforeHeaders?: boolean
  /** after this many pieces, fail the way `failHow` says */
  failAfter?: number
  failHow?: 'drop' | 'garbage' | 'error-event' | 'truncate' | 'hang'
  /** send the usage chunk (stream_options.include_usage) before [DONE]; default true */
  usage?: boolean
  /** default '\n' */
  lineEnding?: '\n' | '\r\n'
  /** send each event in two writes cut inside its bytes (in the middle of a UTF-8 character when there is one) */
  splitWrites?: boolean
  /** answer one JSON completion, as servers that ignore stream: true do */
  json?: boolean
  /** after the last piece, keep the stream open instead of finishing */
  hold?: boolean
  /** wait this long between [DONE] and the end of the body */
  endDelayMs?: number
}

export interface FakeLlmRequest {
  /** which TCP connection carried it (1, 2, …): equal numbers mean a reused keep-alive connection */
  connection: number
  method: string
  path: string
  headers: Record<string, string>
  // biome-ignore lint: the parsed request body, inspected loosely by tests
  body: any
  receivedAt: number
  /** performance.now() when the client closed the connection before the answer was complete */
  clientGoneAt: number | null
  completed: boolean
}

export const FAKE_USAGE = { prompt_tokens: 321, completion_tokens: 123 }
export const SECRET_IN_ERROR_BODY = 'upstream-internal-detail-do-not-forward'

interface Conn {
  id: number
  buffer: Buffer
  request?: FakeLlmRequest
  closed: boolean
  pending: Buffer[]
  timers: Set<ReturnType<typeof setTimeout>>
}

const sleep = (conn: Conn, ms: number) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve()
    const timer = setTimeout(() => {
      conn.timers.delete(timer)
      resolve()
    }, ms)
    conn.timers.add(timer)
  })

export class FakeLlm {
  readonly requests: FakeLlmRequest[] = []
  /** the behaviour for the next requests; a function decides per request */
  script: FakeLlmScript | ((request: FakeLlmRequest) => FakeLlmScript) = {}
  private readonly listener: Bun.TCPSocketListener<Conn>
  private readonly waiters = new Set<() => void>()
  private connections = 0

  constructor(port = 0) {
    this.listener = Bun.listen<Conn>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open: (socket) => {
          socket.data = { id: ++this.connections, buffer: Buffer.alloc(0), closed: false, pending: [], timers: new Set() }
        },
        data: (socket, chunk) => {
          const conn = socket.data
          conn.buffer = Buffer.concat([conn.buffer, chunk])
          this.next(socket, conn)
        },
        drain: (socket) => flush(socket),
        close: (socket) => {
          const conn = socket.data
          conn.closed = true
          for (const timer of conn.timers) clearTimeout(timer)
          if (conn.request && !conn.request.completed && conn.request.clientGoneAt === null) {
            conn.request.clientGoneAt = performance.now()
            for (const wake of this.waiters) wake()
          }
        },
      },
    })
  }

  get url(): string {
    return `http://127.0.0.1:${this.listener.port}/v1`
  }

  stop(): void {
    this.listener.stop(true)
  }

  /** Resolves once the client of `request` has gone away (or after `timeoutMs`, with null). */
  async clientGone(request: FakeLlmRequest, timeoutMs = 2000): Promise<number | null> {
    const deadline = performance.now() + timeoutMs
    while (request.clientGoneAt === null && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(wake, Math.max(1, deadline - performance.now()))
        this.waiters.add(wake)
      })
    }
    return request.clientGoneAt
  }

  /** Waits until `count` requests have arrived. */
  async waitForRequests(count: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`fake LLM: expected ${count} requests, got ${this.requests.length}`)
      await Bun.sleep(2)
    }
  }

  /** Starts answering the next complete request on a connection, unless one is in progress. */
  private next(socket: Socket, conn: Conn): void {
    if (conn.request && !conn.request.completed) return
    const parsed = this.parse(conn.buffer, conn.id)
    if (!parsed) return
    conn.buffer = conn.buffer.subarray(parsed.consumed)
    conn.request = parsed.request
    this.requests.push(parsed.request)
    void this.answer(socket, conn, parsed.request)
  }

  private parse(buffer: Buffer, connection: number): { request: FakeLlmRequest; consumed: number } | null {
    const end = buffer.indexOf('\r\n\r\n')
    if (end === -1) return null
    const [requestLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    if (buffer.length < end + 4 + length) return null
    const [method = '', path = ''] = requestLine.split(' ')
    const text = buffer.subarray(end + 4, end + 4 + length).toString('utf8')
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {}
    const request = { connection, method, path, headers, body, receivedAt: performance.now(), clientGoneAt: null, completed: false }
    return { request, consumed: end + 4 + length }
  }

  private async answer(socket: Socket, conn: Conn, request: FakeLlmRequest): Promise<void> {
    const script = typeof this.script === 'function' ? this.script(request) : this.script
    const write = (data: string | Buffer) => {
      if (!conn.closed) send(socket, typeof data === 'string' ? Buffer.from(data) : data)
    }
    const chunk = (data: Buffer) => write(Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]))
    // A stream that ends well keeps the connection open for the next request (keep-alive), as
    // real upstreams do; every failure closes it.
    const keepAlive = request.headers.connection?.toLowerCase() !== 'close'
    const finish = () => {
      request.completed = true
      write('0\r\n\r\n')
      if (keepAlive) this.next(socket, conn)
      else socket.end()
    }
    if (request.method === 'PUT' && request.path === '/__script') {
      // The control endpoint of a fake running as its own process: replace the script.
      this.script = request.body as FakeLlmScript
      request.completed = true
      write('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n')
      return void socket.end()
    }
    await sleep(conn, script.headerDelayMs ?? 0)
    if (conn.closed) return
    if (script.dropBeforeHeaders || request.method !== 'POST' || !request.path.endsWith('/chat/completions')) {
      request.completed = !script.dropBeforeHeaders
      if (!script.dropBeforeHeaders) write('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
      return void socket.end()
    }
    if (script.status !== undefined) {
      const body = JSON.stringify({ error: { message: `${SECRET_IN_ERROR_BODY} ${request.headers.authorization ?? ''}`, type: 'server_error' } })
      write(
        `HTTP/1.1 ${script.status} Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      )
      request.completed = true
      return void socket.end()
    }
    const tokens = script.tokens ?? ['Rewritten ', 'prompt: ', 'be specific.']
    if (script.json) {
      const body = JSON.stringify({
        choices: [{ index: 0, message: { role: 'assistant', content: tokens.join('') }, finish_reason: 'stop' }],
        usage: FAKE_USAGE,
      })
      write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
      request.completed = true
      return void socket.end()
    }
    write(
      `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`,
    )
    const nl = script.lineEnding ?? '\n'
    const event = async (payload: string) => {
      const bytes = Buffer.from(`data: ${payload}${nl}${nl}`)
      if (!script.splitWrites) return chunk(bytes)
      // Cut inside a multi-byte character when there is one, else in the middle.
      const multi = bytes.findIndex((b) => b >= 0xc0)
      const cut = multi >= 0 ? multi + 1 : bytes.length >> 1
      chunk(bytes.subarray(0, cut))
      await sleep(conn, 2)
      chunk(bytes.subarray(cut))
    }
    const delta = (content: string, finish: string | null = null) =>
      JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })
    chunk(Buffer.from(`: fake upstream${nl}${nl}`))
    for (let i = 0; i <= tokens.length; i++) {
      // A failure takes the place of the next piece, one token delay after the last one.
      const failing = script.failAfter === i
      if (i < tokens.length || failing) await sleep(conn, script.tokenDelayMs ?? 0)
      if (conn.closed) return
      if (failing) return this.fail(socket, conn, request, script, chunk)
      if (i < tokens.length) await event(delta(tokens[i]!))
    }
    if (script.hold) return // the connection stays open until the client leaves
    await event(delta('', 'stop'))
    if (script.usage !== false) await event(JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage: FAKE_USAGE }))
    await event('[DONE]')
    await sleep(conn, script.endDelayMs ?? 0)
    if (!conn.closed) finish()
  }

  private fail(socket: Socket, conn: Conn, request: FakeLlmRequest, script: FakeLlmScript, chunk: (data: Buffer) => void): void {
    const nl = script.lineEnding ?? '\n'
    switch (script.failHow ?? 'drop') {
      case 'drop':
        request.completed = true
        return void socket.end() // no terminating chunk: the body breaks off
      case 'garbage':
        chunk(Buffer.from(`data: {this is not json${nl}${nl}`))
        return
      case 'error-event':
        chunk(Buffer.from(`data: ${JSON.stringify({ error: { message: SECRET_IN_ERROR_BODY } })}${nl}${nl}`))
        return
      case 'truncate': // a clean end of the body, but no finish_reason and no [DONE]
        request.completed = true
        send(socket, Buffer.from('0\r\n\r\n'))
        return void socket.end()
      case 'hang':
        return
    }
  }
}

type Socket = Bun.Socket<Conn>

/** Writes with backpressure: what the kernel does not take now waits for the drain callback. */
function send(socket: Socket, data: Buffer): void {
  const conn = socket.data
  if (conn.pending.length > 0) return void conn.pending.push(data)
  const written = socket.write(data)
  if (written < data.length) conn.pending.push(data.subarray(Math.max(0, written)))
}

function flush(socket: Socket): void {
  const conn = socket.data
  while (conn.pending.length > 0) {
    const next = conn.pending[0]!
    const written = socket.write(next)
    if (written < next.length) {
      conn.pending[0] = next.subarray(Math.max(0, written))
      return
    }
    conn.pending.shift()
  }
}

// `bun test/support/fake-llm.ts PORT`: run it as a process of its own (the benchmark does).
if (import.meta.main) {
  const fake = new FakeLlm(Number(process.argv[2] ?? 0))
  const script = process.argv[3]
  if (script) fake.script = JSON.parse(script) as FakeLlmScript
  console.log(fake.url)
}
