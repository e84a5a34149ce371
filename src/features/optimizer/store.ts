// The optimizer's storage port: one row per optimize call (its history, and while `running` the
// user's open streams), and the registry of server processes that stream them.
import type { Tx } from '../../db/storage'
import type { ServerInstance } from './instances'

export const OPTIMIZATION_STATUSES = ['running', 'completed', 'failed', 'aborted'] as const
export type OptimizationStatus = (typeof OPTIMIZATION_STATUSES)[number]

export interface NewRun {
  id: string
  userId: string
  mode: string
  prompt: string
  targetModel: string | null
  engine: string
  model: string | null
  /** the server process that streams it; null when none is registered (tests) */
  instanceId: string | null
  createdAt: Date
}

export interface RunOutcome {
  status: Exclude<OptimizationStatus, 'running'>
  optimizedPrompt: string | null
  errorCode: string | null
  inputTokens: number | null
  outputTokens: number | null
  finishedAt: Date
}

export interface RunRecord {
  id: string
  mode: string
  prompt: string
  optimizedPrompt: string | null
  engine: string
  model: string | null
  status: OptimizationStatus
  createdAt: Date
}

/** A `running` row ended by a sweep: whose quota unit it took, on which day, and whether text went out. */
export interface EndedRun {
  userId: string
  createdAt: Date
  textSent: boolean
}

export interface InstanceRecord extends ServerInstance {
  heartbeatAt: Date
  /** how old the heartbeat is, on the clock that wrote it (the database's on PostgreSQL) */
  heartbeatAgeMs: number
}

/** `gone`: the user no longer exists (the account was deleted while the call was being admitted). */
export type CapResult = { opened: true } | { opened: false; open: number } | { opened: false; gone: true }

export interface OptimizerStore {
  /**
   * Counts the user's `running` rows created after `countSince` and inserts `run` only when they
   * are fewer than `cap`: atomic per user across requests and instances. Given `tx`, it joins
   * that transaction (so a refusal can roll back the quota unit taken in it).
   */
  insertRunningWithinCap(run: NewRun, cap: number, countSince: Date, tx?: Tx): Promise<CapResult>
  /** Notes when the first text went out (once, and only while the run is `running`): a run cut off before it is refunded. */
  markTextSent(id: string, at: Date): Promise<void>
  /**
   * Records how a run ended, and says what it ended: `running`; `refunded`, a run a sweep of dead
   * processes had ended before any text and whose unit it gave back (this process was taken for
   * dead, then went on); `ended`, one a sweep had ended otherwise.
   */
  finish(id: string, outcome: RunOutcome, tx?: Tx): Promise<FinishedOver>
  /** The user's rows, newest first (ties in insertion order), and how many there are. */
  page(userId: string, limit: number, offset: number): Promise<{ rows: RunRecord[]; total: number }>
  /** Ends (`aborted`, `server_died`) the `running` rows of instances no longer registered. */
  endRunsOfUnregistered(now: Date, tx?: Tx): Promise<EndedRun[]>
  /** Ends (`aborted`) the `running` rows created before `createdBefore`, whatever their owner. */
  endRunsCreatedBefore(createdBefore: Date, now: Date): Promise<number>

  /** Registers this process, or refreshes its heartbeat (registering it again if it was removed). */
  beat(self: ServerInstance, now?: Date): Promise<void>
  instances(): Promise<InstanceRecord[]>
  /** Removes registrations whose heartbeat is still the one seen (one that beat meanwhile stays). */
  removeInstances(seen: Pick<InstanceRecord, 'id' | 'heartbeatAt'>[]): Promise<void>
  unregister(id: string): Promise<void>
}

export type FinishedOver = 'running' | 'refunded' | 'ended'

/** What finish() found: the row's status, error code and first text before it wrote. */
export function finishedOver(before: { status: string; errorCode: string | null; firstTextAt: unknown } | undefined): FinishedOver {
  if (before?.status === 'running') return 'running'
  return before?.status === 'aborted' && before.errorCode === SERVER_DIED && before.firstTextAt === null ? 'refunded' : 'ended'
}

/** The error code a sweep of dead processes gives the runs it ends. */
export const SERVER_DIED = 'server_died'
