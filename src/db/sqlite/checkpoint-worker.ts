// Runs in a Worker thread: checkpoints the WAL in the background on its own connection, so no
// request's commit pays for copying the log into the database file (and its fsync) — those
// pauses were the slow tail of write requests.
//
// A PASSIVE checkpoint never blocks anyone, but it does not start the log over either: that
// happens only when a transaction begins while everything is copied, which under continuous
// writes is almost never, and the file grew to 2.3 GB in 20 s. So the worker also
// - restarts the log (RESTART) when the file passes WAL_RESTART_ABOVE_BYTES, right after a
//   PASSIVE copy, so writers wait only for the few frames written in between; the next commit
//   starts at the beginning of the file and journal_size_limit cuts it back;
// - truncates the log to zero bytes (TRUNCATE) once no frame was added for a round (a second):
//   writes paused.
// The file still overshoots the threshold by what is written while the PASSIVE copy runs (its
// fsyncs): peaks of ~100 MB at ~150 MB/s of log here, ~160 MB while another process saturated
// the disk. When another connection keeps a transaction open for long (an import, a backup),
// the log cannot start over; it then grows until that ends, and the worker reports it ('stuck').
// Nothing short of failing writes could bound it then.
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { WAL_RESTART_ABOVE_BYTES } from './wal'

declare const self: Worker

/** The size check is one stat() call; at ~150 MB/s of log, 100 ms between checks adds at most 15 MB to the overshoot. */
const CHECK_EVERY_MS = 100
/**
 * How long a RESTART or TRUNCATE waits for the writer and then for readers. While it waits for
 * readers it holds the write lock, so writers wait as long; our own transactions last a
 * millisecond or two, so only a long transaction elsewhere exhausts it.
 */
const BLOCKING_CHECKPOINT_WAIT_MS = 100
/** After a blocking checkpoint gave up, writers get this long undisturbed before the next attempt. */
const RETRY_BLOCKING_AFTER_MS = 1000
/** A log that cannot be restarted is reported again every minute while it lasts. */
const REPORT_STUCK_EVERY_MS = 60_000

export interface CheckpointWorkerOptions {
  file: string
  /** PASSIVE checkpoints this often */
  intervalMs: number
  /** report a log that could not be restarted for this long */
  reportStuckAfterMs: number
}

export type CheckpointWorkerMessage = 'started' | 'stopped' | { stuck: { wal_bytes: number; since_ms: number } }

interface CheckpointResult {
  busy: number
  log: number
  checkpointed: number
}

self.onmessage = (event: MessageEvent<CheckpointWorkerOptions>) => {
  const { file, intervalMs, reportStuckAfterMs } = event.data
  const walFile = `${file}-wal`
  const db = new Database(file)
  db.run(`PRAGMA busy_timeout = ${BLOCKING_CHECKPOINT_WAIT_MS}`)
  const checkpoint = (mode: 'PASSIVE' | 'RESTART' | 'TRUNCATE'): CheckpointResult | null => {
    try {
      return db.query<CheckpointResult, []>(`PRAGMA wal_checkpoint(${mode})`).get()
    } catch {
      return null // closing, or an I/O error: the next round tries again
    }
  }
  const walBytes = () => {
    try {
      return statSync(walFile).size
    } catch {
      return 0 // no log (yet)
    }
  }

  let lastPassiveAt = 0
  let lastLogFrames = -1
  let framesChangedAt = 0
  let restartedAtFrames = -1
  let blockedUntil = 0
  let stuckSince = 0
  let reportedAt = 0
  const reportStuck = (now: number, bytes: number) => {
    stuckSince ||= now
    if (now - stuckSince < reportStuckAfterMs || now - reportedAt < REPORT_STUCK_EVERY_MS) return
    reportedAt = now
    postMessage({ stuck: { wal_bytes: bytes, since_ms: now - stuckSince } } satisfies CheckpointWorkerMessage)
  }
  const tick = () => {
    const bytes = walBytes()
    if (bytes === 0) return
    const now = Date.now()
    const over = bytes > WAL_RESTART_ABOVE_BYTES
    if (!over) stuckSince = 0
    if (!(over && now >= blockedUntil) && now - lastPassiveAt < intervalMs) return
    lastPassiveAt = now
    // First the copy that blocks no one; a RESTART or TRUNCATE after it has little left to copy.
    const passive = checkpoint('PASSIVE')
    if (!passive) return
    if (passive.log !== lastLogFrames) {
      lastLogFrames = passive.log
      framesChangedAt = now
    }
    if (now < blockedUntil) return
    if (now - framesChangedAt >= intervalMs) {
      // Writes paused: give the space back. (Under load TRUNCATE is the slower choice: cutting
      // a 64 MiB file while holding the write lock took ~50 ms here, a RESTART 3–20 ms.)
      const truncated = checkpoint('TRUNCATE')
      if (truncated?.busy === 0) lastLogFrames = -1
      else blockedUntil = now + RETRY_BLOCKING_AFTER_MS
    } else if (over && passive.log !== restartedAtFrames) {
      const restarted = checkpoint('RESTART')
      if (restarted?.busy === 0) {
        restartedAtFrames = restarted.log // the next commit starts the log over; nothing to do until then
        return
      }
      blockedUntil = now + RETRY_BLOCKING_AFTER_MS
      reportStuck(now, bytes)
    }
  }

  const timer = setInterval(tick, CHECK_EVERY_MS)
  self.onmessage = () => {
    clearInterval(timer)
    checkpoint('PASSIVE')
    db.close()
    postMessage('stopped' satisfies CheckpointWorkerMessage)
  }
  postMessage('started' satisfies CheckpointWorkerMessage)
}
