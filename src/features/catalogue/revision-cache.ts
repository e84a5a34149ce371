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
