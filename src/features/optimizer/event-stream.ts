// A one-way text/event-stream to one client, built by hand rather than with Elysia's generator
// handlers: the contract needs exact framing, `: ping` comments in silences, and to learn at
// once when the client goes away (which the engine's request must follow within 100 ms).

const encoder = new TextEncoder()

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx and similar proxies buffer responses unless told not to
  'x-accel-buffering': 'no',
} as const

const PING = encoder.encode(': ping\n\n')

/** `event: NAME` and one `data:` line of JSON (which never contains a raw newline). */
export function formatEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

export class EventChannel {
  readonly body: ReadableStream<Uint8Array>
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null
  private readonly gone = new AbortController()
  private readonly ping: ReturnType<typeof setTimeout>
  private ended = false

  /**
   * @param pingIntervalMs a `: ping` comment goes out after this much silence, so proxies and
   *   clients keep an idle connection open while the engine thinks
   * @param request its signal aborts when the client disconnects (as does the body's cancel)
   */
  constructor(pingIntervalMs: number, request: Request) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller
      },
      cancel: () => this.clientWentAway(),
    })
    this.ping = setTimeout(() => this.write(PING), pingIntervalMs)
    request.signal.addEventListener('abort', () => this.clientWentAway(), { once: true })
    if (request.signal.aborted) this.clientWentAway()
  }

  /** Aborted when the client has gone away; never after end(). */
  get clientGone(): AbortSignal {
    return this.gone.signal
  }

  send(event: string, data: unknown): void {
    this.write(encoder.encode(formatEvent(event, data)))
  }

  /** Closes the stream (a normal end); idempotent. */
  end(): void {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.ping)
    try {
      this.controller?.close()
    } catch {
      // already closed by a cancel
    }
  }

  private write(bytes: Uint8Array): void {
    if (this.ended || this.gone.signal.aborted) return
    try {
      this.controller!.enqueue(bytes)
    } catch {
      this.clientWentAway()
      return
    }
    // Any write restarts the silence clock; after a ping fired this re-arms it.
    this.ping.refresh()
  }

  private clientWentAway(): void {
    if (this.ended || this.gone.signal.aborted) return
    clearTimeout(this.ping)
    this.gone.abort()
  }
}
