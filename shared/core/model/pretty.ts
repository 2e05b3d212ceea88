/** Karpenter's PrettySlice: the first `max` items, then "and N other(s)" — how its logs and events name many things. */
export function prettySlice(items: readonly string[], max = 5): string {
  const head = items.slice(0, max).join(', ');
  return items.length > max ? `${head} and ${items.length - max} other(s)` : head;
}
