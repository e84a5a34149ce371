// The server processes sharing the database. Each registers itself at start and refreshes a
// heartbeat; any of them can then tell that another has died and end the streams it left
// `running` (history.ts), so a crash blocks nobody for long:
// - on the same host, a process is dead as soon as its pid is gone or belongs to another process
//   (pid reuse, e.g. pid 1 in a restarted container: the kernel's start time differs);
// - on any host, a process is dead when its heartbeat is older than HEARTBEAT_TIMEOUT_MS.
// "The same host" means the same hostname, so instances sharing a database need distinct
// hostnames (the default for containers and pods).
import { readFileSync } from 'node:fs'
import { hostname as osHostname } from 'node:os'
import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../../db/sqlite/client'
import { type ServerInstanceRow, serverInstances } from './schema'

/** How often a running server refreshes its heartbeat (and sweeps for dead ones). */
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

export function registerInstance(db: Db, self: ServerInstance, now = new Date()): void {
  db.insert(serverInstances)
    .values({ ...self, startedAt: now, heartbeatAt: now })
    .onConflictDoUpdate({ target: serverInstances.id, set: { heartbeatAt: now } })
    .run()
}

/**
 * Refreshes this instance's heartbeat. Registers it again if another instance took it for dead
 * and removed it (a heartbeat that stalled for a minute): its later streams must count again.
 */
export function heartbeat(db: Db, self: ServerInstance, now = new Date()): void {
  registerInstance(db, self, now)
}

export function unregisterInstance(db: Db, id: string): void {
  db.delete(serverInstances).where(eq(serverInstances.id, id)).run()
}

/** Removes the registrations of dead processes; returns their ids. */
export function removeDeadInstances(db: Db, self: ServerInstance, now = new Date()): string[] {
  const dead = db
    .select()
    .from(serverInstances)
    .all()
    .filter((other) => other.id !== self.id && isDead(other, self, now))
    .map((other) => other.id)
  if (dead.length > 0) db.delete(serverInstances).where(inArray(serverInstances.id, dead)).run()
  return dead
}

export function isDead(other: ServerInstanceRow, self: ServerInstance, now: Date): boolean {
  if (now.getTime() - other.heartbeatAt.getTime() > HEARTBEAT_TIMEOUT_MS) return true
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
