/** EC2 `Filters` semantics: each filter must match (AND); any of a filter's values may match (OR); `*` and `?` are wildcards. */
import type { Filter, Tag } from '@aws-sdk/client-ec2';

const wildcard = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** The compiled wildcard patterns (a pattern without `*` or `?` is compared as a string and never compiled). */
const patterns = new Map<string, RegExp>();

const anyMatches = (values: readonly string[], candidates: readonly string[]): boolean =>
  values.some((v) => {
    if (!/[*?]/.test(v)) return candidates.includes(v);
    let re = patterns.get(v);
    if (!re) patterns.set(v, (re = wildcard(v)));
    return candidates.some((c) => re.test(c));
  });

/**
 * True when a resource with these attributes (filter name → value(s)) and tags passes every filter.
 * An unknown filter name matches nothing, as EC2 would reject it.
 */
export function matchesFilters(
  filters: readonly Filter[] | undefined,
  attributes: Record<string, string | string[] | undefined>,
  tags: Record<string, string>,
): boolean {
  for (const f of filters ?? []) {
    const name = f.Name ?? '';
    const values = f.Values ?? [];
    let candidates: string[];
    if (name.startsWith('tag:')) {
      const v = tags[name.slice(4)];
      candidates = v === undefined ? [] : [v];
    } else if (name === 'tag-key') {
      candidates = Object.keys(tags);
    } else if (name === 'tag-value') {
      candidates = Object.values(tags);
    } else {
      const a = attributes[name];
      candidates = a === undefined ? [] : Array.isArray(a) ? a : [a];
    }
    if (!anyMatches(values, candidates)) return false;
  }
  return true;
}

export const tagList = (tags: Record<string, string>): Tag[] =>
  Object.entries(tags)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([Key, Value]) => ({ Key, Value }));

export const tagRecord = (tags: readonly Tag[] | undefined): Record<string, string> =>
  Object.fromEntries((tags ?? []).filter((t) => t.Key).map((t) => [t.Key as string, t.Value ?? '']));

/** Pages `items` for a NextToken API (the token is the next index). */
export function page<T>(
  items: readonly T[],
  nextToken: string | undefined,
  maxResults: number | undefined,
  defaultSize = 100,
): { items: T[]; NextToken?: string } {
  const start = nextToken ? Number(nextToken) : 0;
  const size = Math.max(1, maxResults ?? defaultSize);
  const slice = items.slice(start, start + size);
  return start + size < items.length ? { items: slice, NextToken: String(start + size) } : { items: slice };
}
