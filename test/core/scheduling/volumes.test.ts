/**
 * Volume topology as Karpenter's VolumeTopology resolves it (pkg/controllers/provisioning/scheduling/
 * volumetopology.go and its tests): OR-ed terms stay alternatives, local volumes' hostname terms are
 * dropped, generic ephemeral volumes use their existing claim, invalid claims leave only their pod alone,
 * and a volume's zone does not change how a topology spread counts domains.
 */
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../shared/core/model/kube';
import { existingNode, fakeInstanceTypes, pod, pods } from '../../fixtures/builders';
import { plan } from './helpers';
import { epochMs } from '../../../shared/core/time';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const ARCH = 'kubernetes.io/arch';
const term = (...e: NodeSelectorRequirement[]) => ({ matchExpressions: e });
const inReq = (key: string, ...values: string[]): NodeSelectorRequirement => ({ key, operator: 'In', values });
const bound = (name: string, volumeName: string, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim => ({
  namespace: 'default',
  name,
  volumeName,
  phase: 'Bound',
  bindCompleted: true,
  ...extra,
});
const wffc = (name: string, zones?: string[]): StorageClass => ({
  name,
  provisioner: 'ebs.csi.aws.com',
  volumeBindingMode: 'WaitForFirstConsumer',
  isDefault: false,
  creationTimestamp: epochMs(0),
  allowedTopologies: zones ? [term(inReq(ZONE, ...zones))] : undefined,
});

describe('volume topology alternatives', () => {
  it('keeps OR-ed PersistentVolume terms as alternatives (keys within a term are AND-ed, not merged per key)', () => {
    const pv: PersistentVolume = {
      name: 'pv',
      nodeAffinity: [term(inReq(ZONE, 'test-zone-1'), inReq(ARCH, 'arm64')), term(inReq(ZONE, 'test-zone-2'), inReq(ARCH, 'amd64'))],
    };
    const result = plan({ pods: [pod({ claims: ['data'], nodeSelector: { [ARCH]: 'amd64' } })], pvcs: [bound('data', 'pv')], pvs: [pv] });
    expect(result.nodeClaims).toHaveLength(1);
    expect(result.nodeClaims[0].zone).toBe('test-zone-2');
  });

  it('keeps OR-ed StorageClass allowedTopologies terms as alternatives', () => {
    const sc: StorageClass = { ...wffc('gp3'), allowedTopologies: [term(inReq(ZONE, 'test-zone-1'), inReq(ARCH, 'arm64')), term(inReq(ZONE, 'test-zone-3'))] };
    const result = plan({
      pods: [pod({ claims: ['data'], nodeSelector: { [ARCH]: 'amd64' } })],
      pvcs: [{ namespace: 'default', name: 'data', phase: 'Pending', storageClassName: 'gp3' }],
      storageClasses: [sc],
    });
    expect(result.nodeClaims[0].zone).toBe('test-zone-3');
  });

  it('takes the alternatives two volumes have in common', () => {
    const a: PersistentVolume = { name: 'a', nodeAffinity: [term(inReq(ZONE, 'test-zone-1')), term(inReq(ZONE, 'test-zone-2'))] };
    const b: PersistentVolume = { name: 'b', nodeAffinity: [term(inReq(ZONE, 'test-zone-2')), term(inReq(ZONE, 'test-zone-3'))] };
    const result = plan({ pods: [pod({ claims: ['a', 'b'] })], pvcs: [bound('a', 'a'), bound('b', 'b')], pvs: [a, b] });
    expect(result.nodeClaims[0].zone).toBe('test-zone-2');
  });

  it('ignores the hostname term of a local or hostPath volume but keeps its zone', () => {
    const pv: PersistentVolume = { name: 'local', local: true, nodeAffinity: [term(inReq(HOST, 'old-node'), inReq(ZONE, 'test-zone-3'))] };
    const result = plan({ pods: [pod({ claims: ['data'] })], pvcs: [bound('data', 'local')], pvs: [pv] });
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims[0].zone).toBe('test-zone-3');
    const onlyHost: PersistentVolume = { name: 'host', local: true, nodeAffinity: [term(inReq(HOST, 'old-node'))] };
    const r2 = plan({ pods: [pod({ claims: ['data'] })], pvcs: [bound('data', 'host')], pvs: [onlyHost] });
    expect(r2.unschedulable).toEqual([]);
    expect(r2.nodeClaims).toHaveLength(1);
  });

  it('uses the existing claim of a generic ephemeral volume and its bound volume, not only the template class', () => {
    const p = pod({ name: 'app' });
    p.volumeClaims = [{ claimName: 'app-scratch', ephemeral: { storageClassName: 'gp3' } }];
    const pv: PersistentVolume = { name: 'pv-eph', nodeAffinity: [term(inReq(ZONE, 'test-zone-3'))] };
    const withClaim = plan({ pods: [p], pvcs: [bound('app-scratch', 'pv-eph')], pvs: [pv], storageClasses: [wffc('gp3', ['test-zone-1'])] });
    expect(withClaim.nodeClaims[0].zone).toBe('test-zone-3');
    const notYet = plan({ pods: [p], storageClasses: [wffc('gp3', ['test-zone-1'])] });
    expect(notYet.nodeClaims[0].zone).toBe('test-zone-1');
  });
});

