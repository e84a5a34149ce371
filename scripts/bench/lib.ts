// Helpers for the benchmarks: start processes pinned to a CPU, wait for them, drive wrk.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')

/** wrk comes from Debian's packages; install it when missing (CI machines start without it). */
export function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return
  console.log('wrk not found; installing it with apt-get')
  const r = spawnSync(
    'sh',
    ['-c', 'apt-get install -y wrk >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1)'],
    {
      stdio: 'inherit',
    },
  )
  if (r.status !== 0 || spawnSync('wrk', ['--version']).error !== undefined) throw new Error('wrk is needed: apt-get install -y wrk')
}

const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0

/** Pins a command to one CPU (when the machine has two or more), so the load generator and the server do not fight. */
export function pinned(cpu: number, command: string[]): string[] {
  return hasTaskset && navigator.hardwareConcurrency >= 2 ? ['taskset', '-c', String(cpu), ...command] : command
}

export function freePort(): number {
  const server = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export interface Started {
  child: ChildProcess
  url: string
  stop(): Promise<void>
}

export async function startProcess(
  command: string[],
  env: Record<string, string>,
  url: string,
  readyPath = '/api/health',
  timeoutMs = 20_000,
): Promise<Started> {
  const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT })
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode}`)
    try {
      const r = await fetch(url + readyPath)
      if (r.status < 500) break
    } catch {}
    if (Date.now() > deadline) throw new Error(`${command.join(' ')} did not answer on ${url}`)
    await Bun.sleep(20)
  }
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

export interface WrkResult {
  rps: number
  p99ms: number
  errors: number
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value.trim())
  if (!m) return NaN
  const n = Number(m[1])
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n
}

export function wrk(
  url: string,
  opts: { seconds: number; connections: number; headers?: Record<string, string>; cpu?: number /** a Lua script (wrk -s) */; script?: string },
): WrkResult {
  const args = ['wrk', '-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency']
  if (opts.script) args.push('-s', opts.script)
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`)
  args.push(url)
  const r = spawnSync(pinned(opts.cpu ?? 1, args)[0]!, pinned(opts.cpu ?? 1, args).slice(1), { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`wrk failed: ${r.stderr}`)
  const out = r.stdout
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
  const p99 = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '')
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
  return { rps, p99ms: p99, errors }
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export function rssMb(pid: number): number {
  const status = spawnSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }).stdout
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN)
  return Math.round((kb / 1024) * 10) / 10
}
