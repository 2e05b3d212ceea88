/**
 * The shipped scenario examples/scenarios/adopt-karpenter.yaml: nodewright takes over 12 nodes a running Karpenter
 * launched (its claim names, drift hashes and versions). Nothing is rolled for being adopted; interruption,
 * consolidation, expiry and drift then apply to the adopted nodes; and the objects it leaves behind are ones
 * Karpenter's own rules would not roll either (the way back).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult, SimWorld } from '../../../shared/sim';
import { karpenterStaticDrift } from '../karpenter-rules';
import { expectClean, MINUTES, runShipped } from './helpers';

const KARPENTER_NAME = /^(default|batch)-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

describe('shipped scenario adopt-karpenter', () => {
  let r: SimulationResult;
  let leftBehind: Parameters<typeof karpenterStaticDrift>[0];
  let claimAnnotations: Record<string, string>[];
  beforeAll(async () => {
    r = await runShipped('adopt-karpenter', {
      atEnd: (world: SimWorld) => {
        const scan = (apiVersion: string, kind: string) => world.api.store.scan(world.api.store.typeOf(apiVersion, kind)).map((o) => structuredClone(o));
        leftBehind = {
          nodePools: scan('karpenter.sh/v1', 'NodePool'),
          nodeClasses: scan('karpenter.k8s.aws/v1', 'EC2NodeClass'),
          nodeClaims: scan('karpenter.sh/v1', 'NodeClaim'),
        };
        claimAnnotations = leftBehind.nodeClaims.map((c) => c.metadata.annotations as Record<string, string>);
      },
    });
  }, 600_000);

  const adopted = () => r.nodes.filter((n) => n.launchedAt === 0);
  const adoptedNames = () => new Set(adopted().map((n) => n.name));

  it('should keep every adopted node until something happens to it: no launch, no drift, nothing rolled for being adopted', () => {
    expectClean(r);
    expect(adopted()).toHaveLength(12);
    expect(adopted().every((n) => KARPENTER_NAME.test(n.nodeClaim ?? ''))).toBe(true);
    // The first event is a spot interruption at 9m07s: until then nothing launches and nothing is disrupted.
    expect(r.disruptions.filter((d) => d.t < 9 * MINUTES + 7)).toEqual([]);
    expect(r.executions.filter((e) => e.startedAt < 9 * MINUTES + 7)).toEqual([]);
    // Drift only after the NodePool changes at 45m29s.
    expect(r.disruptions.filter((d) => d.reason === 'drifted' && d.t < 45 * MINUTES + 29)).toEqual([]);
  });

  it('should interrupt, consolidate, expire and drift adopted nodes like its own, losing no pod', () => {
    const names = adoptedNames();
    const touched = (reason: string) => r.disruptions.filter((d) => d.reason === reason && d.nodes.some((n) => names.has(n)));
    expect(touched('interrupted')).toHaveLength(1);
    expect(touched('empty').length + touched('underutilized').length).toBeGreaterThanOrEqual(3);
    expect(touched('expired').length).toBeGreaterThanOrEqual(3);
    expect(touched('drifted').length).toBeGreaterThanOrEqual(3);
    expect(r.final).toEqual({ nodes: 8, pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(r.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: 0 });
  });

  it("should leave claims that Karpenter's hash controllers re-stamp instead of drifting (the way back)", () => {
    expect(leftBehind.nodeClaims).toHaveLength(8);
    expect(claimAnnotations.every((a) => a['karpenter.sh/nodepool-hash-version'] !== 'v3' && a['karpenter.k8s.aws/ec2nodeclass-hash-version'] !== 'v6')).toBe(
      true,
    );
    expect(karpenterStaticDrift(leftBehind)).toEqual([]);
    for (const c of leftBehind.nodeClaims) expect(c.metadata.finalizers).toEqual(['karpenter.sh/termination']);
  });
});
