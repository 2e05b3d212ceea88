/**
 * Seed 000's walkthrough: `inflate` (1 vCPU per pod) scaled to 12 on two c6g.2xlarge nodes, then down to 5
 * (underutilized delete), down to 1 (replace with a cheaper type), then deleted (empty nodes deleted).
 */
import { describe, expect, it } from 'vitest';
import { commandLogLine, computeDisruption, toExecutions } from '../../../shared/core/disruption';
import { parseDisruptInput } from '../../../shared/core/lifecycle/manual-input';
import { bound, c6g, cluster, input, managed, pool } from './builders';
import { epochMs } from '../../../shared/core/time';

const types = [c6g.large, c6g.xlarge, c6g.x2large];
const inflate = (node: ReturnType<typeof managed>, n: number) => Array.from({ length: n }, () => bound(node, { labels: { app: 'inflate' } }));

describe('seed story: inflate 12 → 5 → 1 → deleted', () => {
  const p = pool({ budgets: [{ nodes: '10%' }] });
  const a = managed('ip-192-168-132-48', { pool: p, type: c6g.x2large });
  const b = managed('ip-192-168-185-240', { pool: p, type: c6g.x2large });

  it('should not disrupt anything while 12 replicas fill both nodes', () => {
    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a, b], pods: [...inflate(a, 6), ...inflate(b, 6)] }), types));

    // Assess
    expect(d.command).toBeUndefined();
  });

  it('should delete one underutilized node when scaled to 5', () => {
    // Prepare: the scale-down left 2 pods on one node and 3 on the other
    const snap = cluster({ pools: [p], nodes: [a, b], pods: [...inflate(a, 2), ...inflate(b, 3)] });

    // Act
    const d = computeDisruption(input(snap, types));

    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', reason: 'underutilized', action: 'delete', replacements: [] });
    expect(d.command?.candidates.map((c) => c.node.name)).toEqual(['ip-192-168-132-48']);
    expect(commandLogLine(d.command!)).toMatch(
      /^disrupting nodeclaim\(s\) via delete, terminating 1 nodes \(2 pods\) ip-192-168-132-48\/c6g\.2xlarge\/on-demand/,
    );
  });

  it('should replace the last node with a cheaper type when scaled to 1', () => {
    // Prepare
    const snap = cluster({ pools: [p], nodes: [b], pods: inflate(b, 1) });

    // Act
    const d = computeDisruption(input(snap, types));

    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', reason: 'underutilized', action: 'replace' });
    expect(d.command?.replacements[0].instanceTypes[0].name).toBe('c6g.large');
    expect(commandLogLine(d.command!)).toContain('and replacing with on-demand node from types c6g.large, c6g.xlarge');
    const [exec] = toExecutions(d.command!, epochMs(1_800_000_000_000));
    expect(exec.machine).toBe('disrupt');
    expect(parseDisruptInput(exec.input)).toMatchObject({ reason: 'Underutilized', candidates: [{ nodeClaimName: 'claim-ip-192-168-185-240' }] });
  });

  it('should delete the empty node once the deployment is deleted', () => {
    // Prepare
    const c = managed('ip-192-168-109-5', { pool: p, type: c6g.large });

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [c] }), types));

    // Assess
    expect(d.command).toMatchObject({ method: 'emptiness', reason: 'empty', action: 'delete' });
    expect(d.audit.find((r) => r.action === 'chosen')).toMatchObject({ kind: 'disruption', reason: 'empty', nodeClaims: ['claim-ip-192-168-109-5'] });
  });
});
