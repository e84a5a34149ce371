// PostgreSQL's text holds every character but NUL (U+0000), which it refuses in a statement's
// parameters where SQLite stores it. Nothing stored holds one (imports and validation refuse it,
// ids are generated), so a lookup by a key with a NUL finds nothing, as on SQLite, without asking.

/** `key` holds a NUL: no row has it, and PostgreSQL would refuse the statement that looks for it. */
export const cannotBeStored = (key: string) => key.includes('\u0000')
