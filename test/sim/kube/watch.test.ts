import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Watch } from '@kubernetes/client-node';
import { nodeJson, startHarness, type Harness } from './fixtures';

describe('fake API server: watch streams', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  /** Collects `count` events from a client-node Watch, then aborts it. */
  async function collect(path: string, query: Record<string, string>, count: number, act: () => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const ctl = await new Watch(h.kc).watch(
      path,
      query,
      (type, obj: { metadata: { name: string } }) => {
        seen.push(`${type} ${obj.metadata.name}`);
        if (seen.length === count) done();
      },
      () => done(),
    );
    await act();
    await finished;
    ctl.abort();
    return seen;
  }

  it('should start with the existing objects and then stream changes, filtered by label selector', async () => {
    // Prepare
    h.api.apply(nodeJson('old', { labels: { pool: 'a' } }));
    // Act
    const seen = await collect('/api/v1/nodes', { labelSelector: 'pool=a' }, 3, async () => {
      h.api.apply(nodeJson('other', { labels: { pool: 'b' } }));
      h.api.apply(nodeJson('new', { labels: { pool: 'a' } }));
      h.api.remove('v1', 'Node', 'old');
    });
    // Assess
    expect(seen).toEqual(['ADDED old', 'ADDED new', 'DELETED old']);
  });

  it('should replay the changes after a given resourceVersion', async () => {
    // Prepare
    h.api.apply(nodeJson('first'));
    const rv = h.api.store.resourceVersion();
    h.api.apply(nodeJson('second'));
    // Act
    const seen = await collect('/api/v1/nodes', { resourceVersion: rv }, 2, async () => {
      h.api.apply(nodeJson('third'));
    });
    // Assess
    expect(seen).toEqual(['ADDED second', 'ADDED third']);
  });
});
