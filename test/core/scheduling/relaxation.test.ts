/**
 * Preferences and their relaxation (docs/karpenter-reference.md §2.5): a preference is treated as required until the pod
 * fails; then one is dropped at a time in Karpenter's order — required node-affinity terms beyond the
 * first, preferred pod affinity, preferred pod anti-affinity, preferred node affinity, ScheduleAnyway
 * spread, and finally PreferNoSchedule taints are tolerated.
 */
import { describe, expect, it } from 'vitest';
import type { Affinity, PodAffinityTerm, TopologySpreadConstraint } from '../../../shared/core/model/kube';
import type { Plan } from '../../../shared/core/scheduling/types';
import { existingNode, fakeInstanceTypes, instanceType, nodePool, pod, pods } from '../../fixtures/builders';
import { plan, scheduledCount } from './helpers';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const types = fakeInstanceTypes();
const singlePod = types.find((t) => t.name === 'single-pod-instance-type')!;

const zoneTerm = (app: string): PodAffinityTerm => ({ topologyKey: ZONE, labelSelector: { matchLabels: { app } } });
const preferZone = (zone: string, weight = 1) => ({ weight, preference: { matchExpressions: [{ key: ZONE, operator: 'In' as const, values: [zone] }] } });
/** A full node in `zone` running one pod labelled app=`app` (the pod can only land beside it through a new node). */
const fullNodeWith = (app: string, zone: string) =>
  existingNode(`full-${app}`, { type: singlePod, zone, pool: 'default', pods: [pod({ name: `${app}-0`, cpu: '100m', labels: { app } })] });
/** Where the named pod went: the zone of its claim, or of the existing node it was placed on. */
function zoneOf(result: Plan, name: string): string | null | undefined {
  const claim = result.nodeClaims.find((c) => c.pods.some((p) => p.name === name));
  if (claim) return claim.zone;
  return result.existingPlacements.some((e) => e.pods.some((p) => p.name === name)) ? 'existing' : undefined;
}

