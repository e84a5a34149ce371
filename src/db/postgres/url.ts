// Kept apart from the driver: commands name the database in messages without loading postgres-js.

/** A query parameter that may carry a secret (libpq users write `?password=…`, `?sslpassword=…`). */
const SECRET_PARAMETER = /pass|secret|token|key/i

/** `postgres://user:pass@host/db` without the password (in the user part or the query), for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    for (const name of [...u.searchParams.keys()]) if (SECRET_PARAMETER.test(name)) u.searchParams.set(name, '***')
    return u.toString()
  } catch {
    return 'postgres://…'
  }
}
