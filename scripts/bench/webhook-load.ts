// The load generator of scripts/bench-payments.ts, run as its own process (pinned to the other
// CPU): `concurrency` senders POST pre-signed webhook deliveries, each taking the next one from a
// shared list, for `seconds`; prints one JSON line {sent, ok, outcomes, seconds, p50, p99}.
// usage: bun scripts/bench/webhook-load.ts URL EVENTS.jsonl START COUNT SECONDS CONCURRENCY
import { readFileSync } from 'node:fs'

const [url, file, startArg, countArg, secondsArg, concurrencyArg] = process.argv.slice(2)
const lines = readFileSync(file!, 'utf8').split('\n')
const start = Number(startArg)
const events = lines
  .slice(start, start + Number(countArg))
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { body: string; signature: string })
const seconds = Number(secondsArg)
const concurrency = Number(concurrencyArg)

let next = 0
let ok = 0
const outcomes: Record<string, number> = {}
const latencies: number[] = []
const deadline = performance.now() + seconds * 1000
const began = performance.now()

async function sender() {
  while (performance.now() < deadline && next < events.length) {
    const event = events[next++]!
    const t0 = performance.now()
    const res = await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': event.signature },
      body: event.body,
    })
    const text = await res.text()
    latencies.push(performance.now() - t0)
    if (res.status === 200) {
      ok++
      const outcome = /"outcome":"([a-z_]+)"/.exec(text)?.[1] ?? '?'
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
    } else outcomes[`http_${res.status}`] = (outcomes[`http_${res.status}`] ?? 0) + 1
  }
}
await Promise.all(Array.from({ length: concurrency }, sender))
const elapsed = (performance.now() - began) / 1000
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN
console.log(
  JSON.stringify({ sent: latencies.length, ok, outcomes, seconds: elapsed, exhausted: next >= events.length, p50: pct(0.5), p99: pct(0.99) }),
)
