// An incremental parser for text/event-stream (the WHATWG "server-sent events" rules): feed it
// decoded text as it arrives, cut anywhere, and it returns the events completed so far.
// Lines end in CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next
// are one line end); `:` lines are comments; `data:` lines of one event join with "\n"; a
// blank line dispatches; an event without data is dropped, as browsers do.

export interface SseEvent {
  /** the `event:` field, `message` when absent */
  event: string
  data: string
  /** the last `id:` seen so far, if any */
  id: string | undefined
}

export class SseParseError extends Error {}

const LINE_END = /\r\n|\r|\n/g

export class SseParser {
  private pending = ''
  private data: string[] = []
  private dataSize = 0
  private eventType = ''
  private lastId: string | undefined
  /** the previous chunk ended in CR: an LF opening this one belongs to the same line end */
  private skipLeadingLf = false
  private atStart = true

  /** @param maxSize refuse absurd lines and events (in characters) instead of buffering without bound */
  constructor(private readonly maxSize = 1024 * 1024) {}

  push(chunk: string): SseEvent[] {
    let text = chunk
    if (text === '') return []
    if (this.atStart) {
      this.atStart = false
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false
      if (text.charCodeAt(0) === 10) text = text.slice(1)
    }
    const buffer = this.pending + text
    const events: SseEvent[] = []
    let lineStart = 0
    LINE_END.lastIndex = 0
    for (let match = LINE_END.exec(buffer); match !== null; match = LINE_END.exec(buffer)) {
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === buffer.length - 1) this.skipLeadingLf = true
      this.line(buffer.slice(lineStart, match.index), events)
      lineStart = match.index + match[0].length
    }
    this.pending = buffer.slice(lineStart)
    if (this.pending.length > this.maxSize) throw new SseParseError('an event-stream line is too long')
    return events
  }

  /**
   * The stream ended. Strictly, an event not closed by a blank line is discarded; servers that
   * omit the final blank line are common enough that the unfinished event is dispatched instead.
   */
  end(): SseEvent[] {
    const events: SseEvent[] = []
    if (this.pending !== '') this.line(this.pending, events)
    this.pending = ''
    this.line('', events)
    return events
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push({ event: this.eventType || 'message', data: this.data.join('\n'), id: this.lastId })
      this.data = []
      this.dataSize = 0
      this.eventType = ''
      return
    }
    if (line.charCodeAt(0) === 58 /* : */) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    switch (field) {
      case 'data':
        this.data.push(value)
        this.dataSize += value.length + 1
        if (this.dataSize > this.maxSize) throw new SseParseError('an event-stream event is too large')
        break
      case 'event':
        this.eventType = value
        break
      case 'id':
        if (!value.includes('\0')) this.lastId = value
        break
      // `retry` and unknown fields are ignored
    }
  }
}
