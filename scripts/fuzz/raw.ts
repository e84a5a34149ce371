// Hostile bytes over a raw TCP socket, where fetch would refuse to send them or would fix them:
// invalid UTF-8 and NUL in bodies, paths and headers; huge bodies (declared and chunked); deeply
// nested JSON; header floods; bad and conflicting Content-Length and Transfer-Encoding; garbage
// request lines; pipelined requests; slowloris-style partial requests, bounded in time.
import fc from 'fast-check'

export interface RawCase {
  kind: 'raw'
  name: string
  /** written in order, each after its pause */
  chunks: { bytes: Uint8Array; delayMs: number }[]
  /** the longest to wait for an answer after the last write (a partial request the server rightly waits on) */
  waitMs: number
}

export interface RawContext {
  /** a pro user's JWT, so bodies reach the handlers behind authentication */
  token: string
  /** a prompt the server has */
  promptId: string
}

export interface RawAnswer {
  /** the status of every response on the connection, in order (pipelining gives several) */
  statuses: number[]
  text: string
  /** the server closed the connection (as opposed to us, after waiting) */
  closedByServer: boolean
}

const bytes = (...parts: (string | Uint8Array)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))))

const utf8 = (text: string) => Buffer.from(text, 'utf8')

const once = (data: Uint8Array, name: string, waitMs = 3000): RawCase => ({ kind: 'raw', name, chunks: [{ bytes: data, delayMs: 0 }], waitMs })

/** A request with `connection: close`: the server ends the connection once it has answered. */
function request(method: string, target: string, headers: string[], body: Uint8Array | string = ''): Uint8Array {
  const payload = typeof body === 'string' ? utf8(body) : body
  const head = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', ...headers].join('\r\n')
  return bytes(head, '\r\n\r\n', payload)
}

const jsonPost = (target: string, body: Uint8Array | string, ctx: RawContext, extra: string[] = []) => {
  const payload = typeof body === 'string' ? utf8(body) : body
  return request(
    'POST',
    target,
    ['content-type: application/json', `authorization: Bearer ${ctx.token}`, `content-length: ${payload.length}`, ...extra],
    payload,
  )
}

const POST_TARGETS = [
  '/api/auth/login',
  '/api/auth/register',
  '/api/user/favorites',
  '/api/user/tokens',
  '/api/optimizer/optimize',
  '/api/payments/webhook',
  '/api/payments/altpay/webhook',
  '/api/payments/checkout',
  '/api/user/password',
]
const GET_TARGETS = ['/api/search?q=', '/api/prompts/', '/api/categories/', '/api/skills/search?q=', '/api/user/favorites?limit=', '/api/health?x=']

const INVALID_UTF8: Uint8Array[] = [
  Uint8Array.of(0xff),
  Uint8Array.of(0xfe, 0xff),
  Uint8Array.of(0xc0, 0xaf), // overlong '/'
  Uint8Array.of(0xe0, 0x80, 0xaf), // overlong '/', three bytes
  Uint8Array.of(0xed, 0xa0, 0x80), // an encoded surrogate
  Uint8Array.of(0xf4, 0x90, 0x80, 0x80), // above U+10FFFF
  Uint8Array.of(0xe2, 0x82), // truncated '€'
  Uint8Array.of(0x80, 0x80, 0x80),
]

type Builder = (ctx: RawContext) => RawCase

const invalidUtf8 = fc.constantFrom(...INVALID_UTF8)
const postTarget = fc.constantFrom(...POST_TARGETS)
const getTarget = fc.constantFrom(...GET_TARGETS)

