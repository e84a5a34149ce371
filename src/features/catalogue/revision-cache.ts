// Values computed from the catalogue, kept until its revision moves: only an import changes the
// catalogue, and it moves the revision in its own transaction. At most `max` values are kept.
export function revisionCache<V>(max = 10_000) {
  let revision = -1
  const values = new Map<string, V>()
  return (at: number, key: string, compute: () => V): V => {
    if (at !== revision) {
      revision = at
      values.clear()
    }
    let value = values.get(key)
    if (value === undefined) {
      value = compute()
      if (values.size >= max) values.clear()
      values.set(key, value)
    }
    return value
  }
}

/**
 * The same for values read asynchronously. A value is kept only once read, and only if the
 * revision has not moved meanwhile; a failed read is not kept.
 */
export function asyncRevisionCache<V>(max = 10_000) {
  let revision = -1
  const values = new Map<string, V>()
  return async (at: number, key: string, compute: () => Promise<V>): Promise<V> => {
    if (at !== revision) {
      if (at < revision) return compute() // a reader behind another instance's newer answer
      revision = at
      values.clear()
    }
    const known = values.get(key)
    if (known !== undefined) return known
    const value = await compute()
    if (at === revision) {
      if (values.size >= max) values.clear()
      values.set(key, value)
    }
    return value
  }
}
