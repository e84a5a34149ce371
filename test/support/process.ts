// Real processes: the CLI and a listening server on a free loopback port.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')
export const MAIN = join(ROOT, 'src', 'main.ts')

export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

export function cli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', cwd: ROOT })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Like cli(), without blocking this process: the test can release a lock while the command waits. */
export async function cliAsync(args: string[], env: Record<string, string>, { timeoutMs }: { timeoutMs?: number } = {}) {
  const child = Bun.spawn([process.execPath, MAIN, ...args], {
    env: { ...process.env, ...env },
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: timeoutMs,
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}

export interface ServerProcess {
  url: string
  pid: number
  /** the process's resident memory (VmRSS), in MB */
  rssMb(): number
  output: () => string
  exited: Promise<number | null>
  kill(signal?: NodeJS.Signals): void
}

/** Starts `promptlib serve` (or a given binary) on `env.PORT` (else a free port) and waits until /api/health answers. */
export async function startServer(env: Record<string, string>, command = [process.execPath, MAIN, 'serve']): Promise<ServerProcess> {
  // A given PORT lets the caller put the server's own URL in PUBLIC_URL before it starts.
  const port = env.PORT ? Number(env.PORT) : freePort()
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    cwd: env.CWD ?? ROOT,
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${output}`)
    try {
      if ((await fetch(`${url}/api/health`)).ok) break
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not start: ${output}`)
    }
    await Bun.sleep(25)
  }
  return {
    url,
    pid: child.pid!,
    rssMb: () => rssMbOf(child.pid!),
    output: () => output,
    exited,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
  }
}

/** A process's resident memory (VmRSS from /proc), in MB; 0 when it is gone. */
export function rssMbOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Math.round(Number(kb) / 1024) : 0
  } catch {
    return 0
  }
}
