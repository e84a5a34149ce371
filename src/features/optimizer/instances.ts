// The server processes sharing the database. Each registers itself at start and refreshes a
// heartbeat; any of them can then tell that another has died and end the streams it left
// `running` (service.ts: sweepDeadInstances), so a crash blocks nobody for long:
// - on the same host, a process is dead as soon as its pid is gone or belongs to another process
//   (pid reuse, e.g. pid 1 in a restarted container: the kernel's start time differs);
// - on any host, a process is dead when its heartbeat is older than HEARTBEAT_TIMEOUT_MS.
// "The same host" means the same hostname, so instances sharing a database need distinct
// hostnames (the default for containers and pods).
import { readFileSync } from 'node:fs'
import { hostname as osHostname } from 'node:os'
import type { Logger } from '../../log'
import type { OptimizerStore } from './store'

/** How often a running server refreshes its heartbeat (and, as a job, sweeps for dead ones). */
export const HEARTBEAT_EVERY_MS = 10_000
/** A heartbeat older than this (six missed beats) means the process is gone. */
export const HEARTBEAT_TIMEOUT_MS = 60_000

export interface ServerInstance {
  id: string
  hostname: string
  pid: number
  processStart: string | null
}

/** This process as it registers itself. */
export function currentProcess(): ServerInstance {
  return { id: crypto.randomUUID(), hostname: osHostname(), pid: process.pid, processStart: processStartTime(process.pid) }
}

/**
 * This process's registration, refreshed by a timer of its own on every instance. Not a job:
 * on PostgreSQL a job runs on one instance at a time (db/jobs.ts), and a heartbeat skipped
 * because another instance held the job's lock would get this live process taken for dead and
 * its streams ended. The sweep of dead processes, which any one instance may do, is the job.
 */
export function createHeartbeat(store: Pick<OptimizerStore, 'beat' | 'unregister'>, self: ServerInstance, log: Logger) {
  let timer: ReturnType<typeof setInterval> | null = null
  const beat = () => store.beat(self).catch((error: unknown) => log.error('optimizer heartbeat failed', { instance: self.id, error }))
  return {
    /** Registers this process (a failure stops the start) and beats every HEARTBEAT_EVERY_MS until stop(). */
    async start(): Promise<void> {
      await store.beat(self)
      if (timer) return
      timer = setInterval(() => void beat(), HEARTBEAT_EVERY_MS)
      timer.unref()
    },
    /** Stops beating and removes the registration (a row still running is swept by another instance). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer)
      timer = null
      await store.unregister(self.id)
    },
  }
}

/** A registration as the sweep sees it: who, and how old its heartbeat is. */
export type Registration = Omit<ServerInstance, 'id'> & { heartbeatAgeMs: number }

export function isDead(other: Registration, self: ServerInstance): boolean {
  if (other.heartbeatAgeMs > HEARTBEAT_TIMEOUT_MS) return true
  if (other.hostname !== self.hostname) return false
  // One pid cannot be two live processes: an older registration with our pid is a previous life.
  if (other.pid === self.pid) return true
  if (!pidIsAlive(other.pid)) return true
  const start = processStartTime(other.pid)
  return other.processStart !== null && start !== null && start !== other.processStart
}

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to another user
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  // A zombie (killed, not yet reaped by its parent) still answers signal 0.
  const state = procStat(pid)?.[0]
  return state !== 'Z' && state !== 'X'
}

/** Linux: field 22 of /proc/PID/stat, the start time in clock ticks since boot; null elsewhere. */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null
}

/** The fields of /proc/PID/stat after the command name (which may contain spaces), from `state` on. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}
