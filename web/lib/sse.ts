// Server-Sent Events read from a fetch body (the optimizer's stream is a POST, which EventSource
// cannot send). Feed it text as it arrives; it hands back complete events. Pure (no DOM).

export interface ServerEvent {
  event: string
  data: string
}

export class SseParser {
  private buffer = ''
  private event = ''
  private data: string[] = []

  /** The events completed by this chunk (a chunk may end in the middle of a line). */
  push(chunk: string): ServerEvent[] {
    this.buffer += chunk
    const events: ServerEvent[] = []
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/)
      if (end === -1) break
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[end] === '\r' && end === this.buffer.length - 1) break
      const line = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1))
      const done = this.line(line)
      if (done) events.push(done)
    }
    return events
  }

  private line(line: string): ServerEvent | null {
    if (line === '') {
      if (this.data.length === 0 && this.event === '') return null
      const event = { event: this.event || 'message', data: this.data.join('\n') }
      this.event = ''
      this.data = []
      return event
    }
    if (line.startsWith(':')) return null // a comment (`: ping`)
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') this.event = value
    else if (field === 'data') this.data.push(value)
    return null
  }
}
