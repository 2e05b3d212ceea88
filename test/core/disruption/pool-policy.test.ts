/**
 * nodewright's time policies on a NodePool: `nodewright.io/disruption-rate` (at most N, or a share of the pool,
 * voluntary disruptions per window — on top of Karpenter's budgets, which cap only how many at once) and
 * `nodewright.io/schedules` (limits and consolidation overridden while a UTC cron window is open).
 */
import { describe, expect, it } from 'vitest';
import { allowedDisruptions } from '../../../shared/core/disruption/budgets';
import { recordDisruptionRate } from '../../../shared/core/lifecycle/disruption-rate';
import { nodePoolFromKube } from '../../../shared/core/model/from-kube';
import { nextScheduleTransition, scheduledPool } from '../../../shared/core/provisioning/pool-schedules';
import { epochMs } from '../../../shared/core/time';
import { fakes } from '../../fakes/lifecycle';
import { computeDisruption } from '../../../shared/core/disruption';
import { bound, c6g, cluster, input, managed, NOW, pool as budgetPool } from './builders';

const json = (annotations: Record<string, string>) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'web', annotations },
  spec: { template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } } },
});
const read = (a: Record<string, string>) => nodePoolFromKube(json(a), { file: 'pool.yaml', documentIndex: 0 });
const at = (iso: string) => epochMs(Date.parse(iso));

describe('nodewright.io/disruption-rate', () => {
  it('should read the rate and its ledger, and refuse a rate it cannot read, naming the annotation', () => {
    const p = read({ 'nodewright.io/disruption-rate': '20%/1h', 'nodewright.io/disruption-rate-ledger': '1800000100,1800000000' });
    expect(p.disruption.rate).toEqual({ nodes: '20%', windowSeconds: 3600 });
    expect(p.disruption.rateLedger).toEqual([1_800_000_000_000, 1_800_000_100_000]);
    expect(() => read({ 'nodewright.io/disruption-rate': '20 per hour' })).toThrow(
      'pool.yaml: document 1: metadata.annotations["nodewright.io/disruption-rate"]: must be <nodes or percent>/<window>, e.g. "20%/1h" or "3/30m"; got "20 per hour"',
    );
  });

  it('should allow what is left of the rate in the window, whatever the budget allows', () => {
    const p = read({ 'nodewright.io/disruption-rate': '20%/1h' });
    const counts = { total: 10, disrupting: 0 };
    expect(allowedDisruptions(p, 'Drifted', counts, NOW).allowed).toBe(1); // the default budget, 10%
    p.disruption.budgets = [{ nodes: '100%' }];
    expect(allowedDisruptions(p, 'Drifted', counts, NOW).allowed).toBe(2);
    p.disruption.rateLedger = [epochMs(NOW - 3_700_000), epochMs(NOW - 600_000)];
    const r = allowedDisruptions(p, 'Underutilized', counts, NOW);
    expect(r.allowed).toBe(1);
    expect(r.why).toContain('rate 20%/3600s: 1 started in the window → 1 left');
  });

  it('should drift-replace no faster than the rate, and record each start on the pool', async () => {
    const p = budgetPool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    p.disruption.rate = { nodes: '1', windowSeconds: 1800 };
    const nodes = ['a', 'b', 'c'].map((n) => managed(n, { pool: p, type: c6g.xlarge, driftedCondition: { reason: 'AMIDrift', at: epochMs(NOW - 60_000) } }));
    const pods = nodes.map((n) => bound(n, { cpu: '3' }));
    const first = computeDisruption(input(cluster({ pools: [p], nodes, pods }), [c6g.xlarge]));
    expect(first.command?.method).toBe('drift');
    const f = fakes();
    f.cluster.nodePools = [p];
    await recordDisruptionRate(f, [first.command!], NOW);
    expect(f.cluster.writes).toContain('patchAnnotations NodePool/default');
    p.disruption.rateLedger = [NOW];
    const second = computeDisruption(input(cluster({ pools: [p], nodes, pods }), [c6g.xlarge]));
    expect(second.command).toBeUndefined();
    expect(second.audit.some((r) => /rate 1\/1800s: 1 started/.test(r.detail.why))).toBe(true);
  });
});

describe('nodewright.io/schedules', () => {
  const night = '- {schedule: "0 20 * * *", duration: 10h, limits: {cpu: "0"}, consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}';

  it('should override limits and consolidation while a window is open, and say when the next edge is', () => {
    const p = read({ 'nodewright.io/schedules': night });
    p.limits = { cpu: 100_000 };
    expect(scheduledPool(p, at('2026-11-29T12:00:00Z'))).toBe(p);
    const late = scheduledPool(p, at('2026-11-29T23:00:00Z'));
    expect(late.limits).toEqual({ cpu: 0 });
    expect(late.disruption).toMatchObject({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 0 });
    expect(scheduledPool(p, at('2026-11-30T06:30:00Z')).limits).toEqual({ cpu: 100_000 });
    expect(nextScheduleTransition(p, at('2026-11-29T12:00:00Z'))).toBe(at('2026-11-29T20:00:00Z'));
    expect(nextScheduleTransition(p, at('2026-11-29T23:00:00Z'))).toBe(at('2026-11-30T06:00:00Z'));
  });

  it.each([
    ['not YAML', '- {schedule: [', /is not YAML or JSON/],
    ['a bad cron', '- {schedule: "61 25 * * *", duration: 1h, limits: {cpu: "0"}}', /\[0\]\.schedule: is not a valid cron expression/],
    ['nothing overridden', '- {schedule: "@daily", duration: 1h}', /\[0\]: a schedule must override limits, consolidationPolicy or consolidateAfter/],
    ['a bad policy', '- {schedule: "@daily", duration: 1h, consolidationPolicy: Sometimes}', /\[0\]\.consolidationPolicy/],
  ])('should refuse %s, naming the annotation and the entry', (_what, value, message) => {
    expect(() => read({ 'nodewright.io/schedules': value })).toThrow(message);
  });
});
