// Database errors the adapters translate into outcomes, for both engines. Drivers and drizzle
// wrap errors in each other (`cause`), so the whole chain is searched.
function codes(error: unknown): string[] {
  const out: string[] = []
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') out.push(code)
  }
  return out
}

/** A unique or primary-key constraint refused the write (SQLite SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY, PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return codes(error).some((c) => c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY' || c === '23505')
}

/** A foreign key refused the write (SQLite SQLITE_CONSTRAINT_FOREIGNKEY, PostgreSQL 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  return codes(error).some((c) => c === 'SQLITE_CONSTRAINT_FOREIGNKEY' || c === '23503')
}

/**
 * Another connection held a lock for longer than this one would wait: SQLite's SQLITE_BUSY /
 * SQLITE_LOCKED (another process's import or long transaction), PostgreSQL's lock_not_available
 * (55P03, a lock_timeout). Nothing is wrong with the request: the same request later succeeds.
 */
export function isLockTimeout(error: unknown): boolean {
  return codes(error).some((c) => c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED') || c === '55P03')
}

/**
 * PostgreSQL refused a NUL (U+0000) in text (22021, character_not_in_repertoire) or in JSON
 * (22P05, untranslatable_character), where SQLite stores it. The adapters and the validation keep
 * NUL away from every statement; should one get through, the client sent it, so it is theirs to fix.
 */
export function isUnstorableText(error: unknown): boolean {
  return codes(error).some((c) => c === '22021' || c === '22P05')
}

/**
 * The database was migrated by a newer promptlib: this version would serve a schema it does not
 * know (a column it never writes, a trigger it does not expect). Refused at open, by every command.
 */
export class NewerDatabaseError extends Error {
  constructor(lastApplied: number, newestKnown: number) {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    super(
      `the database was migrated by a newer promptlib (its last migration is from ${day(lastApplied)}, this version knows none after ${day(newestKnown)}): run that version, or restore a backup taken before the upgrade (docs/operations.md, "Upgrade")`,
    )
  }
}
