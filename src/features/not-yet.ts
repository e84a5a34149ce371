// TEMPORARY (two-engines conversion): a feature not yet on PostgreSQL answers every call with
// an error, so the others can run (and be tested) on PostgreSQL meanwhile.
export function notYetOnPostgres<T>(feature: string, extra: Partial<T> = {}): T {
  return new Proxy(extra as object, {
    get(target, key) {
      if (key in target) return (target as Record<PropertyKey, unknown>)[key]
      if (key === 'then') return undefined
      return () => {
        throw new Error(`${feature} does not run on PostgreSQL yet`)
      }
    },
  }) as T
}
