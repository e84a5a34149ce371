// A small disk to fill: a tmpfs mounted for one test. Only where this process may mount one (root,
// in a container that allows it) and on the SQLite pass: elsewhere the tests that need it skip.
import { spawnSync } from 'node:child_process'
import { tempDir, TEST_ENGINE } from './app'

export const canMountTmpfs = (() => {
  if (process.getuid?.() !== 0 || TEST_ENGINE !== 'sqlite') return false
  const probe = tempDir()
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status !== 0) return false
  spawnSync('umount', [probe])
  return true
})()

/** Runs `fn` with a directory on a tmpfs of `size` (e.g. '3m'), unmounted after. */
export function withSmallDisk<T>(size: string, fn: (dir: string) => T): T {
  const dir = tempDir()
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir])
  if (mounted.status !== 0) throw new Error(`mount failed: ${mounted.stderr}`)
  try {
    return fn(dir)
  } finally {
    spawnSync('umount', [dir])
  }
}
