/** LIST of the fake API server: namespace, label and field selectors, and paging with limit / continue tokens. */
import { matchesFieldSelector, matchesLabelSelector, parseFieldSelector, parseLabelSelector } from './selectors';
import { badRequest } from './status';
import type { KubeObject, ResourceType } from './types';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** The key a continue token resumes after ('' without a token). */
function continueAfter(token: string | undefined): string {
  if (!token) return '';
  try {
    return String((JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { start: string }).start);
  } catch {
    throw badRequest('invalid continue token');
  }
}

/**
 * One page of `bucket` (stored objects by key) in key order. `read` copies a stored object as served (with
 * computed fields when `decorated`); field selectors then run on what is served.
 */
export function listObjects(
  bucket: ReadonlyMap<string, KubeObject>,
  rt: ResourceType,
  opts: ListOptions,
  read: (o: KubeObject) => KubeObject,
  decorated: boolean,
  resourceVersion: string,
): ListResult {
  const labels = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : [];
  const fields = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector) : [];
  const prefix = rt.namespaced && opts.namespace ? `${opts.namespace}/` : '';
  const start = continueAfter(opts.continue);
  // Selectors run on the stored objects first (labels are never computed), so only matches are copied.
  const all = [...bucket.entries()]
    .filter(
      ([k, o]) =>
        k.startsWith(prefix) && (!start || k > start) && matchesLabelSelector(o.metadata.labels, labels) && (decorated || matchesFieldSelector(o, fields)),
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, o]) => [k, read(o)] as const)
    .filter(([, o]) => !decorated || matchesFieldSelector(o, fields));
  const limit = opts.limit && opts.limit > 0 ? opts.limit : all.length;
  const page = all.slice(0, limit);
  const rest = all.length - page.length;
  const result: ListResult = { items: page.map(([, o]) => o), resourceVersion };
  if (rest > 0) {
    result.continue = Buffer.from(JSON.stringify({ start: page[page.length - 1][0] })).toString('base64url');
    result.remainingItemCount = rest;
  }
  return result;
}