describe('invalid volume claims leave their pod alone, other pods still schedule', () => {
  const cases: [string, PersistentVolumeClaim[], PersistentVolume[], RegExp][] = [
    ['names a missing PersistentVolume', [bound('data', 'gone')], [], /PersistentVolume gone .* not found/],
    ['lacks the bind-completed annotation', [bound('data', 'pv', { bindCompleted: false })], [{ name: 'pv' }], /bind-completed/],
    ['points at a PersistentVolume being deleted', [bound('data', 'pv')], [{ name: 'pv', deleting: true }], /being deleted/],
    ['is being deleted', [{ ...bound('data', 'pv'), deleting: true }], [{ name: 'pv' }], /being deleted/],
    [
      'is unbound with an empty StorageClass name',
      [{ namespace: 'default', name: 'data', phase: 'Pending', storageClassName: '' }],
      [],
      /does not name a StorageClass/,
    ],
  ];
  for (const [what, pvcs, pvs, reason] of cases) {
    it(`a claim that ${what}`, () => {
      const result = plan({ pods: [pod({ name: 'stuck', claims: ['data'] }), pod({ name: 'fine' })], pvcs, pvs });
      expect(result.ignored.map((i) => i.pod.name)).toEqual(['stuck']);
      expect(result.ignored[0].reason).toMatch(reason);
      expect(result.nodeClaims.flatMap((c) => c.pods.map((x) => x.name))).toEqual(['fine']);
    });
  }
});

describe('topology spread with volumes (Karpenter: volume requirements narrow the claim, not the pod)', () => {
  it("a pod pinned to one zone by its volume counts all the spread's domains for minDomains", () => {
    const [def] = fakeInstanceTypes();
    const web = { cpu: '100m', labels: { app: 'web' } };
    const existing = ['test-zone-1', 'test-zone-2', 'test-zone-3'].map((zone, i) =>
      existingNode(`n${i}`, { type: def, zone, pool: 'default', pods: pods(1, web) }),
    );
    for (const n of existing) n.allocatable = { ...n.allocatable, cpu: 0.1 }; // full: the pod needs a new node
    const spread = [
      { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'web' } }, minDomains: 3 },
    ];
    const pv: PersistentVolume = { name: 'pv', nodeAffinity: [term(inReq(ZONE, 'test-zone-1'))] };
    const result = plan({ pods: [pod({ ...web, claims: ['data'], spread })], pvcs: [bound('data', 'pv')], pvs: [pv], existing });
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims[0].zone).toBe('test-zone-1');
  });
});
