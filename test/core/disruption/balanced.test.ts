/**
 * consolidationPolicy Balanced (issue #29 item 4), on the worked examples of Karpenter's design
 * (kubernetes-sigs/karpenter designs/balanced-consolidation.md): a NodePool of eight m7i.xlarge ($4.84/day) and two
 * m7i.2xlarge ($9.68/day), 8 pods per node, one node a candidate (the others had a pod event within
 * consolidateAfter, so they only count in the pool's totals). Each node also costs 1 to drain, as Karpenter adds.
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption, disruptingEvents } from '../../../shared/core/disruption';
import type { NodePool } from '../../../shared/core/model/karpenter';
import type { Pod } from '../../../shared/core/model/kube';
import { recordDisruptionCommand } from '../../../shared/core/metrics/record';
import { instanceType } from '../../fixtures/builders';
import { RecordingMetrics } from '../../fakes/recording';
import { ago, bound, cluster, HOUR, input, managed, NOW, onDemand, pool, type Managed } from './builders';

const perDay = (d: number) => d / 24;
const m7i = {
  large: instanceType({ name: 'm7i.large', cpu: '2', memory: '8Gi', offerings: onDemand(perDay(2.42)) }),
  xlarge: instanceType({ name: 'm7i.xlarge', cpu: '4', memory: '16Gi', offerings: onDemand(perDay(4.84)) }),
  x2large: instanceType({ name: 'm7i.2xlarge', cpu: '8', memory: '32Gi', offerings: onDemand(perDay(9.68)) }),
};
const types = [m7i.large, m7i.xlarge, m7i.x2large];
const COSTLY = { 'controller.kubernetes.io/pod-deletion-cost': '2147483647' };

/** The pool: `candidate` on a node of `type` with `pods` pods of cpu/memory each; the other nodes full and not candidates. */
function scenario(o: {
  policy?: NodePool['disruption']['consolidationPolicy'];
  k?: number;
  uniform?: boolean;
  type: 'xlarge' | 'x2large';
  pods: number;
  cpu: string;
  memory: string;
  annotations?: Record<string, string>;
}) {
  const p = pool({ policy: o.policy ?? 'Balanced', consolidateAfter: 60, budgets: [{ nodes: '100%' }] });
  if (o.k !== undefined) p.disruption.balancedK = o.k;
  const others: Managed[] = [];
  const pods: Pod[] = [];
  const bigOthers = o.uniform ? 0 : o.type === 'x2large' ? 1 : 2;
  const smallOthers = 9 - bigOthers;
  for (let i = 0; i < smallOthers; i++) others.push(managed(`x${i}`, { pool: p, type: m7i.xlarge, lastPodEventTime: NOW }));
  for (let i = 0; i < bigOthers; i++) others.push(managed(`xx${i}`, { pool: p, type: m7i.x2large, lastPodEventTime: NOW }));
  for (const m of others)
    for (let j = 0; j < 8; j++) pods.push(bound(m, { name: `${m.node.name}-${j}`, cpu: m.node.name.startsWith('xx') ? '1' : '500m', memory: '1Gi' }));
  const candidate = managed('candidate', { pool: p, type: m7i[o.type], lastPodEventTime: ago(HOUR) });
  for (let j = 0; j < o.pods; j++) pods.push(bound(candidate, { name: `c-${j}`, cpu: o.cpu, memory: o.memory, annotations: o.annotations }));
  return computeDisruption(input(cluster({ pools: [p], nodes: [...others, candidate], pods }), types));
}

const rejection = (d: ReturnType<typeof computeDisruption>) => d.audit.find((r) => r.action === 'rejected' && r.detail.method === 'single-node')?.detail.why;

