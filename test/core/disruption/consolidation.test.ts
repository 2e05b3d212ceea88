import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { validateCommand } from '../../../shared/core/disruption/validate';
import { Label } from '../../../shared/core/model/labels';
import { bound, c6g, claimNames, cluster, input, managed, onDemand, pool, sized, spotAndOnDemand } from './builders';
import { epochMs } from '../../../shared/core/time';

const budget100 = () => pool({ budgets: [{ nodes: '100%' }] });

describe('consolidation', () => {
  it('should replace a node by one cheaper node when its pods fit nowhere else', () => {
    // Prepare: one 8-vCPU node running one 1-vCPU pod
    const p = budget100();
    const a = managed('a', { pool: p, type: c6g.x2large });

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [c6g.large, c6g.xlarge, c6g.x2large]));

    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace', reason: 'underutilized' });
    expect(d.command?.replacements).toHaveLength(1);
    expect(d.command?.replacements[0].instanceTypes.map((t) => t.name)).toEqual(['c6g.large', 'c6g.xlarge']);
    expect(d.command?.savingsPerHour).toBeCloseTo(0.272 - 0.068);
  });

  it('should not replace a node that is already the cheapest fit', () => {
    // Prepare
    const p = budget100();
    const a = managed('a', { pool: p, type: c6g.large });

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [c6g.large, c6g.xlarge, c6g.x2large]));

    // Assess
    expect(d.command).toBeUndefined();
    const why = d.audit.find((r) => r.detail.method === 'single-node' && r.nodeClaims?.includes('claim-a'))?.detail.why;
    expect(String(why)).toMatch(/not cheaper|no cheaper node can hold them/);
  });

  it('should replace three nodes by one (multi-node 3 → 1)', () => {
    // Prepare: three 2-vCPU nodes at $0.30 each, each with a 1.5-vCPU pod; a 8-vCPU node costs $0.50
    const small = sized('small', 2, onDemand(0.3));
    const big = sized('big', 8, onDemand(0.5));
    const p = budget100();
    const nodes = ['a', 'b', 'c'].map((n) => managed(n, { pool: p, type: small }));
    const pods = nodes.map((m) => bound(m, { cpu: '1500m' }));

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes, pods }), [small, big]));

    // Assess
    expect(d.command).toMatchObject({ method: 'multi-node', action: 'replace' });
    expect(claimNames(d.command?.candidates)).toEqual(['claim-a', 'claim-b', 'claim-c']);
    expect(d.command?.replacements.map((r) => r.instanceTypes.map((t) => t.name))).toEqual([['big']]);
    expect(d.command?.savingsPerHour).toBeCloseTo(0.4);
    expect(d.command?.multiReplacement).toBeUndefined();
  });

  it('should delete several nodes at once when their pods fit on the rest (multi-node delete)', () => {
    // Prepare: a big node with room, three small nodes with a small pod each
    const p = budget100();
    const big = managed('big', { pool: p, type: c6g.x2large });
    const smalls = ['s1', 's2', 's3'].map((n) => managed(n, { pool: p, type: c6g.large }));
    const pods = [bound(big, { cpu: '2' }), bound(big, { cpu: '2' }), ...smalls.map((m) => bound(m, { cpu: '500m' }))];

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [big, ...smalls], pods }), [c6g.large, c6g.xlarge, c6g.x2large]));

    // Assess
    expect(d.command).toMatchObject({ method: 'multi-node', action: 'delete', replacements: [] });
    expect(claimNames(d.command?.candidates)).toEqual(['claim-s1', 'claim-s2', 'claim-s3']);
  });

  describe('spot-to-spot', () => {
    const spotTypes = (n: number) =>
      Array.from({ length: n }, (_, i) => sized(`spot-${String(i).padStart(2, '0')}`, 2, spotAndOnDemand(0.1 + i * 0.001, 0.05 + i * 0.001)));
    const spotNode = (types: ReturnType<typeof spotTypes>, o: { gate?: boolean } = {}) => {
      const bigType = sized('spot-big', 8, spotAndOnDemand(0.4, 0.2));
      const p = budget100();
      const a = managed('a', { pool: p, type: bigType, capacityType: 'spot' });
      return input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [...types, bigType], { options: { spotToSpotConsolidation: o.gate } });
    };

    it('should not replace spot by spot without the SpotToSpotConsolidation gate', () => {
      // Act
      const d = computeDisruption(spotNode(spotTypes(20)));

      // Assess
      expect(d.command).toBeUndefined();
      expect(d.audit.some((r) => String(r.detail.why).includes('spot-to-spot consolidation is disabled'))).toBe(true);
    });

    it('should need at least 15 cheaper spot options for single-node spot-to-spot', () => {
      // Act
      const d = computeDisruption(spotNode(spotTypes(14), { gate: true }));

      // Assess
      expect(d.command).toBeUndefined();
      expect(d.audit.some((r) => String(r.detail.why).includes('14 cheaper spot option(s), at least 15 required'))).toBe(true);
    });

    it('should replace spot by spot with the gate and ≥ 15 options, truncated to the cheapest 15', () => {
      // Act
      const d = computeDisruption(spotNode(spotTypes(20), { gate: true }));

      // Assess
      const r = d.command?.replacements[0];
      expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
      expect(r?.capacityType).toBe('spot');
      expect(r?.instanceTypes.map((t) => t.name)).toEqual(spotTypes(15).map((t) => t.name));
      expect(r?.requirements.find((x) => x.key === Label.capacityType)?.values).toEqual(['spot']);
    });

    it('should pin an on-demand node replacement to spot when both remain', () => {
      // Prepare
      const bigType = sized('od-big', 8, spotAndOnDemand(0.4, 0.2));
      const p = budget100();
      const a = managed('a', { pool: p, type: bigType, capacityType: 'on-demand' });

      // Act
      const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [...spotTypes(3), bigType]));

      // Assess
      expect(d.command?.replacements[0].capacityType).toBe('spot');
      expect(d.command?.replacements[0].requirements.find((x) => x.key === Label.capacityType)?.values).toEqual(['spot']);
    });
  });

  describe('multi-replacement (nodewright extension)', () => {
    // Three overpriced 8-vCPU nodes ($1.00) each running a 4.5-vCPU pod (no two fit on one node, so
    // Karpenter's one-node methods can only replace one at a time); a 6-vCPU type costs $0.30.
    const mid = sized('mid', 6, onDemand(0.3));
    const big = sized('big', 8, onDemand(1.0));
    const setup = () => {
      const p = budget100();
      const nodes = ['a', 'b', 'c'].map((n) => managed(n, { pool: p, type: big }));
      return { p, nodes, pods: nodes.map((m) => bound(m, { cpu: '4500m' })) };
    };

    it('should replace several nodes by several cheaper ones when that saves the most', () => {
      // Prepare
      const { p, nodes, pods } = setup();

      // Act
      const d = computeDisruption(input(cluster({ pools: [p], nodes, pods }), [mid, big]));

      // Assess
      expect(d.command).toMatchObject({ method: 'multi-node', action: 'replace', multiReplacement: true });
      expect(d.command?.candidates).toHaveLength(3);
      expect(d.command?.replacements.map((r) => r.instanceTypes[0].name)).toEqual(['mid', 'mid', 'mid']);
      expect(d.command?.savingsPerHour).toBeCloseTo(3 - 0.9);
      const chosen = d.audit.find((r) => r.action === 'chosen');
      expect(String(chosen?.detail.why)).toContain('multi-replacement');
    });

    it('should fall back to Karpenter single-node replace when multi-replacement is off', () => {
      // Prepare
      const { p, nodes, pods } = setup();

      // Act
      const d = computeDisruption(input(cluster({ pools: [p], nodes, pods }), [mid, big], { options: { multiReplacement: false } }));

      // Assess
      expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
      expect(d.command?.replacements).toHaveLength(1);
    });

    it('should keep multi-replacement within the budget', () => {
      // Prepare: budget 2 nodes
      const { nodes, pods } = setup();
      const p = pool({ budgets: [{ nodes: '2' }] });
      for (const m of nodes) m.claim.nodePool = p.name;

      // Act
      const d = computeDisruption(input(cluster({ pools: [p], nodes, pods }), [mid, big]));

      // Assess
      expect(d.command?.candidates.length).toBeLessThanOrEqual(2);
    });
  });
});

