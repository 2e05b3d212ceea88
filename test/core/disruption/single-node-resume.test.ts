import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { bound, c6g, cluster, input, managed, NOW, pool } from './builders';

/** Six full c6g.large nodes (1.5 of 1.91 vCPUs used): no pod fits elsewhere and no cheaper type holds one. */
function fullCluster() {
  const p = pool({ budgets: [{ nodes: '100%' }] });
  const nodes = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => managed(n, { pool: p, type: c6g.large }));
  return cluster({ pools: [p], nodes, pods: nodes.map((m) => bound(m, { cpu: '1500m' })) });
}

/** A clock that moves one second each time it is read: the search's timeout falls after a known number of candidates. */
function tickingClock() {
  let t: number = NOW;
  return { now: () => (t += 1000) as typeof NOW };
}

const evaluated = (d: ReturnType<typeof computeDisruption>) =>
  d.audit.filter((a) => a.detail.method === 'single-node' && !a.detail.why.startsWith('not evaluated')).map((a) => a.nodeClaims?.[0]);

describe('single-node consolidation on a cluster too large for one pass', () => {
  it('should resume where the last timed-out search stopped, wrapping around, and start over once a search completes', () => {
    // Prepare: a search that times out after three candidates (multi-node out of the way: a list of one)
    const options = { maxMultiNodeCandidates: 1, multiReplacement: false, singleNodeTimeoutMs: 2500, clock: tickingClock() };
    const snapshot = fullCluster();
    const types = [c6g.large, c6g.xlarge, c6g.x2large];

    // Act: three passes, each resuming where the one before stopped; then one without a timeout
    const first = computeDisruption(input(snapshot, types, { options }));
    const second = computeDisruption(input(snapshot, types, { options: { ...options, singleNodeResumeAt: first.singleNodeResumeAt! } }));
    const third = computeDisruption(input(snapshot, types, { options: { ...options, singleNodeResumeAt: second.singleNodeResumeAt! } }));
    const whole = computeDisruption(input(snapshot, types, { options: { ...options, clock: undefined, singleNodeResumeAt: third.singleNodeResumeAt! } }));

    // Assess: every candidate is evaluated within two passes; the next search starts where the last one stopped
    expect(evaluated(first)).toEqual(['claim-a', 'claim-b', 'claim-c']);
    expect(first.singleNodeResumeAt).toBe('claim-d');
    expect(evaluated(second)).toEqual(['claim-d', 'claim-e', 'claim-f']);
    expect(second.singleNodeResumeAt).toBe('claim-a');
    expect(evaluated(third)).toEqual(['claim-a', 'claim-b', 'claim-c']);
    expect(whole.command).toBeUndefined();
    expect(evaluated(whole)).toEqual(['claim-d', 'claim-e', 'claim-f', 'claim-a', 'claim-b', 'claim-c']);
    expect(whole.singleNodeResumeAt).toBeNull();
  });
});
