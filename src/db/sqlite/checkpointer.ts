// Moves WAL checkpoints off the request path: a Worker thread checkpoints (and keeps the log
// bounded, see checkpoint-worker.ts) and the serving connection stops checkpointing at commit.
// If the worker cannot start or dies, SQLite's own automatic checkpoint is switched back on, so
// the log never grows without bound. The worker (a second JavaScript thread, ~5 MB) starts once
// the log first passes START_ABOVE_BYTES: until then SQLite's automatic checkpoint keeps a quiet
// server's log small at no cost worth a thread.
import { existsSync, statSync } from 'node:fs'
import type { Logger } from '../../log'
import type { CheckpointWorkerMessage, CheckpointWorkerOptions } from './checkpoint-worker'
import type { Db } from './client'

const INTERVAL_MS = 1000
/** Ten seconds: longer than any of our own transactions but an import's, and soon enough to be noticed. */
const REPORT_STUCK_AFTER_MS = 10_000
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000
/** A quarter of what SQLite's automatic checkpoint lets the log reach (1,000 pages of 4 KiB). */
const START_ABOVE_BYTES = 1024 * 1024

const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0)

export interface Checkpointer {
  stop(): Promise<void>
}

export function startBackgroundCheckpoints(
  db: Db,
  file: string,
  log: Logger,
  { reportStuckAfterMs = REPORT_STUCK_AFTER_MS, startAboveBytes = START_ABOVE_BYTES } = {},
): Checkpointer {
  if (walBytes(file) >= startAboveBytes) return startWorker(db, file, log, reportStuckAfterMs)
  let started: Checkpointer | null = null
  const watch = setInterval(() => {
    if (walBytes(file) < startAboveBytes) return
    clearInterval(watch)
    started = startWorker(db, file, log, reportStuckAfterMs)
  }, INTERVAL_MS)
  watch.unref()
  return {
    stop: async () => {
      clearInterval(watch)
      await started?.stop()
    },
  }
}

function startWorker(db: Db, file: string, log: Logger, reportStuckAfterMs: number): Checkpointer {
  const fallback = () => db.$client.run(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`)
  let worker: Worker
  try {
    // The compiled binary embeds the worker as a second entry point (package.json "build").
    worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url).href)
  } catch (error) {
    log.warn('background checkpoints unavailable; SQLite checkpoints at commit', { error })
    return { stop: async () => {} }
  }
  let running = true
  worker.onmessage = (event: MessageEvent<CheckpointWorkerMessage>) => {
    if (!running) return
    const message = event.data
    if (message === 'started') {
      db.$client.run('PRAGMA wal_autocheckpoint = 0')
      log.debug('background checkpoints started', { every_ms: INTERVAL_MS })
    } else if (typeof message === 'object' && 'stuck' in message) {
      log.warn('the SQLite log keeps growing: another connection holds a long transaction (an import? a backup?), so it cannot start over', {
        file: `${file}-wal`,
        ...message.stuck,
      })
    }
  }
  worker.onerror = (event) => {
    log.warn('background checkpoint worker failed; SQLite checkpoints at commit', { error: event.message })
    fallback()
  }
  worker.addEventListener('close', () => {
    if (running) fallback()
  })
  worker.postMessage({ file, intervalMs: INTERVAL_MS, reportStuckAfterMs } satisfies CheckpointWorkerOptions)
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        running = false
        fallback()
        const done = () => {
          worker.terminate()
          resolve()
        }
        worker.onmessage = done
        worker.postMessage('stop')
        setTimeout(done, 2000).unref()
      }),
  }
}