describe('consolidation beside pending pods', () => {
  it('should still delete a node whose pods fit elsewhere while a pending pod waits for its own new node', () => {
    // Prepare: "a" (1 vCPU) fits on "b"; a pending 6-vCPU pod fits on no existing node
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const b = managed('b', { pool: p, type: c6g.x2large });
    const pending = {
      ...bound('nowhere', { name: 'big-pending', cpu: '6' }),
      nodeName: undefined,
      phase: 'Pending' as const,
      unschedulable: true,
      ready: false,
    };
    const pods = [bound(a), bound(b, { cpu: '3' }), bound(b, { cpu: '3' }), pending];

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a, b], pods }), [c6g.large, c6g.xlarge, c6g.x2large]));

    // Assess: the pending pod's claim is the provisioner's, not a replacement
    expect(d.command).toMatchObject({ method: 'single-node', action: 'delete', replacements: [] });
    expect(d.command?.candidates.map((c) => c.node.name)).toEqual(['a']);
  });
});

describe('consolidation that splits (nodewright, issue #12 item 2)', () => {
  // The giant type is dearer per vCPU than the small one, as the largest sizes are on the real catalog.
  const small = sized('small', 4, onDemand(0.2));
  const giant = sized('giant', 32, onDemand(2.4));

  it('should replace one giant node by several cheaper small ones, pre-spun and validated like any replacement', () => {
    // Prepare: 12 one-vCPU pods on a 32-vCPU node at $2.40/h; four 4-vCPU nodes at $0.20 hold them ($0.80/h)
    const p = budget100();
    const a = managed('a', { pool: p, type: giant });
    const pods = Array.from({ length: 12 }, () => bound(a, { cpu: '900m' }));

    // Act
    const i = input(cluster({ pools: [p], nodes: [a], pods }), [small, giant]);
    const d = computeDisruption(i);

    // Assess
    expect(validateCommand(d.command!, { ...i, now: epochMs(i.now + 15_000) })).toEqual({ valid: true });
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace', multiReplacement: true });
    expect(d.command?.replacements.length).toBeGreaterThan(1);
    expect(d.command?.replacements.every((r) => r.instanceTypes[0].name === 'small')).toBe(true);
    expect(d.command?.savingsPerHour).toBeCloseTo(2.4 - 0.2 * d.command!.replacements.length);
  });

  it("should keep Karpenter's one-for-one replacement when a split saves nothing more", () => {
    // Prepare: one pod on the giant node: one small node replaces it
    const p = budget100();
    const a = managed('a', { pool: p, type: giant });
    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [small, giant]));
    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', action: 'replace' });
    expect(d.command?.replacements).toHaveLength(1);
    expect(d.command?.multiReplacement).toBeUndefined();
  });
});
