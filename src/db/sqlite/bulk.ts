// Bulk mode for a large import run by `promptlib import` on a storage opened with a single
// connection: when no other process has the database open, it writes with a rollback journal,
// so every page is written once, where in WAL mode it is written to the log and copied again by
// the checkpoint (100,000 prompts: 10 s instead of 15 s). SQLite refuses the switch while another
// connection is open (a running server: SQLITE_BUSY), and the import then simply stays in WAL
// mode. A crash midway leaves a journal that rolls the transaction back on the next open, as in
// WAL mode. A rollback journal with synchronous=NORMAL can be corrupted by a power cut at the
// wrong moment (WAL cannot), so bulk mode syncs fully: a few more fsyncs per file, nothing per row.
import type { Database } from 'bun:sqlite'
import { switchToWal } from './client'

export function enterBulkMode(client: Database, lockTimeoutMs: number): { active: boolean; leave: () => void } {
  let mode: string | undefined
  try {
    mode = client.query<{ journal_mode: string }, []>('PRAGMA journal_mode = DELETE').get()?.journal_mode
  } catch {
    mode = undefined // SQLITE_BUSY: another process has it open
  }
  if (mode !== 'delete') return { active: false, leave: () => {} }
  const synchronous = client.query<{ synchronous: number }, []>('PRAGMA synchronous').get()!.synchronous
  client.run('PRAGMA synchronous = FULL')
  // The page cache of this process: 8 MB, a bound on an import's peak memory (≤ 300 MB) more
  // than a speed-up. bench-data.ts: 100,000 prompts in 10.7 s with 8 MB, 10.2 s with 32 MB, the
  // same CPU with 256 MB at a 520 MB peak; 1,000,000 prompts peaked at 311–321 MB with 32 MB,
  // 279 MB with 8 MB, in the same time.
  client.run('PRAGMA cache_size = -8192')
  return {
    active: true,
    leave: () => {
      // Back to WAL: like the switch at open, this waits (bounded) for a process that opened the database meanwhile.
      switchToWal(client, Date.now() + lockTimeoutMs)
      client.run(`PRAGMA synchronous = ${synchronous}`)
    },
  }
}
