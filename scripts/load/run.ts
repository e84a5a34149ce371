// One load run (scripts/load.ts): a single server on loopback with its own fresh database, the mixed
// traffic of traffic.ts plus MCP tool calls (when the server has /api/mcp) and signed webhooks of
// both providers, the server's RSS sampled every second, then every check. Exits 1 on a failure.
import { readFileSync, writeFileSync } from 'node:fs'
import { sqlRun } from '../../test/support/sql'
import {
  Checks,
  countBy,
  dropDatabases,
  freshStore,
  integrityCheck,
  Stack,
  serverEnv,
  start,
  startWorld,
  stop,
  timeLimit,
  withDb,
} from '../storm/harness'
import { mcpActions, mcpAvailable } from './mcp'
import { type Action, catalogueOf, exactCountMismatches, makeUsers, percentile, printResult, runTraffic } from './traffic'
import { webhookTraffic } from './webhooks'

export interface LoadOptions {
  seconds: number
  connections: number
  binary?: string
  engine: 'sqlite' | 'postgres'
  /** the RSS to compare the end with is taken this many seconds into the traffic */
  rssAfterSeconds: number
  /** the largest allowed growth from that sample to the end (0.1 = 10 %); null: reported only */
  rssGrowthBound: number | null
  /** p99 bound for every non-streaming kind and for all of them together (ms) */
  p99BoundMs: number
  json?: string
  seed: number
  /** unmeasured traffic first (s) */
  warmupSeconds: number
  /** just these kinds of request (to find which one is slow) */
  kinds?: string[]
  /** where to write the server's own output (stdout and stderr) at the end */
  serverLog?: string
  /** requests/s over all connections (an open loop); undefined: each connection as fast as it is answered */
  rate?: number
}

/** Kinds whose latency is a stream's whole life, not a request's: left out of the p99 bound. */
const STREAMING = new Set(['optimize'])

