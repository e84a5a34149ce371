// The baseline of every benchmark: a bare Bun.serve that answers, byte for byte, what the
// real server answered for the same request (recorded by bench.ts before the run).
// usage: bun scripts/bench/baseline.ts PORT RECORDINGS.json
import { readFileSync } from 'node:fs'

export interface Recording {
  status: number
  headers: [string, string][]
  body: string
}

const [port, file] = process.argv.slice(2)
const recordings = JSON.parse(readFileSync(file!, 'utf8')) as Record<string, Recording>

const responses = new Map(Object.entries(recordings).map(([key, r]) => [key, { status: r.status, headers: r.headers, body: Buffer.from(r.body) }]))

const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  fetch(request) {
    const url = request.url
    const key = `${request.method} ${url.slice(url.indexOf('/', 8))}`
    const r = responses.get(key)
    if (!r) return new Response('not recorded', { status: 404 })
    // A request with a body (a webhook delivery) has it read, as the server must.
    if (request.body) return request.arrayBuffer().then(() => new Response(r.body, { status: r.status, headers: r.headers }))
    return new Response(r.body, { status: r.status, headers: r.headers })
  },
})
console.log(`baseline listening on ${server.port}`)
