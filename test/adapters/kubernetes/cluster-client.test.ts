import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClusterClient } from '../../../shared/adapters/kubernetes';
import { isNodeClaimNotFoundError } from '../../../shared/core/errors';
import { deploymentJson, nodeClassJson, nodeJson, nodePoolJson, pdbJson, podJson, startHarness, type Harness } from '../../sim/kube/fixtures';
import { nodeClaim } from './claims';
import { epochMs } from '../../../shared/core/time';

describe('KubeClusterClient against the fake API server', () => {
  let h: Harness;
  let client: KubeClusterClient;
  const t = () => h.api.store;
  const put = (apiVersion: string, kind: string, obj: Parameters<ReturnType<typeof t>['create']>[2], ns?: string) =>
    t().create(t().typeOf(apiVersion, kind), ns, obj);

  beforeEach(async () => {
    h = await startHarness();
    client = new KubeClusterClient(h.kc, { pageSize: 2, now: () => epochMs(h.clock.now) });
  });
  afterEach(async () => {
    await h.close();
  });

  describe('snapshot', () => {
    it('should read every kind across pages and map it to the core model', async () => {
      // Prepare
      for (const n of ['node-a', 'node-b', 'node-c']) put('v1', 'Node', nodeJson(n, { providerID: `aws:///us-east-1a/i-${n}` }));
      for (const p of ['p1', 'p2', 'p3']) put('v1', 'Pod', podJson(p, { unschedulable: true, cpu: '500m' }), 'default');
      put('v1', 'Pod', podJson('done', { phase: 'Succeeded', nodeName: 'node-a' }), 'default');
      put('policy/v1', 'PodDisruptionBudget', pdbJson('web', { app: 'web' }, { minAvailable: 1 }), 'default');
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
      put('karpenter.k8s.aws/v1', 'EC2NodeClass', nodeClassJson('default'));
      await client.createNodeClaim(nodeClaim('default-abcde'));
      // Act
      const snap = await client.snapshot();
      // Assess
      expect(snap.nodes.map((n) => n.name)).toEqual(['node-a', 'node-b', 'node-c']);
      expect(snap.pods.map((p) => p.name)).toEqual(['p1', 'p2', 'p3']);
      expect(snap.pods[0].requests.cpu).toBe(500);
      expect(snap.pods[0].unschedulable).toBe(true);
      expect(snap.pdbs[0]).toMatchObject({ name: 'web', disruptionsAllowed: 0 });
      expect(snap.nodePools.map((p) => p.name)).toEqual(['default']);
      expect(snap.nodeClasses.map((c) => c.name)).toEqual(['default']);
      expect(snap.nodeClaims.map((c) => c.name)).toEqual(['default-abcde']);
      expect(snap.invalid).toBeUndefined();
    });

    it('should report an invalid NodePool in snapshot.invalid and still return the rest', async () => {
      // Prepare
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('good'));
      // Objects stored before their CRD carried today's rules (the API server now refuses both): nodewright must
      // still read the rest of the cluster.
      const unchecked = (apiVersion: string, kind: string, obj: Parameters<typeof put>[2]) => {
        const rt = t().typeOf(apiVersion, kind);
        const schema = rt.schema;
        delete rt.schema;
        try {
          put(apiVersion, kind, obj);
        } finally {
          rt.schema = schema;
        }
      };
      unchecked('karpenter.sh/v1', 'NodePool', nodePoolJson('bad', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In' }] }));
      const broken = nodeClassJson('broken');
      unchecked('karpenter.k8s.aws/v1', 'EC2NodeClass', { ...broken, spec: { ...(broken.spec as object), amiSelectorTerms: [{ alias: 'nope@latest' }] } });
      // Act
      const snap = await client.snapshot();
      // Assess
      expect(snap.nodePools.map((p) => p.name)).toEqual(['good']);
      expect(snap.invalid?.map((i) => `${i.kind}/${i.name}`)).toEqual(['NodePool/bad', 'EC2NodeClass/broken']);
      expect(snap.invalid?.[0].reason).toMatch(/requirements/);
    });
  });

  describe('NodeOverlays', () => {
    const overlayJson = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name },
      spec: { requirements: [], ...spec },
    });

    it('should read NodeOverlays with the snapshot, the launch reads and the scoped configuration, and write their conditions once', async () => {
      // Prepare
      put('karpenter.sh/v1alpha1', 'NodeOverlay', overlayJson('discount', { priceAdjustment: '-10%', weight: 3 }));
      // Act
      const snap = await client.snapshot();
      const listed = await client.listObjects(['nodeOverlays']);
      const config = await client.schedulingConfig();
      const ready = [
        { type: 'ValidationSucceeded', status: 'True' as const, reason: 'ValidationSucceeded', message: '' },
        { type: 'Ready', status: 'True' as const, reason: 'Ready', message: '' },
      ];
      const first = await client.patchNodeOverlayStatus('discount', ready);
      const again = await client.patchNodeOverlayStatus('discount', ready);
      const gone = await client.patchNodeOverlayStatus('missing', ready);
      // Assess
      expect(snap.nodeOverlays).toEqual([{ name: 'discount', weight: 3, requirements: [], priceAdjustment: '-10%', capacity: {}, generation: 1 }]);
      expect(listed.nodeOverlays?.map((o) => o.name)).toEqual(['discount']);
      expect(config.nodeOverlays?.map((o) => o.name)).toEqual(['discount']);
      expect([first, again, gone]).toEqual([true, false, false]);
      const stored = (await client.listObjects(['nodeOverlays'])).nodeOverlays?.[0];
      expect(stored?.observedConditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['ValidationSucceeded=True', 'Ready=True']);
    });

    it('should read no NodeOverlays, and fail nothing, on a cluster without their CRD', async () => {
      // Prepare
      await h.close();
      h = await startHarness('test-token', { withoutNodeOverlays: true });
      client = new KubeClusterClient(h.kc, { pageSize: 2, now: () => epochMs(h.clock.now) });
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
      // Act
      const snap = await client.snapshot();
      const config = await client.schedulingConfig();
      const written = await client.patchNodeOverlayStatus('x', []);
      // Assess
      expect(snap.nodePools.map((p) => p.name)).toEqual(['default']);
      expect(snap.nodeOverlays).toEqual([]);
      expect(config.nodeOverlays).toEqual([]);
      expect(written).toBe(false);
    });
  });

  describe('reads', () => {
    it('should find nodes by name and unregistered nodes by providerID, and list the active pods on a node', async () => {
      // Prepare
      put('v1', 'Node', nodeJson('node-a', { providerID: 'aws:///us-east-1a/i-0aaa' }));
      put('v1', 'Node', nodeJson('node-b', { providerID: 'aws:///us-east-1b/i-0bbb' }));
      put('v1', 'Node', nodeJson('node-c', { providerID: 'aws:///us-east-1b/i-0ccc', labels: { 'karpenter.sh/registered': 'true' } }));
      put('v1', 'Pod', podJson('on-b', { nodeName: 'node-b' }), 'default');
      put('v1', 'Pod', podJson('finished', { nodeName: 'node-b', phase: 'Succeeded' }), 'default');
      put('v1', 'Pod', podJson('on-a', { namespace: 'kube-system', nodeName: 'node-a' }), 'kube-system');
      // Act
      const byName = await client.getNode('node-a');
      const missing = await client.getNode('nope');
      const byProvider = await client.findUnregisteredNode('aws:///us-east-1b/i-0bbb');
      const registered = await client.findUnregisteredNode('aws:///us-east-1b/i-0ccc');
      const pods = await client.listPodsOnNode('node-b');
      // Assess
      expect(byName?.providerID).toBe('aws:///us-east-1a/i-0aaa');
      expect(missing).toBeUndefined();
      expect(byProvider?.name).toBe('node-b');
      expect(registered).toBeUndefined();
      expect(pods.map((p) => p.name)).toEqual(['on-b']);
    });
  });

  describe('scoped reads', () => {
    it("should read the cluster's configuration without its workload, and a NodePool by name", async () => {
      // Prepare
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('spot'));
      put('karpenter.k8s.aws/v1', 'EC2NodeClass', nodeClassJson('default'));
      put('v1', 'Pod', podJson('p1'), 'default');
      // Act
      const config = await client.schedulingConfig();
      const pool = await client.getNodePool('spot');
      const missing = await client.getNodePool('nope');
      // Assess
      expect(Object.keys(config).sort()).toEqual(['daemonSets', 'nodeClasses', 'nodeOverlays', 'nodePools', 'storageClasses']);
      expect(config.nodePools.map((p) => p.name)).toEqual(['default', 'spot']);
      expect(config.nodeClasses.map((c) => c.name)).toEqual(['default']);
      expect(pool?.name).toBe('spot');
      expect(missing).toBeUndefined();
    });

    it('should read the named claims of pods and the volumes bound to them, leaving out missing ones', async () => {
      // Prepare
      put('v1', 'PersistentVolume', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv-1' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } },
      });
      put(
        'v1',
        'PersistentVolumeClaim',
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'data', namespace: 'default' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pv-1' },
        },
        'default',
      );
      // Act
      const volumes = await client.volumesOf([
        { namespace: 'default', name: 'data' },
        { namespace: 'default', name: 'data' },
        { namespace: 'default', name: 'gone' },
      ]);
      // Assess
      expect(volumes.persistentVolumeClaims.map((c) => c.name)).toEqual(['data']);
      expect(volumes.persistentVolumes.map((v) => v.name)).toEqual(['pv-1']);
    });

    it('should list the NodeClaims across pages', async () => {
      // Prepare
      for (const n of ['default-aaaaa', 'default-bbbbb', 'default-ccccc']) await client.createNodeClaim(nodeClaim(n));
      // Act
      const claims = await client.listNodeClaims();
      // Assess
      expect(claims.map((c) => c.name)).toEqual(['default-aaaaa', 'default-bbbbb', 'default-ccccc']);
    });
  });

  describe('NodeClaims', () => {
    it('should create a claim once and return the existing one on a second create', async () => {
      // Act
      const first = await client.createNodeClaim(nodeClaim('default-x1'));
      const second = await client.createNodeClaim(nodeClaim('default-x1', { labels: { changed: 'yes' } }));
      // Assess
      expect(second.uid).toBe(first.uid);
      expect(second.labels.changed).toBeUndefined();
      expect(second.finalizers).toEqual(['karpenter.sh/termination']);
      expect(second.spec.resources.requests.cpu).toBe(1500);
    });

    it('should merge status fields and upsert conditions by type, keeping unchanged transition times', async () => {
      // Prepare
      await client.createNodeClaim(nodeClaim('default-x2'));
      await client.patchNodeClaimStatus('default-x2', { providerID: 'aws:///us-east-1a/i-0123', conditions: [{ type: 'Launched', status: 'True' }] });
      h.clock.now += 30_000;
      // Act
      await client.patchNodeClaimStatus('default-x2', {
        nodeName: 'ip-10-0-0-1',
        capacity: { cpu: 2000 },
        conditions: [
          { type: 'Launched', status: 'True' },
          { type: 'Registered', status: 'True' },
        ],
      });
      const claim = await client.getNodeClaim('default-x2');
      // Assess
      expect(claim?.status.providerID).toBe('aws:///us-east-1a/i-0123');
      expect(claim?.status.nodeName).toBe('ip-10-0-0-1');
      expect(claim?.status.capacity?.cpu).toBe(2000);
      expect(claim?.status.conditions.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
        ['Launched', 'True', h.clock.now - 30_000],
        ['Registered', 'True', h.clock.now],
      ]);
    });

    it('should throw NodeClaimNotFoundError when patching the status of a missing claim', async () => {
      // Act
      const err = await client.patchNodeClaimStatus('ghost', { conditions: [{ type: 'Launched', status: 'True' }] }).catch((e: unknown) => e);
      // Assess
      expect(isNodeClaimNotFoundError(err)).toBe(true);
    });

    it('should only mark a claim with finalizers on delete, and remove it once the finalizer is cleared, twice without error', async () => {
      // Prepare
      await client.createNodeClaim(nodeClaim('default-x3'));
      // Act
      await client.deleteNodeClaim('default-x3');
      const marked = await client.getNodeClaim('default-x3');
      await client.patchNodeClaimMetadata('default-x3', { labels: { 'karpenter.sh/disrupted': 'true' } });
      await client.patchNodeClaimMetadata('default-x3', { finalizers: [] });
      await client.patchNodeClaimMetadata('default-x3', { finalizers: [] });
      await client.deleteNodeClaim('default-x3');
      // Assess
      expect(marked?.deletionTimestamp).toBe(h.clock.now);
      expect(await client.getNodeClaim('default-x3')).toBeUndefined();
    });

    it('should throw NodeClaimNotFoundError when labelling a missing claim', async () => {
      // Act
      const err = await client.patchNodeClaimMetadata('ghost', { labels: { a: 'b' } }).catch((e: unknown) => e);
      // Assess
      expect(isNodeClaimNotFoundError(err)).toBe(true);
    });
  });

  describe('events', () => {
    const events = () =>
      t().list(t().typeOf('v1', 'Event')).items as unknown as {
        involvedObject: { kind: string; name: string; uid?: string };
        reason: string;
        message: string;
        count: number;
        type: string;
      }[];
    const nominate = {
      object: { kind: 'Pod' as const, name: 'web-1', namespace: 'default', uid: 'uid-1' },
      type: 'Normal' as const,
      reason: 'Nominated',
      message: 'Pod should schedule on: nodeclaim/default-abcde',
    };

    it('should create an Event on the object, drop a repeat within its dedupe window and count one after it', async () => {
      // Act
      await client.recordEvent(nominate);
      await client.recordEvent(nominate);
      h.clock.now += 121_000;
      await client.recordEvent(nominate);
      // Assess
      expect(events()).toEqual([
        expect.objectContaining({
          involvedObject: expect.objectContaining({ kind: 'Pod', name: 'web-1', uid: 'uid-1' }),
          type: 'Normal',
          reason: 'Nominated',
          message: 'Pod should schedule on: nodeclaim/default-abcde',
          count: 2,
        }),
      ]);
    });

    it('should drop a DisruptionBlocked on the same node within its window even when its wording changed, as Karpenter dedupes it by the node', async () => {
      // Prepare
      const blocked = (message: string) => ({
        object: { kind: 'Node' as const, name: 'ip-10-0-1-1' },
        type: 'Normal' as const,
        reason: 'DisruptionBlocked',
        message,
        dedupeByObject: true,
      });
      // Act
      await client.recordEvent(blocked('Pdb "default/web" prevents pod evictions'));
      await client.recordEvent(blocked('Pdb "default/workers" prevents pod evictions'));
      h.clock.now += 121_000;
      await client.recordEvent(blocked('Pdb "default/workers" prevents pod evictions'));
      // Assess
      expect(
        events()
          .map((e) => [e.reason, e.message, e.count])
          .sort(),
      ).toEqual([
        ['DisruptionBlocked', 'Pdb "default/web" prevents pod evictions', 1],
        ['DisruptionBlocked', 'Pdb "default/workers" prevents pod evictions', 1],
      ]);
    });

    it('should count an event another container recorded first (one Event per object, reason and message)', async () => {
      // Prepare
      const other = new KubeClusterClient(h.kc, { now: () => epochMs(h.clock.now) });
      await other.recordEvent(nominate);
      // Act
      await client.recordEvent(nominate);
      // Assess
      expect(events().map((e) => e.count)).toEqual([2]);
    });
  });

  describe('NodePool status', () => {
    const ready = [
      { type: 'ValidationSucceeded', status: 'True' as const, reason: 'ValidationSucceeded', message: '' },
      { type: 'NodeClassReady', status: 'True' as const, reason: 'NodeClassReady', message: '' },
      { type: 'Ready', status: 'True' as const, reason: 'Ready', message: '' },
    ];

    it('should write resources, nodes and conditions through the status subresource, and read them back', async () => {
      // Prepare
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
      // Act
      const wrote = await client.patchNodePoolStatus('default', { resources: { cpu: '4', nodes: '2' }, nodes: 2, conditions: ready });
      // Assess
      expect(wrote).toBe(true);
      const snap = await client.snapshot();
      expect(snap.nodePools[0].observedStatus).toEqual({ resources: { cpu: '4', nodes: '2' }, nodes: 2, conditions: ready });
      expect(snap.nodePools[0].ready).toBe(true);
    });

    it('should not write when nothing changed, and keep lastTransitionTime while a condition holds', async () => {
      // Prepare
      put('karpenter.sh/v1', 'NodePool', nodePoolJson('default'));
      await client.patchNodePoolStatus('default', { resources: { nodes: '1' }, nodes: 1, conditions: ready });
      const first = (t().get(t().typeOf('karpenter.sh/v1', 'NodePool'), undefined, 'default')!.status as { conditions: { lastTransitionTime: string }[] })
        .conditions[0].lastTransitionTime;
      h.clock.now += 60_000;
      // Act
      const same = await client.patchNodePoolStatus('default', { resources: { nodes: '1' }, nodes: 1, conditions: ready });
      const more = await client.patchNodePoolStatus('default', { resources: { nodes: '2' }, nodes: 2, conditions: ready });
      // Assess
      expect(same).toBe(false);
      expect(more).toBe(true);
      const after = t().get(t().typeOf('karpenter.sh/v1', 'NodePool'), undefined, 'default')!.status as {
        nodes: number;
        conditions: { lastTransitionTime: string }[];
      };
      expect(after.nodes).toBe(2);
      expect(after.conditions[0].lastTransitionTime).toBe(first);
    });

    it("should write an EC2NodeClass status in Karpenter's field names, read back as its Ready", async () => {
      // Prepare
      put('karpenter.k8s.aws/v1', 'EC2NodeClass', nodeClassJson('default'));
      // Act
      const wrote = await client.patchNodeClassStatus('default', {
        subnets: [{ id: 'subnet-a', zone: 'us-east-1a', zoneID: 'use1-az1' }],
        securityGroups: [{ id: 'sg-1' }],
        amis: [{ id: 'ami-1', name: 'al2023' }],
        instanceProfile: 'profile',
        conditions: [
          { type: 'SubnetsReady', status: 'True', reason: 'SubnetsReady', message: '' },
          { type: 'Ready', status: 'True', reason: 'Ready', message: '' },
        ],
      });
      // Assess
      expect(wrote).toBe(true);
      const stored = t().get(t().typeOf('karpenter.k8s.aws/v1', 'EC2NodeClass'), undefined, 'default')!.status as Record<string, unknown>;
      expect(stored).toMatchObject({
        subnets: [{ id: 'subnet-a', zone: 'us-east-1a', zoneID: 'use1-az1' }],
        securityGroups: [{ id: 'sg-1' }],
        amis: [{ id: 'ami-1', name: 'al2023' }],
        instanceProfile: 'profile',
      });
      const snap = await client.snapshot();
      expect(snap.nodeClasses[0].ready).toEqual({ status: 'True', reason: 'Ready', message: '' });
    });

    it('should answer false for a NodePool that is gone', async () => {
      expect(await client.patchNodePoolStatus('missing', { conditions: ready })).toBe(false);
    });
  });

  describe('nodes', () => {
    it('should merge-patch labels, annotations, taints and unschedulable, and answer false for a missing node', async () => {
      // Prepare
      put('v1', 'Node', nodeJson('node-a', { labels: { old: 'x' } }));
      // Act
      const ok = await client.patchNode('node-a', {
        labels: { old: null, 'karpenter.sh/registered': 'true' },
        annotations: { a: '1' },
        taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }],
        unschedulable: true,
      });
      const missing = await client.patchNode('nope', { unschedulable: true });
      const node = await client.getNode('node-a');
      // Assess
      expect(ok).toBe(true);
      expect(missing).toBe(false);
      expect(node?.labels).toEqual({ 'kubernetes.io/hostname': 'node-a', 'karpenter.sh/registered': 'true' });
      expect(node?.annotations.a).toBe('1');
      expect(node?.taints).toEqual([{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }]);
      expect(node?.unschedulable).toBe(true);
    });

    it('should clear taints and unschedulable', async () => {
      // Prepare
      put('v1', 'Node', { ...nodeJson('node-a'), spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] } });
      // Act
      await client.patchNode('node-a', { taints: [], unschedulable: false });
      const node = await client.getNode('node-a');
      // Assess
      expect(node?.taints).toEqual([]);
      expect(node?.unschedulable).toBe(false);
    });

    it('should delete a node, and treat deleting it again as success', async () => {
      // Prepare
      put('v1', 'Node', nodeJson('node-a'));
      // Act
      await client.deleteNode('node-a');
      await client.deleteNode('node-a');
      // Assess
      expect(await client.getNode('node-a')).toBeUndefined();
    });
  });

  describe('pods', () => {
    beforeEach(() => {
      put('apps/v1', 'Deployment', deploymentJson('web', 2), 'default');
      for (const n of ['web-1', 'web-2'])
        put('v1', 'Pod', podJson(n, { labels: { app: 'web' }, nodeName: 'node-a', ready: true, owner: { kind: 'Deployment', name: 'web' } }), 'default');
      put('policy/v1', 'PodDisruptionBudget', pdbJson('web', { app: 'web' }, { minAvailable: 1 }), 'default');
    });

    it('should report evicted, then blocked by the PDB, then gone', async () => {
      // Act
      const first = await client.evict({ namespace: 'default', name: 'web-1' });
      const second = await client.evict({ namespace: 'default', name: 'web-2' });
      const third = await client.evict({ namespace: 'default', name: 'web-1' });
      // Assess
      expect([first, second, third]).toEqual(['evicted', 'blocked', 'gone']);
    });

    it('should report blocked when two budgets select the same pod', async () => {
      // Prepare
      put('policy/v1', 'PodDisruptionBudget', pdbJson('web-too', { app: 'web' }, { maxUnavailable: 1 }), 'default');
      // Act
      const result = await client.evict({ namespace: 'default', name: 'web-1' });
      // Assess
      expect(result).toBe('blocked');
    });

    it('should delete a pod bypassing the PDB, and treat a missing pod as success', async () => {
      // Act
      await client.deletePod({ namespace: 'default', name: 'web-1' }, 30);
      await client.deletePod({ namespace: 'default', name: 'web-1' }, 30);
      // Assess
      expect((await client.listPodsOnNode('node-a')).map((p) => p.name)).toEqual(['web-2']);
    });
  });
});
