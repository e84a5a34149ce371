// The files of a data directory a command must never write over: the database, what SQLite keeps
// beside it, and the JWT secret. `export` and `backup` write where they are told; a typo of the
// database's name there replaced every account with a JSON file.
import { realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { type Config, JWT_SECRET_FILE } from '../config'
import { databaseFile } from '../db'
import { UsageError } from './context'

/** The same path once the directories are resolved (a symlinked DATA_DIR included). */
export function sameFile(a: string, b: string): boolean {
  const real = (path: string) => {
    try {
      return join(realpathSync(dirname(resolve(path))), basename(path))
    } catch {
      return resolve(path)
    }
  }
  return real(a) === real(b)
}

/** Refuses `target` (UsageError) when it is one of the data directory's own files; `what` names what was to be written there. */
export function refuseDataFile(target: string, config: Config, what: string): void {
  const file = databaseFile(config)
  if (sameFile(target, file)) throw new UsageError(`${target} is the database itself; write the ${what} to a file of its own`)
  // The next open would take a file there for a stale log or journal, and delete it.
  if (['-wal', '-shm', '-journal'].some((suffix) => sameFile(target, `${file}${suffix}`)))
    throw new UsageError(`${target} is a file SQLite keeps beside the database; give the ${what} a name of its own`)
  if (sameFile(target, join(config.dataDir, JWT_SECRET_FILE)))
    throw new UsageError(`${target} is the JWT secret every session is signed with; write the ${what} to a file of its own`)
}
