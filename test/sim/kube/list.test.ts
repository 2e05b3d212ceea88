import { describe, expect, it } from 'vitest';
import { Bucket } from '../../../shared/sim/kube/bucket';
import { listObjects, type ListOptions } from '../../../shared/sim/kube/list';
import type { KubeObject, ResourceType } from '../../../shared/sim/kube/types';

const pods: ResourceType = { group: '', version: 'v1', resource: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, subresources: [] };
const NAMESPACES = ['a', 'a-b', 'ab', 'b', 'kube-system'];

/** A small deterministic generator (the same cases every run). */
function generator(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
}

const pod = (namespace: string, name: string, app: string, nodeName: string): KubeObject => ({
  metadata: { name, namespace, labels: { app } },
  spec: { nodeName },
});

/** What a LIST means: the matches in key order, after the continue token's key, `limit` of them. */
function reference(objects: Map<string, KubeObject>, opts: ListOptions, after: string): string[] {
  return [...objects.entries()]
    .filter(([k]) => (!opts.namespace || k.startsWith(`${opts.namespace}/`)) && k > after)
    .filter(([, o]) => !opts.labelSelector || o.metadata.labels?.app === 'x')
    .filter(([, o]) => !opts.fieldSelector || (o.spec as { nodeName?: string }).nodeName === 'n1')
    .map(([k]) => k)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('fake API server LIST paging', () => {
  it('should page like a slice of the sorted matches, resuming after the token while objects come and go', () => {
    // Prepare
    const rnd = generator(7);
    const keyOf = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
    let pages = 0;
    for (let trial = 0; trial < 300; trial++) {
      const objects = new Map<string, KubeObject>();
      const bucket = new Bucket();
      const put = (o: KubeObject) => {
        objects.set(keyOf(o), o);
        bucket.set(keyOf(o), o);
      };
      const remove = (k: string) => {
        objects.delete(k);
        bucket.delete(k);
      };
      const randomPod = () => pod(NAMESPACES[rnd(NAMESPACES.length)], `p${rnd(30)}`, rnd(2) ? 'x' : 'y', rnd(2) ? 'n1' : '');
      for (let i = rnd(40); i > 0; i--) put(randomPod());
      for (const k of [...objects.keys()]) if (rnd(5) === 0) remove(k);
      const opts: ListOptions = {
        ...(rnd(3) === 0 ? { namespace: NAMESPACES[rnd(NAMESPACES.length)] } : {}),
        ...(rnd(2) ? { labelSelector: 'app=x' } : {}),
        ...(rnd(3) === 0 ? { fieldSelector: 'spec.nodeName=n1' } : {}),
        ...(rnd(3) ? { limit: 1 + rnd(6) } : {}),
      };
      const selective = Boolean(opts.labelSelector || opts.fieldSelector);
      let after = '';
      for (let page = 0; page < 50; page++) {
        // Act
        const result = listObjects(bucket, pods, opts, (o) => structuredClone(o), false, '1');
        // Assess
        const matches = reference(objects, opts, after);
        const expected = matches.slice(0, opts.limit ?? matches.length);
        expect(result.items.map(keyOf)).toEqual(expected);
        expect(result.continue !== undefined).toBe(matches.length > expected.length);
        expect(result.remainingItemCount).toBe(!selective && matches.length > expected.length ? matches.length - expected.length : undefined);
        pages++;
        if (!result.continue) break;
        after = expected[expected.length - 1];
        opts.continue = result.continue;
        // Objects created and deleted between pages, as a long list meets a live cluster.
        if (rnd(3) === 0) put(randomPod());
        if (rnd(3) === 0 && objects.size > 0) remove([...objects.keys()][rnd(objects.size)]);
      }
    }
    expect(pages).toBeGreaterThan(500);
  });
});
