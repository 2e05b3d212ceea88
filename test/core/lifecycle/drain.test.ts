import { describe, expect, it } from 'vitest';
import { attachedVolumeName, drainWaitSeconds, evictPods, evictionTier, type DrainingTarget } from '../../../shared/core/lifecycle';
import { pvFromKube } from '../../../shared/core/model/from-kube';
import { fakes, node, pod } from '../../fakes/lifecycle';
import { epochMs } from '../../../shared/core/time';

const NODE = 'ip-10-0-0-1';
const target = (over: Partial<DrainingTarget> = {}): DrainingTarget => ({
  nodeName: NODE,
  nodeClaimName: 'default-abcde',
  reason: 'Manual',
  drainDeadlineMs: epochMs(Date.UTC(2026, 0, 1) + 3600_000),
  forceAtDeadline: true,
  ...over,
});

describe('evictPods', () => {
  it('should evict only the first non-empty tier in one pass', async () => {
    // Prepare
    const f = fakes();
    f.cluster.nodes.set(NODE, node(NODE));
    f.cluster.pods = [
      pod('ds-critical', { nodeName: NODE, owner: { kind: 'DaemonSet', name: 'kube-proxy' }, priorityClassName: 'system-node-critical' }),
      pod('web-1', { nodeName: NODE }),
      pod('web-2', { nodeName: NODE }),
      pod('ds-1', { nodeName: NODE, owner: { kind: 'DaemonSet', name: 'fluent-bit' } }),
    ];

    // Act
    const pass = await evictPods(f, target());

    // Assess
    expect(f.cluster.writes).toEqual(['evict default/web-1', 'evict default/web-2']);
    expect(pass).toMatchObject({ drained: false, evicted: 2, remaining: 4 });
  });

  it('should not wait for static, terminal or disrupted-tolerating pods', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = [
      pod('static', { nodeName: NODE, owner: { kind: 'Node', name: NODE } }),
      pod('done', { nodeName: NODE, phase: 'Succeeded' }),
      pod('tolerant', { nodeName: NODE, tolerations: [{ operator: 'Exists' }] }),
    ];

    // Act
    const pass = await evictPods(f, target());

    // Assess: nothing evicted; the claim says its volumes are detached (none were attached).
    expect(pass.drained).toBe(true);
    expect(f.cluster.writes).toEqual(['patchNodeClaimStatus default-abcde']);
  });

  it('should count PDB-blocked evictions and leave do-not-disrupt pods waiting', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = [pod('db-0', { nodeName: NODE }), pod('job-1', { nodeName: NODE, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];
    f.cluster.evictionResults.set('default/db-0', ['blocked']);

    // Act
    const pass = await evictPods(f, target());

    // Assess
    expect(pass).toMatchObject({ drained: false, blocked: 1, waiting: 1, evicted: 0 });
    expect(f.cluster.writes).toEqual(['evict default/db-0']);
  });

  it('should leave a pod annotated with the pre-v1 karpenter.sh/do-not-evict "true" waiting, like do-not-disrupt', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = [
      pod('legacy', { nodeName: NODE, annotations: { 'karpenter.sh/do-not-evict': 'true' } }),
      pod('not-legacy', { nodeName: NODE, annotations: { 'karpenter.sh/do-not-evict': 'false' } }),
    ];

    // Act
    const pass = await evictPods(f, target());

    // Assess
    expect(pass).toMatchObject({ drained: false, waiting: 1, evicted: 1 });
    expect(f.cluster.writes).toEqual(['evict default/not-legacy']);
  });

  it('should delete a pod bypassing its PDB once the deadline minus its grace period is reached', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = [pod('db-0', { nodeName: NODE, terminationGracePeriodSeconds: 30, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];

    // Act
    const pass = await evictPods(f, target({ drainDeadlineMs: epochMs(f.clock.now() + 20_000) }));

    // Assess
    expect(pass.deleted).toBe(1);
    expect(f.cluster.writes).toEqual(['deletePod default/db-0 20']);
  });

  it('should fail with DeadlineExceededError past the deadline when there is no grace period to enforce', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = [pod('db-0', { nodeName: NODE })];

    // Act
    const attempt = evictPods(f, target({ drainDeadlineMs: epochMs(f.clock.now() - 1), forceAtDeadline: false }));

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'DeadlineExceededError' });
    expect(f.cluster.writes).toEqual([]);
  });
});

