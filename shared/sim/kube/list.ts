/** LIST of the fake API server: namespace, label and field selectors, and paging with limit / continue tokens. */
import { matchesFieldSelector, matchesLabelSelector, parseFieldSelector, parseLabelSelector } from './selectors';
import { badRequest } from './status';
import type { Bucket } from './bucket';
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
 * One page of `bucket` in key order, in O(page): the page starts at the continue token's key by binary search,
 * and only the objects served are copied. `read` copies a stored object as served (with computed fields when
 * `decorated`); field selectors then run on what is served. As the API server, remainingItemCount is given only
 * when no selector narrows the list; a continue token only when some object after the page matches.
 */
export function listObjects(
  bucket: Bucket,
  rt: ResourceType,
  opts: ListOptions,
  read: (o: KubeObject) => KubeObject,
  decorated: boolean,
  resourceVersion: string,
): ListResult {
  const labels = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : [];
  const fields = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector) : [];
  const prefix = rt.namespaced && opts.namespace ? `${opts.namespace}/` : '';
  const after = continueAfter(opts.continue);
  const { from, to } = bucket.span(prefix, after);
  const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
  // Selectors run on the stored objects first (labels are never computed), so only matches are copied.
  const served = (o: KubeObject): KubeObject | undefined => {
    if (!matchesLabelSelector(o.metadata.labels, labels) || (!decorated && !matchesFieldSelector(o, fields))) return undefined;
    const copy = read(o);
    return !decorated || matchesFieldSelector(copy, fields) ? copy : undefined;
  };
  // A field compared for equality (a pod's spec.nodeName) narrows the keys to look at by its index; else the span.
  const indexed = decorated ? undefined : fields.find((f) => !f.negate);
  const candidates = indexed
    ? bucket.keysWithField(indexed.path, indexed.value).filter((k) => k.startsWith(prefix) && (!(after && after >= prefix) || k > after))
    : undefined;
  const count = candidates ? candidates.length : to - from;
  const at = candidates ? (j: number): [string, KubeObject] => [candidates[j], bucket.get(candidates[j])!] : (j: number) => bucket.at(from + j);
  const items: KubeObject[] = [];
  let i = 0;
  let lastKey = '';
  for (; i < count && items.length < limit; i++) {
    const [k, o] = at(i);
    const copy = served(o);
    if (copy) {
      items.push(copy);
      lastKey = k;
    }
  }
  const result: ListResult = { items, resourceVersion };
  const selective = labels.length > 0 || fields.length > 0;
  let more = false;
  for (let j = i; j < count && !more; j++) more = !selective || served(at(j)[1]) !== undefined;
  if (more) {
    result.continue = Buffer.from(JSON.stringify({ start: lastKey })).toString('base64url');
    if (!selective) result.remainingItemCount = count - i;
  }
  return result;
}
