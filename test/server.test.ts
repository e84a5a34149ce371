// The real server process: start on an empty data directory, logs, graceful shutdown.
import { describe, expect, test } from 'bun:test'
import { existsSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { startServer } from './support/process'
import { tempDir, GOOD_PASSWORD } from './support/app'

describe('promptlib serve', () => {
  test('starts on an empty data directory, creates its database and secret (private to this user), serves', async () => {
    const dir = join(tempDir(), 'fresh')
    const server = await startServer({ DATA_DIR: dir, JWT_SECRET: '' })
    try {
      const res = await fetch(`${server.url}/api/health`)
      expect(await res.json()).toMatchObject({ status: 'ok', db: 'ok' })
      expect(res.headers.get('x-request-id')).toBeTruthy()
      expect(existsSync(join(dir, 'promptlib.db'))).toBe(true)
      const mode = (name: string) => (statSync(join(dir, name)).mode & 0o777).toString(8)
      expect(mode('.')).toBe('700')
      expect(['jwt-secret', 'promptlib.db', 'promptlib.db-wal', 'promptlib.db-shm'].map(mode)).toEqual(['600', '600', '600', '600'])
    } finally {
      server.kill()
      await server.exited
    }
    expect(server.output()).toContain('JWT_SECRET is not set')
  })

  test('one JSON log line per request; no password or token in the output', async () => {
    const server = await startServer({ DATA_DIR: tempDir(), AUTH_RATE_LIMIT: '0' })
    const password = 'server log check passphrase'
    const res = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'server-log-1' },
      body: JSON.stringify({ email: 'log@example.com', password, name: 'Log' }),
    })
    const { access_token } = (await res.json()) as { access_token: string }
    await fetch(`${server.url}/api/user/me?secret=query-value`, { headers: { authorization: `Bearer ${access_token}` } })
    server.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    const lines = server
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const requests = lines.filter((l) => l.msg === 'request')
    expect(requests.find((l) => l.request_id === 'server-log-1')).toMatchObject({ method: 'POST', route: '/api/auth/register', status: 201 })
    expect(requests.find((l) => l.route === '/api/user/me')).toMatchObject({ method: 'GET', status: 200 })
    const out = server.output()
    for (const secret of [password, access_token, 'query-value']) expect(out).not.toContain(secret)
  })

  test('a body declared at any size (1 GB, 1 PB) or sent chunked without end: 413 problem+json with X-Request-Id, unread; memory stays put', async () => {
    const server = await startServer({ DATA_DIR: tempDir(), AUTH_RATE_LIMIT: '0' })
    try {
      const port = Number(new URL(server.url).port)
      /** Sends the head, then up to 64 MiB of body as fast as the socket takes it; the answer's head. */
      const send = (head: string, chunked: boolean) =>
        new Promise<string>((resolve) => {
          let answer = ''
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(head)
            const piece = Buffer.alloc(1 << 20, 0x20)
            const frame = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece
            let sent = 0
            const pump = () => {
              while (sent < 64 && !answer && socket.write(frame)) sent++
              if (sent < 64 && !answer) socket.once('drain', pump)
            }
            pump()
          })
          socket.on('data', (d) => {
            answer += d
            if (answer.includes('\r\n\r\n')) {
              socket.destroy()
              resolve(answer)
            }
          })
          socket.on('error', () => resolve(answer))
          socket.on('close', () => resolve(answer))
        })
      const before = server.rssMb()
      for (const [length, chunked] of [
        ['1000000000', false],
        ['1000000000000000', false],
        [null, true],
      ] as const) {
        const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`
        const answer = await send(
          `POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Request-Id: huge-${length}\r\n${framing}\r\n\r\n`,
          chunked,
        )
        expect({ length, status: answer.split('\r\n')[0] }).toEqual({ length, status: 'HTTP/1.1 413 Payload Too Large' })
        expect(answer.toLowerCase()).toContain('content-type: application/problem+json')
        expect(answer.toLowerCase()).toContain(`x-request-id: huge-${length}`)
      }
      expect(server.rssMb() - before).toBeLessThan(48)
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    } finally {
      server.kill()
      await server.exited
    }
  })

  test('SIGTERM: in-flight requests finish, then the process exits 0', async () => {
    // default argon2 cost: a registration takes long enough to be in flight when the signal lands
    const server = await startServer({ DATA_DIR: tempDir(), AUTH_RATE_LIMIT: '0' })
    const inflight = fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'slow@example.com', password: GOOD_PASSWORD, name: 'Slow' }),
    })
    await Bun.sleep(30)
    server.kill('SIGTERM')
    const res = await inflight
    expect(res.status).toBe(201)
    expect(await server.exited).toBe(0)
    expect(server.output()).toContain('"msg":"stopped"')
    await expect(fetch(`${server.url}/api/health`)).rejects.toThrow()
  })

  test('a second signal stops at once: a client that sends its body a byte at a time no longer holds the stop', async () => {
    const server = await startServer({ DATA_DIR: tempDir() })
    const { port } = new URL(server.url)
    const slow = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => slow.once('connect', resolve))
    slow.write('POST /api/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{')
    const trickle = setInterval(() => slow.write(' '), 200)
    try {
      await Bun.sleep(100)
      server.kill('SIGINT')
      await Bun.sleep(500)
      server.kill('SIGINT')
      const started = Date.now()
      expect(await server.exited).toBe(0)
      expect(Date.now() - started).toBeLessThan(5000)
      expect(server.output()).toContain('"msg":"stopped"')
    } finally {
      clearInterval(trickle)
      slow.destroy()
    }
  })
})
