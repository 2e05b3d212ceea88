import { describe, expect, it } from 'vitest';
import { disruptingMessage } from '../../../shared/core/lifecycle/disruption-act';
import { gateEnabled, scheduledTime } from '../../../functions/disruption/disruption';
import { computeDisruption } from '../../../shared/core/disruption';
import { bound, c6g, cluster, input, managed, NOW, onDemand, pool, sized } from '../../core/disruption/builders';
import { scheduledEvent } from './world';

describe('disruption log line and event handling', () => {
  it('should name the first five replacement types and count the others as Karpenter does', () => {
    // Prepare: seven cheaper 2-vCPU types than the c6g.2xlarge
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const big = managed('ip-192-168-132-48', { pool: p, type: c6g.x2large });
    const small = ['c6g.large', 'c7g.large', 'c5a.large', 'c6gd.large', 'm6g.large', 'm7g.large', 'r6g.large'].map((n, i) =>
      sized(n, 2, onDemand(0.06 + i * 0.001)),
    );
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [big], pods: [bound(big, { cpu: '1' })] }), [...small, c6g.x2large])).command!;

    // Act
    const line = disruptingMessage(cmd);

    // Assess
    expect(line).toBe(
      'disrupting nodeclaim(s) via replace, terminating 1 nodes (1 pods) ip-192-168-132-48/c6g.2xlarge/on-demand and replacing with on-demand node from types c6g.large, c7g.large, c5a.large, c6gd.large, m6g.large and 2 other(s)',
    );
  });

  it('should write a delete without a replacement part', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const empty = managed('ip-192-168-176-171', { pool: p, type: c6g.x2large });
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [empty] }), [c6g.x2large])).command!;

    // Act
    const line = disruptingMessage(cmd);

    // Assess
    expect(line).toBe('disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods) ip-192-168-176-171/c6g.2xlarge/on-demand');
  });

  it('should take the naming time from a scheduled event only', () => {
    // Prepare
    const scheduled = scheduledEvent(NOW);

    // Act
    const times = [
      scheduledTime(scheduled),
      scheduledTime({ reconcile: true }),
      scheduledTime({ 'detail-type': 'Scheduled Event', time: 'yesterday' }),
      scheduledTime(null),
    ];

    // Assess
    expect(times).toEqual([NOW, undefined, undefined, undefined]);
  });

  it("should read the feature gates from Karpenter's FEATURE_GATES syntax", () => {
    // Prepare
    const values = ['SpotToSpotConsolidation=true', 'NodeRepair=false, SpotToSpotConsolidation=true', 'SpotToSpotConsolidation=false', undefined];

    // Act
    const enabled = values.map((v) => gateEnabled(v, 'SpotToSpotConsolidation'));
    const deletionCost = gateEnabled('SpotToSpotConsolidation=false,PodDeletionCostManagement=true', 'PodDeletionCostManagement');

    // Assess
    expect(enabled).toEqual([true, true, false, false]);
    expect(deletionCost).toBe(true);
  });
});