describe('relaxing preferences (docs/karpenter-reference.md §2.5)', () => {
  it('should drop preferred pod affinity before preferred node affinity', () => {
    // Prepare: affinity to the db pod means zone-1, the node preference says zone-2; both cannot hold.
    const affinity: Affinity = {
      podAffinity: { preferred: [{ weight: 100, podAffinityTerm: zoneTerm('db') }] },
      nodeAffinity: { preferred: [preferZone('test-zone-2')] },
    };
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '100m', affinity })], existing: [fullNodeWith('db', 'test-zone-1')] });
    // Assess: the pod affinity went first, so the node preference is honoured.
    expect(zoneOf(result, 'web')).toBe('test-zone-2');
  });

  it('should drop preferred pod anti-affinity before preferred node affinity', () => {
    // Prepare: anti-affinity to the db pod means "not zone-1", the node preference says zone-1.
    const affinity: Affinity = {
      podAntiAffinity: { preferred: [{ weight: 100, podAffinityTerm: zoneTerm('db') }] },
      nodeAffinity: { preferred: [preferZone('test-zone-1')] },
    };
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '100m', affinity })], existing: [fullNodeWith('db', 'test-zone-1')] });
    // Assess
    expect(zoneOf(result, 'web')).toBe('test-zone-1');
  });

  it('should drop preferred pod affinity before preferred pod anti-affinity', () => {
    // Prepare: the pod both prefers and prefers not to share a zone with db.
    const affinity: Affinity = {
      podAffinity: { preferred: [{ weight: 1, podAffinityTerm: zoneTerm('db') }] },
      podAntiAffinity: { preferred: [{ weight: 1, podAffinityTerm: zoneTerm('db') }] },
    };
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '100m', affinity })], existing: [fullNodeWith('db', 'test-zone-1')] });
    // Assess: anti-affinity survived, so the pod is away from zone-1.
    expect(zoneOf(result, 'web')).toMatch(/^test-zone-[23]$/);
  });

  it('should drop the heaviest preferred pod affinity term first, as Karpenter does', () => {
    // Prepare: both terms are held as required at once, and db (zone-1) and cache (zone-2) cannot both be near.
    const affinity: Affinity = {
      podAffinity: {
        preferred: [
          { weight: 1, podAffinityTerm: zoneTerm('cache') },
          { weight: 100, podAffinityTerm: zoneTerm('db') },
        ],
      },
    };
    const existing = [fullNodeWith('db', 'test-zone-1'), fullNodeWith('cache', 'test-zone-2')];
    // Act
    const result = plan({ pods: [pod({ name: 'web', cpu: '100m', affinity })], existing });
    // Assess: the weight-100 term went first, so the pod follows cache.
    expect(zoneOf(result, 'web')).toBe('test-zone-2');
  });

  it('should honour the heaviest preferred node affinity term and fall back to the next one', () => {
    // Prepare
    const affinity: Affinity = { nodeAffinity: { preferred: [preferZone('test-zone-3', 10), preferZone('test-zone-2', 50)] } };
    const onlyOneAndThree = [nodePool({ requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-3'] }] })];
    // Act
    const open = plan({ pods: [pod({ name: 'a', cpu: '100m', affinity })] });
    const restricted = plan({ pods: [pod({ name: 'b', cpu: '100m', affinity })], pools: onlyOneAndThree });
    // Assess
    expect(zoneOf(open, 'a')).toBe('test-zone-2');
    expect(zoneOf(restricted, 'b')).toBe('test-zone-3');
  });

  it('should relax a ScheduleAnyway spread only after the preferred node affinity', () => {
    // Prepare: one web pod already in zone-1; spreading (maxSkew 1) rules zone-1 out, the node preference wants it.
    const spread: TopologySpreadConstraint = {
      maxSkew: 1,
      topologyKey: ZONE,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { app: 'web' } },
    };
    const affinity: Affinity = { nodeAffinity: { preferred: [preferZone('test-zone-1')] } };
    // Act
    const result = plan({
      pods: [pod({ name: 'web-1', cpu: '100m', labels: { app: 'web' }, spread: [spread], affinity })],
      existing: [fullNodeWith('web', 'test-zone-1')],
    });
    // Assess: the node preference was dropped first; the spread still held.
    expect(zoneOf(result, 'web-1')).toMatch(/^test-zone-[23]$/);
  });

  it('should try the next required node affinity term when the first cannot be met', () => {
    // Prepare
    const affinity: Affinity = {
      nodeAffinity: {
        required: [
          { matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-9'] }] },
          { matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-2'] }] },
        ],
      },
    };
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m', affinity })] });
    // Assess
    expect(zoneOf(result, 'a')).toBe('test-zone-2');
  });
});

describe('PREFERENCE_POLICY', () => {
  it('should follow preferences by default and ignore them under Ignore', () => {
    // Prepare
    const affinity: Affinity = { nodeAffinity: { preferred: [preferZone('test-zone-3')] } };
    const anti: Affinity = {
      podAntiAffinity: { preferred: [{ weight: 1, podAffinityTerm: { topologyKey: HOST, labelSelector: { matchLabels: { app: 'web' } } } }] },
    };
    const input = () => [pod({ name: 'pinned', cpu: '100m', affinity }), ...pods(3, { cpu: '100m', labels: { app: 'web' }, affinity: anti })];
    // Act
    const respect = plan({ pods: input() });
    const ignore = plan({ pods: input(), options: { preferencePolicy: 'Ignore' } });
    // Assess: Respect puts the preferred zone on the claim and the web pods on their own nodes.
    expect(zoneOf(respect, 'pinned')).toBe('test-zone-3');
    expect(respect.nodeClaims.length).toBeGreaterThanOrEqual(3);
    // Ignore packs all four pods together, on any zone.
    expect(ignore.nodeClaims).toHaveLength(1);
    expect(ignore.nodeClaims[0].pods).toHaveLength(4);
    expect(scheduledCount(ignore)).toBe(4);
  });

  it('should still schedule pods that prefer an impossible zone under Ignore', () => {
    // Prepare
    const affinity: Affinity = { nodeAffinity: { preferred: [preferZone('test-zone-9')] } };
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m', affinity })], options: { preferencePolicy: 'Ignore' } });
    // Assess
    expect(scheduledCount(result)).toBe(1);
  });

  // Regression (found by this file, since fixed in solve.ts): under Ignore the relax loop used to be skipped
  // entirely, so a pod whose first required OR-term was impossible stayed pending. Ignore drops preferences
  // only; required node affinity terms are still ORed.
  it('should try the next required node affinity term under Ignore too', () => {
    // Prepare
    const affinity: Affinity = {
      nodeAffinity: {
        required: [
          { matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-9'] }] },
          { matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-2'] }] },
        ],
      },
    };
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m', affinity })], options: { preferencePolicy: 'Ignore' } });
    // Assess
    expect(zoneOf(result, 'a')).toBe('test-zone-2');
  });
});

describe('PreferNoSchedule taints', () => {
  const soft = nodePool({ taints: [{ key: 'soft', value: 'yes', effect: 'PreferNoSchedule' }] });

  it('should tolerate PreferNoSchedule as the last step when every pool carries it', () => {
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m' })], pools: [soft] });
    // Assess
    expect(result.unschedulable).toHaveLength(0);
    expect(result.nodeClaims).toHaveLength(1);
    expect(result.nodeClaims[0].taints).toEqual([{ key: 'soft', value: 'yes', effect: 'PreferNoSchedule' }]);
  });

  it('should prefer a pool without the PreferNoSchedule taint even when it weighs less', () => {
    // Prepare
    const heavySoft = nodePool({ name: 'soft', weight: 100, taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] });
    const plain = nodePool({ name: 'plain', weight: 1 });
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m' })], pools: [heavySoft, plain] });
    // Assess
    expect(result.nodeClaims.map((c) => c.nodePool)).toEqual(['plain']);
  });

  it('should never tolerate a NoSchedule taint by relaxation', () => {
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m' })], pools: [nodePool({ taints: [{ key: 'hard', effect: 'NoSchedule' }] })] });
    // Assess
    expect(result.nodeClaims).toHaveLength(0);
    expect(result.unschedulable[0].reason).toMatch(/did not tolerate taint hard:NoSchedule/);
  });

  // Regression (found by this file, since fixed in solve.ts): under Ignore the PreferNoSchedule step never ran,
  // so a pool whose only taint is PreferNoSchedule left every pod pending.
  it('should tolerate PreferNoSchedule under PREFERENCE_POLICY Ignore too', () => {
    // Act
    const result = plan({ pods: [pod({ name: 'a', cpu: '100m' })], pools: [soft], options: { preferencePolicy: 'Ignore' } });
    // Assess
    expect(result.nodeClaims).toHaveLength(1);
  });
});

describe('required pod affinity after relaxation', () => {
  it('should not start a self-affine group in a second zone when the pod relaxed its node affinity away from the first', () => {
    // Prepare: a group whose pods must share a zone, with a soft zone spread and two node-affinity terms (any of
    // zones 1 and 3, or zone 3 only); zone 1 offers on-demand only, zone 3 spot only, one pod per new node. The first
    // pod starts in zone 1; for the second, the spread asks for zone 3, so the first term is dropped before the spread.
    const mk = (name: string, zone: string, capacityType: 'spot' | 'on-demand') =>
      instanceType({ name, cpu: '1', memory: '1Gi', pods: 2, offerings: [{ zone, capacityType, price: 0.01, available: true }] });
    const affinity: Affinity = {
      podAffinity: { required: [zoneTerm('g0')] },
      nodeAffinity: {
        required: [
          { matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-3'] }] },
          { matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-3'] }] },
        ],
      },
    };
    const spread: TopologySpreadConstraint = {
      maxSkew: 1,
      topologyKey: ZONE,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { app: 'g0' } },
    };
    const group = [0, 1].map((i) => ({ ...pod({ name: `g0-${i}`, cpu: '100m', labels: { app: 'g0' }, affinity }), topologySpreadConstraints: [spread] }));
    const capacityType = { key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['spot', 'on-demand'] };

    // Act
    const result = plan({
      pods: [...group, pod({ name: 'other', cpu: '100m' })],
      types: [mk('zone1.small', 'test-zone-1', 'on-demand'), mk('zone3.small', 'test-zone-3', 'spot')],
      pools: [nodePool({ requirements: [capacityType] })],
    });

    // Assess: kube-scheduler puts g0-1 beside g0-0 or nowhere; never a node in another zone it could not run on.
    const zones = new Set(group.map((p) => zoneOf(result, p.name)).filter((z) => z !== undefined));
    expect(zones.size).toBe(1);
  });
});