export async function runLoad(o: LoadOptions): Promise<void> {
  const stack = new Stack()
  // Setting up takes ~5 s (40 registrations hash their passwords), checking a few more.
  timeLimit(o.warmupSeconds + o.seconds + 45, stack)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\nFAILED: ${signal}; stopped`)
      void stack.stopAll().then(() => process.exit(1))
    })
  }
  const checks = new Checks()
  try {
    const world = await startWorld(stack)
    const store = await freshStore(stack, o.engine)
    const webhooks = await webhookTraffic(store, world, 50, 2000, o.seed)
    const env = serverEnv(store, world, world.smtp, { DEMO_CATALOGUE: 'true' })
    const server = await start(stack, env, o.binary)
    console.log(
      `load: ${o.connections} connections${o.rate ? ` sending ${o.rate} requests/s together` : ', each as fast as it is answered'} for ${o.seconds} s against ${o.binary ?? 'bun src/main.ts serve'} on ${o.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} at ${server.url} (seed ${o.seed})`,
    )

    const users = await makeUsers(server.url, 40, (id) => withDb(store, (s) => sqlRun(s, "UPDATE users SET tier = 'pro' WHERE id = $1", [id])))
    const catalogue = await catalogueOf(server.url)
    const extra: Action[] = [webhooks.action]
    const firstPro = users.find((u) => u.pat)!
    if (await mcpAvailable(server.url, firstPro.pat!)) extra.push(...mcpActions(users, catalogue.prompts))
    else console.log('note: POST /api/mcp answers 404 on this server; MCP tool calls left out of the mix')
    console.log(`${users.length} users (half pro with a PAT), ${catalogue.prompts.length} prompts in ${catalogue.categories.length} categories`)

    // A warm-up, not measured: what a server does once (the payment SDK and the mail client are
    // loaded with their first use, tens to hundreds of ms that block the event loop; the first
    // queries are prepared) would otherwise be the tail of a short run. Its answers are checked
    // all the same, and what it wrote is in the exact counts.
    const warmup = await runTraffic([server.url], users, catalogue, { connections: 10, seconds: o.warmupSeconds, extra, only: o.kinds })
    console.log(
      `warm-up: ${warmup.requests} requests in ${warmup.seconds.toFixed(1)} s from 10 connections, not measured; ${warmup.errors.length} errors`,
    )

    // The server's RSS every second while the traffic runs.
    const rss: { seconds: number; mb: number }[] = []
    // CPU seconds: who used the two cores, the server or this process (the load generator).
    const serverCpu0 = cpuSecondsOf(server.pid)
    const serverWait0 = runQueueSecondsOf(server.pid)
    const ownCpu0 = process.cpuUsage()
    const t0 = performance.now()
    const sampler = setInterval(() => rss.push({ seconds: Math.round((performance.now() - t0) / 100) / 10, mb: server.rssMb() }), 1000)
    const result = await runTraffic([server.url], users, catalogue, {
      connections: o.connections,
      seconds: o.seconds,
      extra,
      rate: o.rate,
      only: o.kinds,
    })
    clearInterval(sampler)
    rss.push({ seconds: Math.round((performance.now() - t0) / 100) / 10, mb: server.rssMb() })
    const cpu = {
      server: round(cpuSecondsOf(server.pid) - serverCpu0),
      loadGenerator: round(cpuSeconds(process.cpuUsage(ownCpu0))),
      wall: round((performance.now() - t0) / 1000),
      /** how long the server's JavaScript thread was ready to run but waited for a core (other processes had them) */
      serverWaitedForCpu: round(runQueueSecondsOf(server.pid) - serverWait0),
    }
    result.errors.unshift(...warmup.errors)
    printResult(result)
    console.log(
      `CPU over ${cpu.wall} s: server ${cpu.server} s (${Math.round((cpu.server / cpu.wall) * 100)} % of a core), load generator ${cpu.loadGenerator} s (${Math.round((cpu.loadGenerator / cpu.wall) * 100)} %); server ${Math.round((cpu.server / result.requests) * 1e6)} µs CPU per request; its event loop waited ${cpu.serverWaitedForCpu} s for a core`,
    )

    const nonStreaming = [...result.kinds].filter(([kind]) => !STREAMING.has(kind))
    const all = nonStreaming.flatMap(([, s]) => s.latencies)
    const overall = { count: all.length, p50: percentile(all, 50), p99: percentile(all, 99) }
    console.log(
      `${'all (no streams)'.padEnd(16)} ${String(overall.count).padStart(7)} ${overall.p50.toFixed(2).padStart(6)} ${overall.p99.toFixed(2).padStart(8)}`,
    )
    if (!o.rate) {
      // Little's law: in a closed loop every connection always has one request out, so the mean
      // latency is the connections over the throughput, whatever the server does per request.
      const meanMs = (o.connections / (result.requests / result.seconds)) * 1000
      console.log(
        `closed loop: mean latency = ${o.connections} connections / ${Math.round(result.requests / result.seconds)} req/s = ${meanMs.toFixed(1)} ms`,
      )
    }
    const early = rss.find((s) => s.seconds >= o.rssAfterSeconds) ?? rss[0]!
    const end = rss.at(-1)!
    const growth = (end.mb - early.mb) / early.mb
    console.log(
      `server RSS: ${early.mb} MB at ${early.seconds} s, ${end.mb} MB at the end (${(growth * 100).toFixed(1)} %); peak ${Math.max(...rss.map((s) => s.mb))} MB`,
    )

    console.log('\nchecks')
    const errorKinds = result.errors.map((e) => `${e.kind} ${e.status}`)
    checks.check(
      'no errors other than the expected 429s',
      result.errors.length === 0,
      `${result.errors.length} errors${result.errors.length ? `: ${JSON.stringify(countBy(errorKinds, (k) => k))}, e.g. ${result.errors[0]!.detail.slice(0, 200)}` : ''}; ${result.expected429} expected 429s`,
    )
    for (const [kind, s] of nonStreaming) {
      const p99 = percentile(s.latencies, 99)
      if (p99 > o.p99BoundMs) checks.check(`p99 of ${kind} ≤ ${o.p99BoundMs} ms`, false, `${p99.toFixed(1)} ms`)
    }
    checks.check(
      `p99 ≤ ${o.p99BoundMs} ms for every non-streaming kind and overall`,
      nonStreaming.every(([, s]) => percentile(s.latencies, 99) <= o.p99BoundMs) && overall.p99 <= o.p99BoundMs,
      `overall ${overall.p99.toFixed(1)} ms; slowest ${nonStreaming
        .map(([k, s]) => [k, percentile(s.latencies, 99)] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([k, p]) => `${k} ${p.toFixed(1)}`)
        .join(', ')}`,
    )
    const rssDetail = `${early.mb} → ${end.mb} MB (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %)`
    if (o.rssGrowthBound === null) console.log(`  info server RSS from ${o.rssAfterSeconds} s to the end: ${rssDetail} (reported only)`)
    else
      checks.check(
        // A leak shows as growth; a fall is memory the allocator gave back to the system.
        `server RSS at the end at most ${o.rssGrowthBound * 100} % above its RSS after ${o.rssAfterSeconds} s`,
        growth <= o.rssGrowthBound,
        rssDetail,
      )

    const { mismatches, webhookFailures } = await withDb(store, async (storage) => ({
      mismatches: await exactCountMismatches(storage, users),
      webhookFailures: await webhooks.check(storage),
    }))
    checks.check(
      'exact counts: prompts opened, favorites, favorite counts, optimizations',
      mismatches.length === 0,
      mismatches.slice(0, 5).join('; '),
    )
    checks.check(
      `webhooks: every event applied and recorded exactly once (${webhooks.summary()})`,
      webhookFailures.length === 0,
      webhookFailures.join('; '),
    )
    await stop(server)
    if (o.serverLog) writeFileSync(o.serverLog, server.output())
    if (o.engine === 'sqlite') {
      const integrity = integrityCheck(store)
      checks.check('PRAGMA integrity_check', integrity === 'ok', integrity)
    }

    if (o.json) {
      const kinds = Object.fromEntries(
        [...result.kinds].sort().map(([kind, s]) => [
          kind,
          {
            count: s.count,
            p50_ms: round(percentile(s.latencies, 50)),
            p99_ms: round(percentile(s.latencies, 99)),
            streaming: STREAMING.has(kind),
            statuses: Object.fromEntries(s.statuses),
          },
        ]),
      )
      const summary = {
        script: 'scripts/load.ts',
        at: new Date().toISOString(),
        engine: o.engine,
        server: o.binary ?? 'bun src/main.ts serve',
        connections: o.connections,
        target_rate: o.rate ?? null,
        seconds: round(result.seconds),
        requests: result.requests,
        requests_per_second: Math.round(result.requests / result.seconds),
        expected_429: result.expected429,
        errors: result.errors.length,
        error_samples: result.errors.slice(0, 20),
        mcp: extra.some((a) => a.kind.startsWith('mcp')),
        non_streaming: { count: overall.count, p50_ms: round(overall.p50), p99_ms: round(overall.p99) },
        kinds,
        p99_bound_ms: o.p99BoundMs,
        cpu_seconds: { server: cpu.server, load_generator: cpu.loadGenerator, wall: cpu.wall, server_waited_for_cpu: cpu.serverWaitedForCpu },
        rss_mb: { samples: rss, early: early.mb, early_at_seconds: early.seconds, end: end.mb, growth: round(growth, 4), bound: o.rssGrowthBound },
        checks: { failed: checks.failed.map((c) => c.name), count: checks.count },
        passed: checks.failed.length === 0,
      }
      writeFileSync(o.json, `${JSON.stringify(summary, null, 2)}\n`)
      console.log(`summary written to ${o.json}`)
    }
  } catch (error) {
    checks.check('the run completed', false, error instanceof Error ? (error.stack ?? error.message) : String(error))
  } finally {
    await stack.stopAll()
    if (o.engine === 'postgres') await dropDatabases().catch(() => {})
  }
  if (checks.failed.length > 0) {
    console.error(`\nFAILED: ${checks.failed.length} of ${checks.count} checks: ${checks.failed.map((c) => c.name).join('; ')}`)
    process.exit(1)
  }
  console.log(`\nload: all ${checks.count} checks passed`)
  process.exit(0)
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6

/** A process's user + system CPU time (/proc/PID/stat, in clock ticks of 1/100 s on Linux). */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** How long a process's main thread has waited on a run queue, ready but without a core (/proc/PID/schedstat, ns). */
function runQueueSecondsOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9
  } catch {
    return 0
  }
}