const cases: { weight: number; arbitrary: fc.Arbitrary<Builder> }[] = [
  {
    weight: 4,
    arbitrary: fc.tuple(postTarget, invalidUtf8, fc.nat(3)).map(([target, bad, where]) => (ctx) => {
      const bodies = [
        bytes('{"email":"a', bad, '@example.com","password":"x', bad, 'yyyyyyyy","name":"n', bad, '","prompt":"p', bad, '","mode":"enhance"}'),
        bytes('{"', bad, '":1}'),
        bytes(bad, '{}'),
        bytes('{"prompt_id":"', bad, '","tier":"pro","name":"', bad, '"}'),
      ]
      return once(jsonPost(target, bodies[where]!, ctx), `invalid UTF-8 in a body to ${target}`)
    }),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(postTarget, fc.nat(2)).map(([target, where]) => (ctx) => {
      const bodies = ['{"email":"a\u0000@example.com","password":"a\u0000 long passphrase","name":"\u0000"}', '\u0000{}', '{"a":1}\u0000\u0000']
      return once(jsonPost(target, Buffer.from(bodies[where]!, 'utf8'), ctx), `NUL bytes in a body to ${target}`)
    }),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(getTarget, fc.oneof(invalidUtf8, fc.constant(Uint8Array.of(0)), fc.constant(Uint8Array.of(0x7f, 0x1b))), fc.boolean()).map(
      ([target, bad, auth]) =>
        (ctx) =>
          once(
            request('GET', bytes(target, 'a', bad, 'b').toString('latin1'), auth ? [`authorization: Bearer ${ctx.token}`] : []),
            `raw bytes ${Buffer.from(bad).toString('hex')} in the path ${target}`,
          ),
    ),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'authorization: Bearer ',
          'content-type: application/json',
          'x-request-id: ',
          'cookie: a=',
          'origin: http://',
          'x-forwarded-for: ',
        ),
        invalidUtf8,
        fc.boolean(),
      )
      .map(
        ([header, bad, nul]) =>
          (ctx) =>
            once(
              bytes(
                `POST /api/user/favorites HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\n`,
                header,
                bad,
                nul ? '\u0000' : '',
                `\r\ncontent-length: ${`{"prompt_id":"${ctx.promptId}"}`.length}\r\n\r\n{"prompt_id":"${ctx.promptId}"}`,
              ),
              `invalid bytes in the header "${header.split(':')[0]}"`,
            ),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(postTarget, fc.constantFrom(1_048_577, 2_000_000, 17_000_000), fc.boolean()).map(([target, size, chunked]) => (ctx) => {
      const body = `{"prompt":"${'a'.repeat(size)}","mode":"enhance"}`
      if (!chunked) return once(jsonPost(target, body, ctx), `a ${size}-byte body to ${target}`, 10_000)
      // chunked: no length declared; the parser must count as it reads
      const pieces: string[] = []
      for (let i = 0; i < body.length; i += 65_536) {
        const piece = body.slice(i, i + 65_536)
        pieces.push(`${piece.length.toString(16)}\r\n${piece}\r\n`)
      }
      const head = request('POST', target, ['content-type: application/json', `authorization: Bearer ${ctx.token}`, 'transfer-encoding: chunked'])
      return once(bytes(head, pieces.join(''), '0\r\n\r\n'), `a ${size}-byte chunked body to ${target}`, 10_000)
    }),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(postTarget, fc.constantFrom(65, 1_000, 100_000, 500_000), fc.constantFrom('[', '{"a":', '[{"a":'))
      .map(([target, depth, open]) => (ctx) => {
        const close = open === '[' ? ']' : open === '{"a":' ? '}' : '}]'
        return once(jsonPost(target, `${open.repeat(depth)}1${close.repeat(depth)}`, ctx), `JSON nested ${depth} deep (${open}) to ${target}`)
      }),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(100, 1_000, 10_000), fc.constantFrom(10, 1_000, 70_000, 1_000_000), fc.boolean())
      .map(([count, valueSize, sameName]) => (ctx) => {
        const headers = Array.from({ length: count }, (_, i) => `${sameName ? 'x-flood' : `x-flood-${i}`}: ${'v'.repeat(Math.min(valueSize, 200))}`)
        headers.push(`x-big: ${'b'.repeat(valueSize)}`, `authorization: Bearer ${ctx.token}`)
        return once(request('GET', '/api/user/me', headers), `${count} headers, one of ${valueSize} bytes`)
      }),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        postTarget,
        fc.constantFrom(
          ['content-length: abc'],
          ['content-length: -1'],
          ['content-length: 1e3'],
          ['content-length: 0x10'],
          ['content-length:  12 '],
          ['content-length: 10, 20'],
          ['content-length: 12', 'content-length: 13'],
          ['content-length: 99999999999999999999'],
          ['content-length: 12', 'transfer-encoding: chunked'],
          ['transfer-encoding: chunked, identity'],
          ['transfer-encoding: gzip'],
          ['transfer-encoding: chunked'],
        ),
      )
      .map(([target, lengthHeaders]) => (ctx) => {
        const body = '{"email":"x@example.com","password":"a long passphrase","name":"x"}'
        const head = `POST ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\nauthorization: Bearer ${ctx.token}\r\n`
        // chunked framing that lies: a size that is not hex, then a chunk longer than it said
        const chunked = lengthHeaders.some((h) => h.includes('chunked')) ? `zz\r\n${body}\r\n5\r\n${body}\r\n0\r\n\r\n` : body
        return once(bytes(head, lengthHeaders.join('\r\n'), '\r\n\r\n', chunked), `${lengthHeaders.join(' + ')} to ${target}`, 1500)
      }),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(postTarget, fc.constantFrom(50, 5_000, 2_000_000)).map(
      ([target, declared]) =>
        (ctx) =>
          // more declared than sent: the server waits for the rest, then we give up
          once(
            bytes(
              `POST ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer ${ctx.token}\r\ncontent-length: ${declared}\r\n\r\n{"a":`,
            ),
            `content-length ${declared} with 5 bytes sent to ${target}`,
            800,
          ),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(20, 60), fc.constantFrom(800, 1500), fc.boolean()).map(([everyMs, forMs, withBody]) => (ctx) => {
      // slowloris: a byte at a time, then silence; bounded by forMs
      const full = withBody
        ? jsonPost('/api/user/favorites', `{"prompt_id":"${ctx.promptId}"}`, ctx)
        : request('GET', '/api/user/me', [`authorization: Bearer ${ctx.token}`])
      const count = Math.floor(forMs / everyMs)
      const chunks = Array.from({ length: Math.min(count, full.length) }, (_, i) => ({ bytes: full.subarray(i, i + 1), delayMs: everyMs }))
      return { kind: 'raw', name: `slowloris: ${chunks.length} bytes, one every ${everyMs} ms`, chunks, waitMs: 500 }
    }),
  },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'GET\r\n\r\n',
          'GET / HTTP/9.9\r\nhost: x\r\n\r\n',
          'GET /api/health HTTP/1.0\r\n\r\n',
          'get /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'FOO /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'GET http://evil.example/api/user/me HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n',
          'CONNECT 127.0.0.1:22 HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
          'GET /api/health HTTP/1.1\r\nconnection: close\r\n\r\n',
          'GET /api/health HTTP/1.1\r\nhost: a\r\nhost: b\r\nconnection: close\r\n\r\n',
          'GET /api/health HTTP/1.1\nhost: x\nconnection: close\n\n',
          'GET /api/health HTTP/1.1\r\nhost: x\r\n folded: header\r\nconnection: close\r\n\r\n',
          'GET /api/health HTTP/1.1\r\nhost: x\r\nbad header name: 1\r\nconnection: close\r\n\r\n',
          'GET /api/health HTTP/1.1\r\nhost: x\r\n: empty-name\r\nconnection: close\r\n\r\n',
          'GET /api/../../../etc/passwd HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'GET /api/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'GET //api//health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'GET * HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'OPTIONS * HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
          'POST /api/auth/login HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
        ),
        fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
        fc.constantFrom(100_000, 1_000_000).map((n) => `GET /api/search?q=${'a'.repeat(n)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`),
      )
      .map((text) => () => once(bytes(text), `raw request ${JSON.stringify(text.slice(0, 60))}`, 1500)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('garbage', 'smuggle', 'many').map((kind) => (ctx) => {
      // pipelined: a good request, then a bad one on the same connection
      const good = `GET /api/health HTTP/1.1\r\nhost: x\r\n\r\n`
      const bad =
        kind === 'garbage'
          ? '\u0000\u00ff\u00fe GET / \r\n\r\n'
          : kind === 'smuggle'
            ? `POST /api/user/favorites HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ctx.token}\r\ncontent-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nGET /api/user/me HTTP/1.1\r\nhost: x\r\n\r\n`
            : good.repeat(50)
      return once(bytes(good, bad, 'GET /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'), `pipelined: good, ${kind}`, 1500)
    }),
  },
]

