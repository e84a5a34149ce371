// Structured logging: one JSON object per line on stdout.
// Lines are buffered and flushed every few milliseconds (or when the buffer grows),
// because a synchronous write per request costs more than the request itself.
import type { LogLevel } from './config'

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }
const FLUSH_EVERY_MS = 50
const FLUSH_AT_BYTES = 64 * 1024

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  /** the access-log line, one per request */
  request(line: AccessLogLine): void
  flush(): void
}

export interface AccessLogLine {
  method: string
  route: string | null
  status: number
  duration_ms: number
  request_id: string
}

export interface LogSink {
  write(chunk: string): void
}

// Bun's native file sink: far cheaper per write than the process.stdout stream emulation.
const stdoutWriter = Bun.stdout.writer()
const stdoutSink: LogSink = {
  write(chunk) {
    stdoutWriter.write(chunk)
    stdoutWriter.flush()
  },
}

let lastMs = 0
let lastIso = ''
/** Many log lines share a millisecond under load; format each millisecond once. */
function isoNow(): string {
  const ms = Date.now()
  if (ms !== lastMs) {
    lastMs = ms
    lastIso = new Date(ms).toISOString()
  }
  return lastIso
}

export function createLogger(level: LogLevel = 'info', sink: LogSink = stdoutSink): Logger {
  const threshold = LEVELS[level]
  let buffer = ''
  let timer: ReturnType<typeof setTimeout> | null = null

  function flush() {
    if (timer) {
      clearTimeout(timer)
      timer = null
    }
    if (buffer === '') return
    const chunk = buffer
    buffer = ''
    sink.write(chunk)
  }

  function append(line: string, urgent: boolean) {
    buffer += line
    if (buffer.length >= FLUSH_AT_BYTES || urgent) flush()
    else if (!timer) {
      timer = setTimeout(flush, FLUSH_EVERY_MS)
      timer.unref?.()
    }
  }

  function emit(lvl: LogLevel, msg: string, fields?: LogFields) {
    if (LEVELS[lvl] < threshold) return
    append(JSON.stringify({ time: isoNow(), level: lvl, msg, ...fields }, errorReplacer) + '\n', lvl === 'error')
  }

  if (sink === stdoutSink) process.once('exit', flush)

  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    request(line) {
      if (LEVELS.info < threshold) return
      // The hot path: a template instead of JSON.stringify of an object; strings are quoted
      // directly when they hold nothing that needs escaping.
      append(
        `{"time":"${isoNow()}","level":"info","msg":"request","method":${quote(line.method)},"route":${line.route === null ? 'null' : quote(line.route)},"status":${line.status},"duration_ms":${line.duration_ms},"request_id":${quote(line.request_id)}}\n`,
        false,
      )
    },
    flush,
  }
}

const PLAIN = /^[\w\-.:/{}*]*$/
const quote = (value: string) => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value))

/** Errors serialise to name + message (+ stack for server logs only), never to `{}`. */
function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}

/** A logger that keeps lines in memory: for tests that assert what was (not) logged. */
export function createMemoryLogger(level: LogLevel = 'debug'): Logger & { lines: () => LogFields[]; text: () => string } {
  let text = ''
  const logger = createLogger(level, { write: (c) => (text += c) })
  return {
    ...logger,
    lines: () => {
      logger.flush()
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogFields)
    },
    text: () => {
      logger.flush()
      return text
    },
  }
}
