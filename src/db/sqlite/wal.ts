// The bounds of the SQLite write-ahead log, shared by the connections (client.ts) and the
// background checkpointer (checkpoint-worker.ts). No imports: the worker is its own entry point.

const MiB = 1024 * 1024

/**
 * Above this size the checkpointer restarts the log even while writers are busy. Measured here
 * with 16 clients adding and removing favorites through HTTP (about 9,000 commits/s, the log
 * growing by ~150 MB/s): at 64 MiB the file peaked at 95 MB and write p99 was 5.5 ms (6.1 ms
 * with the unbounded log, which reached 1.2 GB in 8 s); at 16 MiB or 4 MiB the peak was 45 or
 * 22 MB but p99 doubled to 11 ms, because each restart holds the write lock while it syncs.
 * A database of a few MB does not need a smaller log than this.
 */
export const WAL_RESTART_ABOVE_BYTES = 64 * MiB

/**
 * `PRAGMA journal_size_limit`: when a writer starts the log over, it cuts the file back to this
 * size. The same as the restart threshold: under load the file is reused in place instead of
 * being cut and grown again, and it never stays above the threshold. (An idle log is truncated
 * to zero by the checkpointer.)
 */
export const WAL_SIZE_LIMIT_BYTES = WAL_RESTART_ABOVE_BYTES