export const rawCase = (ctx: RawContext): fc.Arbitrary<RawCase> => fc.oneof(...cases).map((build) => build(ctx))

/** Sends a raw case and collects whatever comes back, within the case's time bound. */
export async function sendRaw(hostname: string, port: number, c: RawCase): Promise<RawAnswer> {
  const received: Buffer[] = []
  let closedByServer = false
  let lastData = 0
  let closed!: () => void
  const done = new Promise<void>((resolve) => (closed = resolve))
  let drained: (() => void) | null = null
  const socket = await Bun.connect({
    hostname,
    port,
    socket: {
      data(_, chunk) {
        received.push(Buffer.from(chunk))
        lastData = performance.now()
      },
      drain() {
        drained?.()
      },
      close() {
        closedByServer = true
        closed()
      },
      error() {
        closedByServer = true
        closed()
      },
    },
  })
  try {
    for (const chunk of c.chunks) {
      if (closedByServer) break
      if (chunk.delayMs > 0) await Bun.sleep(chunk.delayMs)
      let rest = chunk.bytes
      while (rest.length > 0 && !closedByServer) {
        const written = socket.write(rest)
        rest = rest.subarray(Math.max(0, written))
        if (rest.length > 0) {
          // backpressure: wait for the kernel to take more (or the server to close on us)
          await Promise.race([new Promise<void>((r) => (drained = r)), done, Bun.sleep(1000)])
        }
      }
    }
    // Wait for the server to close, or for its answer to go quiet, or for the bound.
    const deadline = performance.now() + c.waitMs
    while (!closedByServer && performance.now() < deadline) {
      if (received.length > 0 && performance.now() - lastData > 200) break
      await Promise.race([done, Bun.sleep(25)])
    }
  } finally {
    socket.end()
  }
  const text = Buffer.concat(received).toString('latin1')
  const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]))
  return { statuses, text, closedByServer }
}
