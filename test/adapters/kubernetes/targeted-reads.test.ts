/** The targeted reads garbage collection uses, against the fake API server: a LIST of only the kinds asked for, a GET of one claim. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeClusterClient } from '../../../shared/adapters/kubernetes';
import { nodeClassJson, nodeJson, nodePoolJson, podJson, startHarness, type Harness } from '../../sim/kube/fixtures';
import { nodeClaim } from './claims';
import { epochMs } from '../../../shared/core/time';

describe('KubeClusterClient targeted reads', () => {
  let h: Harness;
  let client: KubeClusterClient;
  const t = () => h.api.store;
  const put = (apiVersion: string, kind: string, obj: Parameters<ReturnType<typeof t>['create']>[2], ns?: string) =>
    t().create(t().typeOf(apiVersion, kind), ns, obj);
  /** Stores an object as an older CRD let it in: the API server's schema is not applied (today's would refuse it). */
  const putUnchecked = (apiVersion: string, kind: string, obj: Parameters<typeof put>[2]) => {
    const rt = t().typeOf(apiVersion, kind);
    const schema = rt.schema;
    delete rt.schema;
    try {
      put(apiVersion, kind, obj);
    } finally {
      rt.schema = schema;
    }
  };

  beforeEach(async () => {
    h = await startHarness();
    client = new KubeClusterClient(h.kc, { pageSize: 2, now: () => epochMs(h.clock.now) });
  });
  afterEach(async () => {
    await h.close();
  });

  it('should list only the kinds asked for, across pages', async () => {
    // Prepare
    for (const n of ['node-a', 'node-b', 'node-c']) put('v1', 'Node', nodeJson(n));
    put('v1', 'Pod', podJson('p1', { nodeName: 'node-a' }), 'default');
    put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
    put('karpenter.k8s.aws/v1', 'EC2NodeClass', nodeClassJson('default'));
    for (const name of ['default-a', 'default-b', 'default-c']) await client.createNodeClaim(nodeClaim(name));
    const listed = vi.spyOn(t(), 'list');

    // Act
    const objects = await client.listObjects(['nodes', 'nodeClaims']);

    // Assess
    expect(Object.keys(objects).sort()).toEqual(['nodeClaims', 'nodes']);
    expect(objects.nodes.map((n) => n.name)).toEqual(['node-a', 'node-b', 'node-c']);
    expect(objects.nodeClaims.map((c) => c.name)).toEqual(['default-a', 'default-b', 'default-c']);
    expect([...new Set(listed.mock.calls.map(([rt]) => rt.resource))].sort()).toEqual(['nodeclaims', 'nodes']);
  });

  it('should tell a missing NodeClaim from one stored but unreadable by this version, naming the field', async () => {
    // Prepare
    await client.createNodeClaim(nodeClaim('default-ok'));
    const stored = { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'default-old' }, spec: { nodeClassRef: { name: 'default' } } };
    putUnchecked('karpenter.sh/v1', 'NodeClaim', {
      ...stored,
      spec: { ...stored.spec, requirements: [{ key: 'karpenter.k8s.aws/instance-generation', operator: 'Matches', values: ['6'] }] },
    });

    // Act
    const [ok, old, missing, listed] = await Promise.all([
      client.readNodeClaim('default-ok'),
      client.readNodeClaim('default-old'),
      client.readNodeClaim('default-nope'),
      client.listObjects(['nodeClaims']),
    ]);

    // Assess
    expect(ok).toMatchObject({ found: true, claim: { name: 'default-ok' } });
    expect(old).toEqual({ found: true, unreadable: 'spec.requirements[0].operator: unsupported operator "Matches"' });
    expect(missing).toEqual({ found: false });
    expect(listed.nodeClaims.map((c) => c.name)).toEqual(['default-ok']);
    expect(listed.invalid?.map((i) => `${i.kind}/${i.name}`)).toEqual(['NodeClaim/default-old']);
  });
});