describe('consolidationPolicy Balanced (k = 2)', () => {
  it('should replace an oversized node: 3 pods on an m7i.2xlarge move to an m7i.large (savings 12.5 %, disruption 4.7 %)', () => {
    // Act
    const d = scenario({ type: 'x2large', pods: 3, cpu: '500m', memory: '2Gi' });

    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
    expect(d.command?.replacements[0].instanceTypes[0].name).toBe('m7i.large');
    expect(d.command?.scores).toEqual([expect.objectContaining({ nodePool: 'default', k: 2, approved: true })]);
    const events = disruptingEvents(d.command!).filter((e) => e.reason === 'ConsolidationApproved');
    expect(events.map((e) => e.object.kind)).toEqual(['Node', 'NodeClaim']);
    expect(events[0].message).toBe('score 2.66 >= threshold 0.50 (k: 2, savings 12.5%, disruption 4.7%)');
    // Karpenter's metrics of a scored move, once it starts
    const metrics = new RecordingMetrics();
    recordDisruptionCommand(metrics, d.command!);
    const labels = { decision: 'approved', nodepool: 'default', policy: 'Balanced' };
    expect(metrics.total('karpenter_consolidation_moves_total', labels)).toBe(1);
    expect(metrics.matching('karpenter_consolidation_score').map((r) => r.value)).toEqual([d.command!.scores![0].score]);
  });

  it('should refuse a marginal move: 8 small pods on an m7i.xlarge for an m7i.large saves 4.2 % for 10 % of the disruption', () => {
    // Act
    const d = scenario({ type: 'xlarge', pods: 8, cpu: '225m', memory: '896Mi' });

    // Assess
    expect(d.command).toBeUndefined();
    expect(rejection(d)).toBe('Balanced: score 0.42 < threshold 0.50 (k: 2, savings 4.2%, disruption 10.0%) in NodePool default');
  });

  it('should take the same marginal move under WhenEmptyOrUnderutilized (any saving)', () => {
    const d = scenario({ policy: 'WhenEmptyOrUnderutilized', type: 'xlarge', pods: 8, cpu: '225m', memory: '896Mi' });
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
    expect(d.command?.scores).toBeUndefined();
  });

  it('should approve a replace at half the price in a uniform pool, the boundary (score 0.50)', () => {
    // Prepare: ten m7i.xlarge ($48.40/day); the candidate's 8 pods fit an m7i.large
    const d = scenario({ uniform: true, type: 'xlarge', pods: 8, cpu: '225m', memory: '896Mi' });

    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
    expect(disruptingEvents(d.command!)[2].message).toBe('score 0.50 >= threshold 0.50 (k: 2, savings 5.0%, disruption 10.0%)');
  });

  it('should refuse the oversized node when its pods are costly to restart (pod-deletion-cost at its maximum)', () => {
    // Act: the same 3 pods, each counting 10 (the clamp) instead of 1
    const d = scenario({ type: 'x2large', pods: 3, cpu: '500m', memory: '2Gi', annotations: COSTLY });

    // Assess
    expect(d.command).toBeUndefined();
    expect(rejection(d)).toMatch(/^Balanced: (even deleting it would score score 1\.\d\d|score 0\.\d\d) .*disruption 27\.7%/);
  });
});

describe("a NodePool's own k (nodewright.io/balanced-k)", () => {
  it('should let the marginal move through at k = 3 (threshold 0.33)', () => {
    const d = scenario({ k: 3, type: 'xlarge', pods: 8, cpu: '225m', memory: '896Mi' });
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
    expect(d.command?.scores?.[0]).toMatchObject({ k: 3, approved: true });
  });

  it('should refuse the uniform-pool replace at k = 1 (there a replace would have to be free)', () => {
    const d = scenario({ k: 1, uniform: true, type: 'xlarge', pods: 8, cpu: '225m', memory: '896Mi' });
    expect(d.command).toBeUndefined();
    expect(rejection(d)).toBe('Balanced: score 0.50 < threshold 1.00 (k: 1, savings 5.0%, disruption 10.0%) in NodePool default');
  });
});
