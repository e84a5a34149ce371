// The access-log line is built by hand for speed; it must still be valid JSON with exact values.
import { describe, expect, test } from 'bun:test'
import { createMemoryLogger, errorReport, hundredths } from '../src/log'
import type { RequestId } from '../src/http/request-context'

describe('hundredths', () => {
  test('formats a duration with at most two decimals, like Math.round(x * 100) / 100 prints', () => {
    for (const ms of [0, 0.004, 0.005, 0.07, 0.1, 0.123, 1, 1.5, 1.05, 12.999, 99.995, 250.25, 1234.5678, 86_400_000.01]) {
      expect(hundredths(ms)).toBe(String(Math.round(ms * 100) / 100))
    }
  })

  test('is valid JSON for every value it is given', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Math.random() * 10 ** (i % 6)
      expect(JSON.parse(hundredths(ms))).toBeCloseTo(ms, 1)
    }
  })
})

describe('access-log line', () => {
  test('quotes hostile methods and routes, and parses as one JSON object', () => {
    const log = createMemoryLogger('info')
    log.request({ method: 'GET', route: '/api/prompts/:prompt_id', status: 200, duration_ms: 0.071, request_id: 'abc-1' as RequestId })
    log.request({ method: 'GE"T\n', route: '/x"}\n{"admin":true', status: 404, duration_ms: 3, request_id: 'abc-2' as RequestId })
    log.request({ method: 'GET', route: null, status: 404, duration_ms: 12.345, request_id: 'abc-3' as RequestId })
    const lines = log.lines()
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      route: '/api/prompts/:prompt_id',
      status: 200,
      duration_ms: 0.07,
      request_id: 'abc-1',
    })
    expect(lines[1]).toMatchObject({ method: 'GE"T\n', route: '/x"}\n{"admin":true', status: 404, duration_ms: 3 })
    expect(lines[2]).toMatchObject({ route: null, duration_ms: 12.35 })
    expect(lines[1]).not.toHaveProperty('admin')
  })

  test('is dropped below the info level', () => {
    const log = createMemoryLogger('warn')
    log.request({ method: 'GET', route: '/api/health', status: 200, duration_ms: 1, request_id: 'x' as RequestId })
    expect(log.lines()).toHaveLength(0)
  })
})

describe('an error in a log line', () => {
  test('a failed query: its cause (the driver’s code and message) is kept, its parameters never are', async () => {
    const { Database } = await import('bun:sqlite')
    const { DrizzleQueryError } = await import('drizzle-orm/errors')
    // The driver's own error, for real; wrapped as drizzle wraps it on PostgreSQL (its message lists the parameters).
    const client = new Database(':memory:')
    client.run('CREATE TABLE users (email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL)')
    const insert = 'INSERT INTO users VALUES (?, ?)'
    const params = ['ada@example.com', '$argon2id$v=19$secret\n    at hiding()']
    client.run(insert, params)
    let cause: unknown
    try {
      client.run(insert, params)
    } catch (error) {
      cause = error
    }
    const failure = new DrizzleQueryError(insert, params, cause as Error)
    expect(failure.message).toContain('secret')
    expect(failure.stack).toContain('secret')

    const log = createMemoryLogger()
    log.error('unhandled error', { error: failure })
    const text = log.text()
    expect(text).not.toContain('secret')
    expect(text).not.toContain('ada@example.com')
    const [line] = log.lines() as { error: { message: string; stack?: string; cause?: { code?: string; message: string } } }[]
    expect(line!.error.message).toBe(`Failed query: ${insert}\nparams: (not logged)`)
    expect(line!.error.stack).toStartWith(`Error: Failed query: ${insert}\nparams: (not logged)\n    at `)
    expect(line!.error.cause).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: expect.stringContaining('UNIQUE constraint failed') })

    // and what the CLI prints for a defect: the same, as lines
    const report = errorReport(failure)
    expect(report).not.toContain('secret')
    expect(report).not.toContain('ada@example.com')
    expect(report.split('\n').slice(0, 3)).toEqual([
      `Error: Failed query: ${insert}`,
      'params: (not logged)',
      expect.stringMatching(/^ {2}cause: SQLiteError SQLITE_CONSTRAINT_UNIQUE: UNIQUE constraint failed/),
    ])
    expect(report).toMatch(/\n {4}at /)
  })

  test('a cause that is its own cause ends the chain', () => {
    const loop = new Error('round and round')
    ;(loop as { cause?: unknown }).cause = loop
    const log = createMemoryLogger()
    log.error('x', { error: loop })
    expect(log.text()).toContain('round and round')
  })
})
