import { describe, expect, it } from 'vitest';
import { sweepStaleTaints } from '../../../shared/core/lifecycle';
import type { ExecutionStatus, WorkflowName } from '../../../shared/core/ports';
import { fakes, node, nodeClaim } from '../../fakes/lifecycle';
import { epochMs } from '../../../shared/core/time';

const tainted = (name: string, by?: string) =>
  node(name, { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }], annotations: by ? { 'nodewright.io/disrupted-by': by } : {} });

describe('the stale disrupted-taint sweep', () => {
  it('should untaint a node whose execution was aborted, timed out or failed, or that no execution holds, and leave running, succeeded and unknown ones', async () => {
    // Prepare
    const f = fakes();
    const statuses: Record<string, ExecutionStatus> = {
      'terminate/t-aborted': 'ABORTED',
      'disrupt/d-failed': 'FAILED',
      'terminate/t-timed': 'TIMED_OUT',
      'terminate/t-running': 'RUNNING',
      'disrupt/d-ok': 'SUCCEEDED',
    };
    Object.assign(f.workflows, { status: async (m: WorkflowName, n: string) => (statuses[`${m}/${n}`] ? { status: statuses[`${m}/${n}`] } : undefined) });
    for (const [n, by] of [
      ['a', 'terminate/t-aborted'],
      ['b', 'disrupt/d-failed'],
      ['c', 'terminate/t-timed'],
      ['d', 'terminate/t-running'],
      ['e', 'disrupt/d-ok'],
      ['f', 'terminate/unknown'],
      ['g', undefined],
    ] as const) {
      f.cluster.nodes.set(n, tainted(n, by));
    }
    // Act
    const swept = await sweepStaleTaints(f, await f.cluster.snapshot());
    // Assess
    expect(swept).toEqual(['a', 'b', 'c', 'g']);
    expect(f.cluster.nodes.get('a')?.taints).toEqual([]);
    expect(f.cluster.nodes.get('d')?.taints.map((t) => t.key)).toEqual(['karpenter.sh/disrupted']);
    // g: Karpenter's taint (no nodewright execution named), removed as Karpenter removes taints outside its queue
    expect(f.cluster.nodes.get('g')?.taints).toEqual([]);
  });

  it('should leave the node of a claim being deleted tainted (its termination is what must finish)', async () => {
    // Prepare
    const f = fakes();
    Object.assign(f.workflows, { status: async () => ({ status: 'ABORTED' as const }) });
    f.cluster.nodes.set('a', tainted('a', 'terminate/t1'));
    f.cluster.claims.set('default-aaaaa', { ...nodeClaim('default-aaaaa', { nodeName: 'a' }), deletionTimestamp: epochMs(1000) });
    f.cluster.nodes.set('b', tainted('b'));
    f.cluster.claims.set('default-bbbbb', { ...nodeClaim('default-bbbbb', { nodeName: 'b' }), deletionTimestamp: epochMs(1000) });
    // Act
    const swept = await sweepStaleTaints(f, await f.cluster.snapshot());
    // Assess
    expect(swept).toEqual([]);
  });
});
