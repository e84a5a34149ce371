// Usage lines shared by the help text and the commands (kept apart so the help does not load them).
export const IMPORT_USAGE = 'promptlib import PATH… [--category SLUG] [--dry-run]  import .json catalogues, .csv prompt lists, skill folders'
export const DB_USAGE = 'promptlib db copy --to postgres://…    copy this SQLite install into an empty PostgreSQL database'
export const EXPORT_USAGE = 'promptlib export [--format json|csv] [--category SLUG] [PATH|-]  write the catalogue in an import format'
export const BACKUP_USAGE = 'promptlib backup PATH                  a consistent copy of the SQLite database, also while the server runs'
export const RESTORE_USAGE = 'promptlib restore PATH                 put a backup in place of the SQLite database (no server may have it open)'
