// Usage lines shared by the help text and the commands (kept apart so the help does not load them).
export const IMPORT_USAGE = 'promptlib import PATH… [--category SLUG] [--dry-run]  import .json catalogues, .csv prompt lists, skill folders'
export const DB_USAGE = 'promptlib db copy --to postgres://…    copy this SQLite install into an empty PostgreSQL database'
