// A strict event-stream reader for tests, independent of the server's own parser: it reads a
// real Response body as it arrives, keeps comment lines (`: ping`) apart from events, records
// when each arrived, and insists on the exact framing the service promises (LF line ends,
// one `event:` and one `data:` line per event, data always JSON).

export interface ReceivedEvent {
  event: string
  // biome-ignore lint: event payloads are inspected loosely by tests
  data: any
  /** performance.now() when the event's last byte arrived */
  at: number
}

export interface ReceivedComment {
  text: string
  at: number
}

export class SseReader {
  readonly events: ReceivedEvent[] = []
  readonly comments: ReceivedComment[] = []
  raw = ''
  private buffer = ''
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> }
  private readonly decoder = new TextDecoder()
  private queue: ReceivedEvent[] = []
  ended = false

  constructor(readonly response: Response) {
    if (!response.body) throw new Error('response has no body')
    this.reader = response.body.getReader()
  }

  /** The next event, or null when the stream ended. */
  async next(): Promise<ReceivedEvent | null> {
    while (this.queue.length === 0) {
      if (this.ended) return null
      const { done, value } = await this.reader.read()
      if (done) {
        this.ended = true
        if (this.buffer !== '') throw new Error(`stream ended inside an event: ${JSON.stringify(this.buffer)}`)
        return null
      }
      const text = this.decoder.decode(value, { stream: true })
      this.raw += text
      this.buffer += text
      this.drain()
    }
    return this.queue.shift()!
  }

  /** Reads to the end; returns every event. */
  async all(): Promise<ReceivedEvent[]> {
    while ((await this.next()) !== null) {}
    return this.events
  }

  /** Stops reading and closes the connection (the client goes away). */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {})
  }

  private drain(): void {
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 2)
      const at = performance.now()
      if (block.includes('\r')) throw new Error(`unexpected CR in ${JSON.stringify(block)}`)
      const lines = block.split('\n')
      if (lines.every((line) => line.startsWith(':'))) {
        for (const line of lines) this.comments.push({ text: line.slice(1).trim(), at })
        continue
      }
      const [eventLine, dataLine, ...rest] = lines
      if (!eventLine?.startsWith('event: ') || !dataLine?.startsWith('data: ') || rest.length > 0) {
        throw new Error(`malformed event block: ${JSON.stringify(block)}`)
      }
      const event = { event: eventLine.slice(7), data: JSON.parse(dataLine.slice(6)), at }
      this.events.push(event)
      this.queue.push(event)
    }
  }
}

/** The names of the events, with runs of `delta` collapsed: ['start', 'delta*', 'done']. */
export function sequence(events: ReceivedEvent[]): string[] {
  const names: string[] = []
  for (const e of events) {
    const name = e.event === 'delta' ? 'delta*' : e.event
    if (name !== 'delta*' || names.at(-1) !== 'delta*') names.push(name)
  }
  return names
}

/** The text of every delta, joined. */
export const deltaText = (events: ReceivedEvent[]) =>
  events
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text as string)
    .join('')
