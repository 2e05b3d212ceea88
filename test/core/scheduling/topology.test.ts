import { describe, expect, it } from 'vitest';
import type { Affinity, TopologySpreadConstraint } from '../../../shared/core/model/kube';
import { existingNode, fakeInstanceTypes, nodePool, pod, pods } from '../../fixtures/builders';
import { plan, scheduledCount } from './helpers';
import { epochMs } from '../../../shared/core/time';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const spread = (key: string, maxSkew = 1, when: 'DoNotSchedule' | 'ScheduleAnyway' = 'DoNotSchedule', minDomains?: number): TopologySpreadConstraint => ({
  maxSkew,
  topologyKey: key,
  whenUnsatisfiable: when,
  labelSelector: { matchLabels: { app: 'web' } },
  minDomains,
});
const anti = (key: string): Affinity => ({ podAntiAffinity: { required: [{ topologyKey: key, labelSelector: { matchLabels: { app: 'web' } } }] } });
const zoneCounts = (p: ReturnType<typeof plan>) => {
  const out: Record<string, number> = {};
  for (const c of p.nodeClaims) out[c.zone ?? 'none'] = (out[c.zone ?? 'none'] ?? 0) + c.pods.length;
  return out;
};

describe('topology (docs/karpenter-reference.md §2.6)', () => {
  it('should spread pods evenly across the three zones', () => {
    const result = plan({ pods: pods(9, { cpu: '100m', labels: { app: 'web' }, spread: [spread(ZONE)] }) });
    expect(zoneCounts(result)).toEqual({ 'test-zone-1': 3, 'test-zone-2': 3, 'test-zone-3': 3 });
  });

  it('should count existing pods when spreading', () => {
    const [def] = fakeInstanceTypes();
    const existing = [existingNode('n1', { type: def, zone: 'test-zone-1', pool: 'default', pods: pods(2, { cpu: '100m', labels: { app: 'web' } }) })];
    const result = plan({ pods: pods(4, { cpu: '100m', labels: { app: 'web' }, spread: [spread(ZONE)] }), existing });
    expect(zoneCounts(result)).toEqual({ 'test-zone-2': 2, 'test-zone-3': 2 });
  });

  it('should put one pod per node under hostname spread with maxSkew 1', () => {
    const result = plan({ pods: pods(4, { cpu: '100m', labels: { app: 'web' }, spread: [spread(HOST)] }) });
    expect(result.nodeClaims).toHaveLength(4);
  });

  it('should relax a ScheduleAnyway constraint that cannot be met', () => {
    const pools = [nodePool({ requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }] })];
    const result = plan({ pods: pods(3, { cpu: '100m', labels: { app: 'web' }, spread: [spread(ZONE, 1, 'ScheduleAnyway', 3)] }), pools });
    expect(scheduledCount(result)).toBe(3);
  });

  it('should leave pods pending when a DoNotSchedule spread with minDomains cannot be met', () => {
    const pools = [nodePool({ requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }] })];
    const result = plan({ pods: pods(3, { cpu: '100m', labels: { app: 'web' }, spread: [spread(ZONE, 1, 'DoNotSchedule', 3)] }), pools });
    expect(scheduledCount(result)).toBe(1);
    expect(result.unschedulable[0].reason).toMatch(/topology spread/);
  });

  it('should co-locate self-affine pods in one zone', () => {
    const aff: Affinity = { podAffinity: { required: [{ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }] } };
    const result = plan({ pods: pods(6, { cpu: '1.5', labels: { app: 'web' }, affinity: aff }) });
    expect(new Set(result.nodeClaims.map((c) => c.zone)).size).toBe(1);
    expect(scheduledCount(result)).toBe(6);
  });

  it('should leave a pod pending when its affinity target does not exist', () => {
    const aff: Affinity = { podAffinity: { required: [{ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'db' } } }] } };
    const result = plan({ pods: [pod({ labels: { app: 'web' }, affinity: aff })] });
    expect(result.unschedulable).toHaveLength(1);
  });

  it('should follow an affinity target running on an existing node', () => {
    const [def] = fakeInstanceTypes();
    const existing = [existingNode('n1', { type: def, zone: 'test-zone-2', pool: 'default', pods: [pod({ cpu: '3.5', labels: { app: 'db' } })] })];
    const aff: Affinity = { podAffinity: { required: [{ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'db' } } }] } };
    const result = plan({ pods: [pod({ cpu: '1', affinity: aff })], existing });
    expect(result.nodeClaims[0].zone).toBe('test-zone-2');
  });

  it('should give each hostname anti-affine pod its own node', () => {
    const result = plan({ pods: pods(5, { cpu: '100m', labels: { app: 'web' }, affinity: anti(HOST) }) });
    expect(result.nodeClaims).toHaveLength(5);
  });

  it('should place zone anti-affine replicas in distinct zones at once, and no more than the zones', () => {
    const result = plan({ pods: pods(4, { cpu: '100m', labels: { app: 'web' }, affinity: anti(ZONE) }) });
    expect(new Set(result.nodeClaims.map((c) => c.zone))).toEqual(new Set(['test-zone-1', 'test-zone-2', 'test-zone-3']));
    expect(result.unschedulable).toHaveLength(1);
  });

  it('should keep newcomers away from an existing pod whose anti-affinity selects them (inverse)', () => {
    const [def] = fakeInstanceTypes();
    const guard = pod({ cpu: '100m', labels: { app: 'guard' }, affinity: anti(ZONE) });
    const existing = [existingNode('n1', { type: def, zone: 'test-zone-1', pool: 'default', pods: [guard] })];
    const result = plan({ pods: pods(3, { cpu: '100m', labels: { app: 'web' } }), existing });
    expect(result.existingPlacements).toHaveLength(0);
    expect(
      result.nodeClaims.every(
        (c) =>
          c.requirements.some((r) => r.key === ZONE && r.operator === 'NotIn' && r.values?.includes('test-zone-1')) ||
          (c.zone !== null && c.zone !== 'test-zone-1'),
      ),
    ).toBe(true);
  });
});

describe('volume topology (docs/karpenter-reference.md §2.6)', () => {
  it('should pin a pod to the zone of its bound volume', () => {
    const result = plan({
      pods: [pod({ claims: ['data'] })],
      pvcs: [{ namespace: 'default', name: 'data', volumeName: 'pv-1', phase: 'Bound', bindCompleted: true }],
      pvs: [{ name: 'pv-1', nodeAffinity: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-3'] }] }] }],
    });
    expect(result.nodeClaims[0].zone).toBe('test-zone-3');
  });

  it('should use a WaitForFirstConsumer class allowedTopologies, and ignore pods with missing claims', () => {
    const sc = {
      name: 'gp3',
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer' as const,
      isDefault: true,
      creationTimestamp: epochMs(0),
      allowedTopologies: [{ matchExpressions: [{ key: ZONE, operator: 'In' as const, values: ['test-zone-2'] }] }],
    };
    const result = plan({
      pods: [pod({ name: 'ok', claims: ['new'] }), pod({ name: 'lost', claims: ['missing'] })],
      pvcs: [{ namespace: 'default', name: 'new', phase: 'Pending', storageClassName: 'gp3' }],
      storageClasses: [sc],
    });
    expect(result.nodeClaims[0].zone).toBe('test-zone-2');
    expect(result.ignored.map((i) => i.pod.name)).toEqual(['lost']);
  });
});
