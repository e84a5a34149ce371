// Kept apart from the driver: commands name the database in messages without loading postgres-js.

/** `postgres://user:pass@host/db` without the password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'postgres://…'
  }
}
