import { describe, expect, it } from 'vitest';
import { daemonSet, existingNode, fakeInstanceTypes, nodePool, pod, pods } from '../../fixtures/builders';
import { cheapestType, plan, scheduledCount } from './helpers';

describe('limits and DaemonSets (docs/karpenter-reference.md §7, 23–27)', () => {
  it('should not schedule when existing capacity already exceeds the limit', () => {
    const big = fakeInstanceTypes()[2]; // 16 CPU
    const existing = Array.from({ length: 7 }, (_, i) =>
      existingNode(`n${i}`, { type: big, zone: 'test-zone-1', pool: 'default', pods: [pod({ cpu: '15' })] }),
    );
    const result = plan({ pods: [pod({ cpu: '2' })], pools: [nodePool({ limits: { cpu: '20' } })], existing });
    expect(result.nodeClaims).toHaveLength(0);
    expect(result.unschedulable).toHaveLength(1);
  });

  it('should fit under a 2-CPU limit once, then refuse', () => {
    const pools = [nodePool({ limits: { cpu: '2' } })];
    expect(plan({ pods: [pod({ cpu: '1.75' })], pools }).nodeClaims).toHaveLength(1);
    expect(scheduledCount(plan({ pods: pods(2, { cpu: '1.75' }), pools }))).toBe(1);
    expect(plan({ pods: [pod({ cpu: '2.1' })], pools }).nodeClaims).toHaveLength(0);
  });

  it('should subtract the largest option from the limit (3 CPU, two anti-affine 1.5-CPU pods → one)', () => {
    const anti = { podAntiAffinity: { required: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } }] } };
    const result = plan({ pods: pods(2, { cpu: '1.5', labels: { app: 'x' }, affinity: anti }), pools: [nodePool({ limits: { cpu: '3' } })] });
    expect(scheduledCount(result)).toBe(1);
  });

  it('should stop at a nodes limit', () => {
    const anti = { podAntiAffinity: { required: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } }] } };
    const result = plan({ pods: pods(3, { cpu: '100m', labels: { app: 'x' }, affinity: anti }), pools: [nodePool({ limits: { nodes: '2' } })] });
    expect(result.nodeClaims).toHaveLength(2);
    expect(result.unschedulable).toHaveLength(1);
  });

  it('should count DaemonSet overhead when sizing (1 CPU/1Gi daemon + 2-CPU pod → default type)', () => {
    const ds = daemonSet('logger', { cpu: '1', memory: '1Gi' });
    const result = plan({ pods: [pod({ cpu: '2' })], daemonSets: [ds] });
    expect(cheapestType(result)).toBe('default-instance-type');
    expect(result.nodeClaims[0].daemonOverhead.cpu).toBe(1000);
    expect(result.nodeClaims[0].requests.cpu).toBe(3000);
  });

  it('should ignore DaemonSets that do not tolerate the pool taint', () => {
    const ds = daemonSet('logger', { cpu: '1', memory: '1Gi' });
    const pools = [nodePool({ taints: [{ key: 'dedicated', effect: 'NoSchedule' }] })];
    const result = plan({ pods: [pod({ cpu: '1.5', tolerations: [{ key: 'dedicated', operator: 'Exists' }] })], daemonSets: [ds], pools });
    expect(cheapestType(result)).toBe('small-instance-type');
  });

  it('should count DaemonSet overhead in every resource, also one the pending pod does not request', () => {
    // Prepare: a DaemonSet needing 4 Gi of memory, a pod asking for CPU only; the small type has 2 Gi
    const ds = daemonSet('memory-hungry', { cpu: '100m', memory: '4Gi' });
    // Act
    const result = plan({ pods: [pod({ cpu: '500m' })], daemonSets: [ds] });
    // Assess: every type offered can hold the DaemonSet's memory
    expect(result.nodeClaims).toHaveLength(1);
    expect(result.nodeClaims[0].instanceTypes.every((t) => (t.allocatable.memory ?? 0) >= 4 * 1024 ** 3)).toBe(true);
    expect(result.nodeClaims[0].daemonOverhead.memory).toBe(4 * 1024 ** 3);
  });

  it("should count DaemonSets the pool's startup taints would keep off (startup taints are removed before they run)", () => {
    // Prepare
    const ds = daemonSet('logger', { cpu: '1', memory: '1Gi' });
    const pools = [nodePool({ startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }] })];
    // Act
    const result = plan({ pods: [pod({ cpu: '1.5' })], daemonSets: [ds], pools });
    // Assess
    expect(result.nodeClaims[0].daemonOverhead.cpu).toBe(1000);
  });
});
