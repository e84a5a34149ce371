// Moves WAL checkpoints off the request path: a Worker thread checkpoints (and keeps the log
// bounded, see checkpoint-worker.ts) and the serving connection stops checkpointing at commit.
// If the worker cannot start or dies, SQLite's own automatic checkpoint is switched back on, so
// the log never grows without bound.
import type { Logger } from '../../log'
import type { CheckpointWorkerMessage, CheckpointWorkerOptions } from './checkpoint-worker'
import type { Db } from './client'

const INTERVAL_MS = 1000
/** Ten seconds: longer than any of our own transactions but an import's, and soon enough to be noticed. */
const REPORT_STUCK_AFTER_MS = 10_000
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000

export interface Checkpointer {
  stop(): Promise<void>
}

export function startBackgroundCheckpoints(db: Db, file: string, log: Logger, { reportStuckAfterMs = REPORT_STUCK_AFTER_MS } = {}): Checkpointer {
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