describe('drainWaitSeconds', () => {
  it('should wait longer as a drain goes on, but never past the next forced deletion', () => {
    // Prepare
    const passes = [1, 12, 13, 36, 37, 96, 97, 5000];

    // Act
    const waits = passes.map((p) => drainWaitSeconds(p));

    // Assess
    expect(waits).toEqual([5, 5, 10, 10, 30, 30, 120, 120]);
    expect(drainWaitSeconds(200, 45_500)).toBe(46);
    expect(drainWaitSeconds(200, 0)).toBe(1);
  });

  it('should keep a 24 hour drain within Step Functions history limits', () => {
    // Prepare
    let elapsed = 0;
    let passes = 0;

    // Act
    while (elapsed < 24 * 3600) elapsed += drainWaitSeconds(++passes);

    // Assess: about 10 history events per loop, 25,000 allowed
    expect(passes * 10).toBeLessThan(25_000);
  });
});

describe('evictionTier', () => {
  it('should order non-critical workloads, non-critical DaemonSets, critical workloads, critical DaemonSets', () => {
    // Prepare
    const pods = [
      pod('a', { priorityClassName: 'system-cluster-critical', owner: { kind: 'DaemonSet', name: 'x' } }),
      pod('b', { priorityClassName: 'system-cluster-critical' }),
      pod('c', { owner: { kind: 'DaemonSet', name: 'x' } }),
      pod('d'),
    ];

    // Act
    const tiers = pods.map(evictionTier);

    // Assess
    expect(tiers).toEqual([3, 2, 1, 0]);
  });

  it("should say on the Node what holds the drain (Karpenter's FailedDraining) and on each pod that it was evicted", async () => {
    // Prepare: one pod evicts, one waits on do-not-disrupt.
    const f = fakes();
    f.cluster.nodes.set(NODE, node(NODE, { uid: 'node-uid' }));
    f.cluster.pods = [pod('web-1', { nodeName: NODE }), pod('batch', { nodeName: NODE, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];

    // Act
    await evictPods(f, target({ reason: 'Drifted' }));

    // Assess
    expect(f.cluster.events).toEqual([
      'Pod/default/web-1 Evicted: Evicted pod: Drifted',
      'Node/ip-10-0-0-1 FailedDraining: Failed to drain node, 1 pods are waiting to be evicted',
    ]);
  });

  it('should evict a pod whose do-not-disrupt duration has elapsed since it started, and wait for one whose has not', async () => {
    // Prepare: both ask for 5 minutes; one started 10 minutes ago, the other 1 minute ago.
    const f = fakes();
    const now = f.clock.now();
    const dnd = { 'karpenter.sh/do-not-disrupt': '5m' };
    f.cluster.pods = [
      pod('old', { nodeName: NODE, annotations: dnd, startTime: epochMs(now - 600_000) }),
      pod('young', { nodeName: NODE, annotations: dnd, startTime: epochMs(now - 60_000) }),
    ];

    // Act
    const pass = await evictPods(f, target());

    // Assess
    expect(f.cluster.writes.filter((w) => w.startsWith('evict'))).toEqual(['evict default/old']);
    expect(pass).toMatchObject({ evicted: 1, waiting: 1 });
  });
});

describe('evictPods once the pods are gone: the volume-detachment wait', () => {
  const EBS = (id: string) => `kubernetes.io/csi/ebs.csi.aws.com^${id}`;
  const setup = (attached: string[]) => {
    const f = fakes();
    f.cluster.nodes.set(NODE, node(NODE, { volumesAttached: attached }));
    return f;
  };

  it('should wait while a volume is still attached, saying so once on the node and the claim, then end the drain when it detaches', async () => {
    // Prepare: the evicted database pod's volume is still attached.
    const f = setup([EBS('vol-0db')]);

    // Act
    const first = await evictPods(f, target());
    const second = await evictPods(f, { ...target(), ...first });
    f.cluster.nodes.set(NODE, node(NODE, { volumesAttached: [] }));
    const last = await evictPods(f, { ...target(), ...second });

    // Assess
    expect(first).toMatchObject({ drained: false, volumesAwaiting: [EBS('vol-0db')], waitSeconds: 3 });
    expect(second).toMatchObject({ drained: false, volumesAwaiting: [EBS('vol-0db')] });
    expect(f.cluster.events).toEqual([`Node/${NODE} AwaitingVolumeDetachment: Awaiting detachment of attached volumes (${EBS('vol-0db')})`]);
    expect(last.drained).toBe(true);
    expect(last.volumesAwaiting).toBeUndefined();
    expect(f.cluster.writes.filter((w) => w.startsWith('patchNodeClaimStatus'))).toEqual([
      'patchNodeClaimStatus default-abcde',
      'patchNodeClaimStatus default-abcde',
    ]);
  });

  it('should not wait for the volumes of pods the drain leaves on the node (they tolerate the disrupted taint)', async () => {
    // Prepare: a tolerating pod keeps its volume mounted; another volume was the evicted pod's.
    const f = setup([EBS('vol-keep'), EBS('vol-gone')]);
    f.cluster.pods = [pod('log-shipper', { nodeName: NODE, tolerations: [{ operator: 'Exists' }], volumeClaims: [{ claimName: 'buffer' }] })];
    f.cluster.persistentVolumeClaims = [{ namespace: 'default', name: 'buffer', volumeName: 'pv-keep', phase: 'Bound' }];
    f.cluster.persistentVolumes = [{ name: 'pv-keep', csiDriver: 'ebs.csi.aws.com', volumeHandle: 'vol-keep' }];

    // Act
    const pass = await evictPods(f, target());

    // Assess
    expect(pass).toMatchObject({ drained: false, volumesAwaiting: [EBS('vol-gone')] });
  });

  it('should terminate anyway at the drain deadline, marking the claim VolumesDetached False', async () => {
    // Prepare
    const f = setup([EBS('vol-stuck')]);

    // Act
    const pass = await evictPods(f, target({ drainDeadlineMs: epochMs(f.clock.now() - 1) }));

    // Assess
    expect(pass).toMatchObject({ drained: true, volumesAwaiting: [EBS('vol-stuck')] });
    expect(f.cluster.writes).toEqual(['patchNodeClaimStatus default-abcde']);
  });
});

describe('the names volumes are attached under', () => {
  it('should name a CSI volume by its driver and its whole handle, and an in-tree EBS volume by its id as migrated to the EBS CSI driver', () => {
    const pv = (spec: object) => pvFromKube({ metadata: { name: 'pv' }, spec });
    expect(attachedVolumeName(pv({ csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0abc' } }))).toBe('kubernetes.io/csi/ebs.csi.aws.com^vol-0abc');
    expect(attachedVolumeName(pv({ csi: { driver: 'efs.csi.aws.com', volumeHandle: 'fs-1234::fsap-5678/sub' } }))).toBe(
      'kubernetes.io/csi/efs.csi.aws.com^fs-1234::fsap-5678/sub',
    );
    expect(attachedVolumeName(pv({ awsElasticBlockStore: { volumeID: 'aws://us-east-1a/vol-0def' } }))).toBe('kubernetes.io/csi/ebs.csi.aws.com^vol-0def');
    expect(attachedVolumeName(pv({ hostPath: { path: '/data' } }))).toBeUndefined();
  });
});
