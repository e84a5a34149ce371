// Server-Sent Events to one client, built by hand rather than with Elysia's generator handlers:
// the contract needs exact framing, `: ping` comments in silences, and to learn at once when the
// client goes away (the optimizer's engine request must follow within 100 ms). The events come
// from a service as an async iterable of plain values; this file is all the HTTP there is to them.

const encoder = new TextEncoder()

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx and similar proxies buffer responses unless told not to
  'x-accel-buffering': 'no',
} as const

const PING = encoder.encode(': ping\n\n')

export interface StreamEvent {
  event: string
  data: unknown
}

/** `event: NAME` and one `data:` line of JSON (which never contains a raw newline). */
export function formatEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * Aborted when the client of `request` disconnects. Made before the response, so the work that
 * produces the events can be handed its signal while refusals (429 …) are still possible.
 */
export function clientGoneController(request: Request): AbortController {
  const gone = new AbortController()
  if (request.signal.aborted) gone.abort()
  else request.signal.addEventListener('abort', () => gone.abort(), { once: true })
  return gone
}

export interface EventStreamOptions {
  /** aborted when the client goes away (the request's signal, the body's cancel, a failed write) */
  gone: AbortController
  /** a `: ping` comment goes out after this much silence, so proxies keep an idle connection open */
  pingIntervalMs: number
  headers?: Record<string, string>
  /** the events' producer threw: the stream ends there */
  onError(error: unknown): void
}

/**
 * A `text/event-stream` response that sends each event of `events` as it comes. The events are
 * read to their end even after the client left (the writes are dropped then): the producer must
 * end promptly once `gone` aborts, and finishes its own bookkeeping that way.
 */
export function eventStreamResponse(events: AsyncIterable<StreamEvent>, options: EventStreamOptions): Response {
  const channel = new EventChannel(options.pingIntervalMs, options.gone)
  void (async () => {
    try {
      for await (const { event, data } of events) channel.send(event, data)
    } catch (error) {
      options.onError(error)
    } finally {
      channel.end()
    }
  })()
  return new Response(channel.body, { headers: options.headers ? { ...EVENT_STREAM_HEADERS, ...options.headers } : EVENT_STREAM_HEADERS })
}

class EventChannel {
  readonly body: ReadableStream<Uint8Array>
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null
  private readonly ping: ReturnType<typeof setTimeout>
  private ended = false

  constructor(
    pingIntervalMs: number,
    private readonly gone: AbortController,
  ) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller
      },
      cancel: () => this.clientWentAway(),
    })
    this.ping = setTimeout(() => this.write(PING), pingIntervalMs)
    gone.signal.addEventListener('abort', () => clearTimeout(this.ping), { once: true })
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

  /** Never after end(): a request signal that aborts once the response is complete means nothing. */
  private clientWentAway(): void {
    if (this.ended || this.gone.signal.aborted) return
    this.gone.abort()
  }
}
