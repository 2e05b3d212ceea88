/**
 * The shipped scenario examples/scenarios/pool-do-not-disrupt.yaml (issue 15): a NodePool template's
 * karpenter.sh/do-not-disrupt: "true" reaches the NodeClaims and Nodes, so that pool's empty nodes are never
 * disrupted, while the other pool's empty nodes are removed as Empty.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario pool-do-not-disrupt', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('pool-do-not-disrupt');
  }, 300_000);

  it("should keep the protected pool's empty nodes for the whole run", () => {
    expectClean(r);
    const protectedNodes = r.nodes.filter((n) => n.nodePool === 'protected');
    expect(protectedNodes).toHaveLength(2);
    for (const n of protectedNodes) expect(n.terminatedAt, `${n.name} (${n.terminationReason ?? ''})`).toBeUndefined();
    for (const d of r.disruptions) expect(d.nodes.filter((x) => protectedNodes.some((n) => n.name === x))).toEqual([]);
  });

  it("should remove the other pool's empty nodes as Empty", () => {
    const plain = r.nodes.filter((n) => n.nodePool === 'plain');
    expect(plain).toHaveLength(2);
    for (const n of plain) expect(n.terminatedAt, n.name).toBeDefined();
    expect(
      r.disruptions
        .filter((d) => d.reason === 'empty')
        .flatMap((d) => d.nodes)
        .sort(),
    ).toEqual(plain.map((n) => n.name).sort());
    expect(r.final.nodes).toBe(2);
    expect(r.final.pendingPods).toBe(0);
  });
});
