// Runs in a Worker thread: checkpoints the WAL in the background on its own connection, so no
// request's commit pays for copying the log into the database file (and its fsync) — those
// pauses were the slow tail of write requests. PASSIVE never blocks readers or writers.
import { Database } from 'bun:sqlite'

declare const self: Worker

self.onmessage = (event: MessageEvent<{ file: string; intervalMs: number }>) => {
  const { file, intervalMs } = event.data
  const db = new Database(file)
  db.run('PRAGMA busy_timeout = 1000')
  const checkpoint = () => {
    try {
      db.run('PRAGMA wal_checkpoint(PASSIVE)')
    } catch {
      // busy or closing: the next round tries again
    }
  }
  const timer = setInterval(checkpoint, intervalMs)
  self.onmessage = () => {
    clearInterval(timer)
    checkpoint()
    db.close()
    postMessage('stopped')
  }
  postMessage('started')
}
