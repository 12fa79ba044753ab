/** The items of `list` by key, each group in the list's order. */
export function groupBy<T, K>(list: Iterable<T>, key: (t: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const t of list) {
    const k = key(t);
    const l = map.get(k);
    if (l) {
      l.push(t);
    } else {
      map.set(k, [t]);
    }
  }
  return map;
}
