/**
 * Existing nodes and in-flight claims as the first targets (docs/karpenter-reference.md §2.3 "add targets"): they fill before
 * any new claim, initialized ones first; nodes going away never take pods; in-flight nodes keep room for
 * the DaemonSet pods that will land on them.
 */
import { describe, expect, it } from 'vitest';
import { TaintKey } from '../../../shared/core/model/labels';
import type { Plan } from '../../../shared/core/scheduling/types';
import { daemonSet, existingNode, fakeInstanceTypes, nodePool, pod, pods } from '../../fixtures/builders';
import { plan, scheduledCount } from './helpers';

const types = fakeInstanceTypes();
const def = types.find((t) => t.name === 'default-instance-type')!; // 4 CPU, 4Gi, 5 pods
const placedOn = (p: Plan, node: string) => p.existingPlacements.find((e) => e.node === node)?.pods.map((x) => x.name) ?? [];

describe('existing nodes (docs/karpenter-reference.md §2.3)', () => {
  it('should fill an existing node before opening a claim', () => {
    // Prepare: the node has 4 CPU, 3 of them free.
    const node = existingNode('node-a', { type: def, zone: 'test-zone-1', pool: 'default', pods: [pod({ name: 'running', cpu: '1' })] });
    // Act
    const result = plan({ pods: pods(4, { cpu: '1' }), existing: [node] });
    // Assess: three go to the node, the fourth needs a new claim.
    expect(placedOn(result, 'node-a')).toHaveLength(3);
    expect(result.nodeClaims).toHaveLength(1);
    expect(result.nodeClaims[0].pods).toHaveLength(1);
  });

  it('should count the pods slots already used on the node', () => {
    // Prepare: 4 of the 5 pod slots are taken.
    const node = existingNode('node-a', { type: def, zone: 'test-zone-1', pods: pods(4, { cpu: '10m' }) });
    // Act
    const result = plan({ pods: pods(2, { cpu: '10m' }), existing: [node] });
    // Assess
    expect(placedOn(result, 'node-a')).toHaveLength(1);
    expect(result.nodeClaims).toHaveLength(1);
  });

  it('should try initialized nodes before uninitialized ones', () => {
    // Prepare: by name the uninitialized node would come first.
    const uninit = existingNode('a-uninitialized', { type: def, zone: 'test-zone-1', initialized: false });
    const init = existingNode('b-initialized', { type: def, zone: 'test-zone-1' });
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '1' })], existing: [uninit, init] });
    // Assess
    expect(placedOn(result, 'b-initialized')).toEqual(['web']);
    expect(placedOn(result, 'a-uninitialized')).toEqual([]);
  });

  it('should use an uninitialized node once the initialized ones are full', () => {
    // Prepare
    const uninit = existingNode('a-uninitialized', { type: def, zone: 'test-zone-1', initialized: false });
    const init = existingNode('b-initialized', { type: def, zone: 'test-zone-1', pods: [pod({ cpu: '3500m' })] });
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '1' })], existing: [uninit, init] });
    // Assess
    expect(placedOn(result, 'a-uninitialized')).toEqual(['web']);
    expect(result.nodeClaims).toHaveLength(0);
  });

  it('should ignore the ephemeral taints of an uninitialized node but not of an initialized one', () => {
    // Prepare
    const ephemeral = [
      { key: TaintKey.notReady, effect: 'NoSchedule' as const },
      { key: TaintKey.unregistered, effect: 'NoExecute' as const },
      { key: TaintKey.uninitialized, value: 'true', effect: 'NoSchedule' as const },
    ];
    const starting = existingNode('starting', { type: def, zone: 'test-zone-1', initialized: false, taints: ephemeral });
    const sick = existingNode('sick', { type: def, zone: 'test-zone-1', initialized: true, taints: [ephemeral[0]] });
    // Act
    const onStarting = plan({ pods: [pod({ name: 'a', cpu: '1' })], existing: [starting] });
    const onSick = plan({ pods: [pod({ name: 'b', cpu: '1' })], existing: [sick] });
    // Assess
    expect(placedOn(onStarting, 'starting')).toEqual(['a']);
    expect(placedOn(onSick, 'sick')).toEqual([]);
    expect(onSick.nodeClaims).toHaveLength(1);
  });

  it('should still respect a non-ephemeral taint on an uninitialized node', () => {
    // Prepare
    const node = existingNode('gpu-starting', { type: def, zone: 'test-zone-1', initialized: false, taints: [{ key: 'gpu', effect: 'NoSchedule' }] });
    // Act
    const plain = plan({ pods: [pod({ name: 'plain', cpu: '1' })], existing: [node] });
    const tolerant = plan({ pods: [pod({ name: 'tolerant', cpu: '1', tolerations: [{ key: 'gpu', operator: 'Exists' }] })], existing: [node] });
    // Assess
    expect(placedOn(plain, 'gpu-starting')).toEqual([]);
    expect(placedOn(tolerant, 'gpu-starting')).toEqual(['tolerant']);
  });

  it('should never place a pod on a node marked for deletion', () => {
    // Prepare
    const leaving = existingNode('leaving', { type: def, zone: 'test-zone-1', pool: 'default', markedForDeletion: true });
    const leavingInFlight = existingNode('leaving-claim', {
      type: def,
      zone: 'test-zone-2',
      pool: 'default',
      inFlight: true,
      initialized: false,
      markedForDeletion: true,
    });
    // Act
    const result = plan({ pods: pods(3, { cpu: '100m' }), existing: [leaving, leavingInFlight] });
    // Assess
    expect(result.existingPlacements).toEqual([]);
    expect(result.nodeClaims).toHaveLength(1);
  });

  it('should not place pods on nodes excluded by the options', () => {
    // Prepare
    const node = existingNode('candidate', { type: def, zone: 'test-zone-1' });
    // Act
    const result = plan({ pods: [pod({ cpu: '1' })], existing: [node], options: { excludeNodes: new Set(['candidate']) } });
    // Assess
    expect(result.existingPlacements).toEqual([]);
    expect(result.nodeClaims).toHaveLength(1);
  });

  it('should keep room on an in-flight node for DaemonSet pods not yet there', () => {
    // Prepare: 4 CPU node, a 1-CPU DaemonSet that will land on it.
    const inflight = existingNode('claim-1', { type: def, zone: 'test-zone-1', pool: 'default', inFlight: true, initialized: false });
    const ds = daemonSet('logger', { cpu: '1' });
    // Act
    const result = plan({ pods: pods(4, { cpu: '1' }), existing: [inflight], daemonSets: [ds] });
    // Assess: three pods fit beside the daemon, the fourth needs a new node.
    expect(placedOn(result, 'claim-1')).toHaveLength(3);
    expect(result.nodeClaims).toHaveLength(1);
  });

  it('should not reserve room twice for a DaemonSet pod already on the in-flight node', () => {
    // Prepare
    const ds = daemonSet('logger', { cpu: '1' });
    const dsPod = pod({ name: 'logger-abc', cpu: '1', owner: { kind: 'DaemonSet', name: 'logger' } });
    const inflight = existingNode('claim-1', { type: def, zone: 'test-zone-1', inFlight: true, initialized: false, pods: [dsPod] });
    // Act
    const result = plan({ pods: pods(3, { cpu: '1' }), existing: [inflight], daemonSets: [ds] });
    // Assess
    expect(placedOn(result, 'claim-1')).toHaveLength(3);
    expect(result.nodeClaims).toHaveLength(0);
  });

  it('should not reserve room for a DaemonSet that cannot run on the in-flight node', () => {
    // Prepare: the node is tainted and the DaemonSet does not tolerate it; the pods do.
    const taint = { key: 'team', value: 'a', effect: 'NoSchedule' as const };
    const inflight = existingNode('claim-1', { type: def, zone: 'test-zone-1', inFlight: true, initialized: false, taints: [taint] });
    const ds = daemonSet('logger', { cpu: '1' });
    // Act
    const result = plan({ pods: pods(4, { cpu: '1', tolerations: [{ key: 'team', operator: 'Equal', value: 'a' }] }), existing: [inflight], daemonSets: [ds] });
    // Assess
    expect(placedOn(result, 'claim-1')).toHaveLength(4);
  });

  it('should only place pods whose node selector matches the node', () => {
    // Prepare
    const node = existingNode('zone-1-node', { type: def, zone: 'test-zone-1' });
    // Act
    const result = plan({
      pods: [
        pod({ name: 'z2', cpu: '100m', nodeSelector: { 'topology.kubernetes.io/zone': 'test-zone-2' } }),
        pod({ name: 'z1', cpu: '100m', nodeSelector: { 'topology.kubernetes.io/zone': 'test-zone-1' } }),
      ],
      existing: [node],
    });
    // Assess
    expect(placedOn(result, 'zone-1-node')).toEqual(['z1']);
    expect(result.nodeClaims[0].zone).toBe('test-zone-2');
  });

  it('should keep away from an existing pod whose required anti-affinity selects the newcomer', () => {
    // Prepare: the running pod repels app=web on its host.
    const guard = pod({
      name: 'guard',
      cpu: '100m',
      affinity: { podAntiAffinity: { required: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } },
    });
    const node = existingNode('guarded', { type: def, zone: 'test-zone-1', pods: [guard] });
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '100m', labels: { app: 'web' } }), pod({ name: 'other', cpu: '100m' })], existing: [node] });
    // Assess
    expect(placedOn(result, 'guarded')).toEqual(['other']);
    expect(result.nodeClaims.flatMap((c) => c.pods.map((p) => p.name))).toEqual(['web']);
  });

  it('should not reuse a host port already taken on the node', () => {
    // Prepare
    const node = existingNode('node-a', { type: def, zone: 'test-zone-1', pods: [pod({ name: 'proxy', cpu: '100m', hostPorts: [8080] })] });
    // Act
    const result = plan({ pods: [pod({ name: 'new-proxy', cpu: '100m', hostPorts: [8080] }), pod({ name: 'plain', cpu: '100m' })], existing: [node] });
    // Assess
    expect(placedOn(result, 'node-a')).toEqual(['plain']);
    expect(scheduledCount(result)).toBe(2);
  });

  it('should fill existing nodes first fit in order, each identical pod going to the first node with room left', () => {
    // Prepare: 30 nodes with room for 3 one-CPU pods each (one runs a 1-CPU pod already); every fifth node is tainted,
    // so it is passed over for another reason than room; 2-CPU pods come first in the queue and take the room the
    // 1-CPU pods would otherwise find.
    const nodes = Array.from({ length: 30 }, (_, i) =>
      existingNode(`node-${String(i).padStart(2, '0')}`, {
        type: def,
        zone: 'test-zone-1',
        pods: [pod({ name: `running-${i}`, cpu: '1' })],
        taints: i % 5 === 4 ? [{ key: 'dedicated', effect: 'NoSchedule' }] : [],
      }),
    );
    const big = pods(6, { cpu: '2', name: 'big' });
    const small = pods(66, { cpu: '1', name: 'small' });
    // Act
    const result = plan({ pods: [...small, ...big], existing: nodes });
    // Assess: 24 untainted nodes; the first six take a 2-CPU pod and one 1-CPU pod, the other 18 three 1-CPU pods:
    // 6 + 54 = 60 of the 66 one-CPU pods, and the last 6 need a new claim.
    const untainted = nodes.filter((_, i) => i % 5 !== 4).map((n) => n.name);
    const counts = untainted.map((n) => placedOn(result, n).length);
    expect(counts).toEqual([...Array<number>(6).fill(2), ...Array<number>(18).fill(3)]);
    expect(nodes.filter((_, i) => i % 5 === 4).every((n) => placedOn(result, n.name).length === 0)).toBe(true);
    expect(scheduledCount(result)).toBe(72);
    expect(result.nodeClaims.flatMap((c) => c.pods)).toHaveLength(6);
    // Each 1-CPU pod went to the first node with room when its turn came: the placements read in node order.
    const order = untainted.flatMap((n) => placedOn(result, n).filter((x) => x.startsWith('small')));
    expect(order).toEqual([...order].sort((a, b) => Number(a.split('-').pop()) - Number(b.split('-').pop())));
  });

  it('should count existing nodes of a pool against its limits', () => {
    // Prepare: limit 8 CPU, a 4-CPU node of the pool already runs full.
    const node = existingNode('node-a', { type: def, zone: 'test-zone-1', pool: 'default', pods: [pod({ cpu: '3900m' })] });
    const pools = [nodePool({ limits: { cpu: '8' } })];
    // Act
    const result = plan({ pods: [pod({ name: 'big', cpu: '6' }), pod({ name: 'small', cpu: '1' })], pools, existing: [node] });
    // Assess: only types of ≤ 4 CPU are left, so the 6-CPU pod cannot be planned.
    expect(result.unschedulable.map((u) => u.pod.name)).toEqual(['big']);
    expect(result.nodeClaims.every((c) => c.instanceTypes.every((t) => t.capacity.cpu <= 4000))).toBe(true);
  });
});
