import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { Annotation } from '../../../shared/core/model/labels';
import { ago, bound, c6g, cluster, input, managed, pdb, pool } from './builders';
import type { EpochMs } from '../../../shared/core/time';

/** Two 8-vCPU nodes: "a" has one 1-vCPU pod that fits on "b" (2 × 3 vCPU), so single-node consolidation deletes "a". */
function twoNodes(
  o: {
    podAnnotations?: Record<string, string>;
    nodeAnnotations?: Record<string, string>;
    pdbs?: ReturnType<typeof pdb>[];
    lastPodEventTime?: EpochMs;
    p?: ReturnType<typeof pool>;
    podLabels?: Record<string, string>;
    replicas?: number;
  } = {},
) {
  const p = o.p ?? pool({ budgets: [{ nodes: '100%' }] });
  const a = managed('a', { pool: p, type: c6g.x2large, nodeAnnotations: o.nodeAnnotations, lastPodEventTime: o.lastPodEventTime });
  const b = managed('b', { pool: p, type: c6g.x2large });
  const labels = o.podLabels ?? { app: 'web' };
  const pods = [
    bound(a, { name: 'web-a', annotations: o.podAnnotations, labels }),
    ...Array.from({ length: (o.replicas ?? 3) - 1 }, (_, i) => bound(b, { name: `web-b${i}`, labels, cpu: '3' })),
  ];
  return input(cluster({ pools: [p], nodes: [a, b], pods, pdbs: o.pdbs }), [c6g.large, c6g.xlarge, c6g.x2large]);
}

const skippedWhy = (d: ReturnType<typeof computeDisruption>, claim: string) =>
  d.audit.filter((r) => r.nodeClaims?.includes(claim) && r.action !== 'chosen').map((r) => String(r.detail.why));

describe('disruption blockers', () => {
  it('should consolidate an underutilized node when nothing blocks it', () => {
    // Act
    const d = computeDisruption(twoNodes());

    // Assess
    expect(d.command).toMatchObject({ method: 'single-node', action: 'delete', reason: 'underutilized' });
    expect(d.command?.candidates.map((c) => c.node.name)).toEqual(['a']);
    expect(d.command?.savingsPerHour).toBeCloseTo(0.272);
  });

  it('should not disrupt a node with a pod annotated do-not-disrupt "true"', () => {
    // Act
    const d = computeDisruption(twoNodes({ podAnnotations: { [Annotation.doNotDisrupt]: 'true' } }));

    // Assess
    expect(d.command?.candidates.map((c) => c.node.name) ?? []).not.toContain('a');
    expect(skippedWhy(d, 'claim-a').join()).toContain('do-not-disrupt');
  });

  it('should honour a do-not-disrupt duration from pod start, and ignore it once elapsed or invalid', () => {
    // Prepare: pods started an hour ago
    const active = twoNodes({ podAnnotations: { [Annotation.doNotDisrupt]: '2h' } });
    const elapsed = twoNodes({ podAnnotations: { [Annotation.doNotDisrupt]: '30m' } });
    const invalid = twoNodes({ podAnnotations: { [Annotation.doNotDisrupt]: 'soon' } });

    // Act
    const [da, de, di] = [active, elapsed, invalid].map(computeDisruption);

    // Assess
    expect(da.command?.candidates.map((c) => c.node.name) ?? []).not.toContain('a');
    expect(de.command?.candidates.map((c) => c.node.name)).toEqual(['a']);
    expect(di.command?.candidates.map((c) => c.node.name)).toEqual(['a']);
  });

  it('should not disrupt a node annotated do-not-disrupt "true"', () => {
    // Act
    const d = computeDisruption(twoNodes({ nodeAnnotations: { [Annotation.doNotDisrupt]: 'true' } }));

    // Assess
    expect(d.command?.candidates.map((c) => c.node.name) ?? []).not.toContain('a');
    expect(skippedWhy(d, 'claim-a')).toContain(`node has ${Annotation.doNotDisrupt}: "true"`);
  });

  it('should report a PDB with maxUnavailable 0 as a deadlock and not choose the node', () => {
    // Act
    const d = computeDisruption(twoNodes({ pdbs: [pdb('web', { app: 'web' }, { maxUnavailable: 0 })] }));

    // Assess
    expect(d.command).toBeUndefined();
    const rec = d.audit.find((r) => r.nodeClaims?.includes('claim-a') && r.detail.deadlock === true);
    expect(String(rec?.detail.why)).toMatch(/PDB deadlock: pdb default\/web \(maxUnavailable 0\) can never allow an eviction/);
  });

  it('should report minAvailable equal to the replicas as a deadlock, and a transient zero as not', () => {
    // Prepare
    const deadlocked = twoNodes({ pdbs: [pdb('web', { app: 'web' }, { minAvailable: 3 })] });
    const transient = twoNodes({ pdbs: [pdb('web', { app: 'web' }, { minAvailable: 2, disruptionsAllowed: 0 })] });

    // Act
    const [dd, dt] = [deadlocked, transient].map(computeDisruption);

    // Assess
    expect(dd.audit.some((r) => r.nodeClaims?.includes('claim-a') && r.detail.deadlock === true)).toBe(true);
    const t = dt.audit.find((r) => r.nodeClaims?.includes('claim-a') && r.detail.blocker === 'pdb');
    expect(t?.detail).toMatchObject({ deadlock: false });
    expect(String(t?.detail.why)).toContain('allows 0 disruptions now');
    expect(dt.command).toBeUndefined();
  });

  it('should allow the node when its PDB still allows a disruption', () => {
    // Act
    const d = computeDisruption(twoNodes({ pdbs: [pdb('web', { app: 'web' }, { maxUnavailable: 1 })] }));

    // Assess
    expect(d.command?.candidates.map((c) => c.node.name)).toEqual(['a']);
  });

  it('should treat a pod selected by two PDBs as a deadlock', () => {
    // Act
    const d = computeDisruption(twoNodes({ pdbs: [pdb('one', { app: 'web' }, { maxUnavailable: 1 }), pdb('two', { app: 'web' }, { maxUnavailable: 1 })] }));

    // Assess
    expect(d.command).toBeUndefined();
    expect(skippedWhy(d, 'claim-a').join()).toMatch(/multiple PDBs/);
  });

  it('should wait consolidateAfter from the last pod event, and never consolidate with Never', () => {
    // Prepare
    const recent = twoNodes({ p: pool({ budgets: [{ nodes: '100%' }], consolidateAfter: 600 }), lastPodEventTime: ago(60) });
    const never = twoNodes({ p: pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null }) });

    // Act
    const [dr, dn] = [recent, never].map(computeDisruption);

    // Assess
    expect(dr.command?.candidates.map((c) => c.node.name) ?? []).not.toContain('a');
    expect(skippedWhy(dr, 'claim-a').join()).toContain('not consolidatable yet');
    expect(dn.command).toBeUndefined();
    expect(skippedWhy(dn, 'claim-a')).toContain('consolidateAfter is Never');
  });

  it('should only delete empty nodes under WhenEmpty', () => {
    // Act
    const d = computeDisruption(twoNodes({ p: pool({ budgets: [{ nodes: '100%' }], policy: 'WhenEmpty' }) }));

    // Assess
    expect(d.command).toBeUndefined();
    expect(skippedWhy(d, 'claim-a')).toContain('consolidationPolicy WhenEmpty and the node is not empty');
  });

  it('should ignore terminal and terminating pods as blockers', () => {
    // Prepare
    const i = twoNodes({ podAnnotations: {} });
    i.snapshot.pods.push(
      { ...bound('a', { name: 'done', annotations: { [Annotation.doNotDisrupt]: 'true' } }), phase: 'Succeeded' },
      { ...bound('a', { name: 'leaving', annotations: { [Annotation.doNotDisrupt]: 'true' } }), deletionTimestamp: ago(5) },
    );

    // Act
    const d = computeDisruption(i);

    // Assess
    expect(d.command?.candidates.map((c) => c.node.name)).toEqual(['a']);
  });

  it('should skip nodes that are already disrupting or nominated', () => {
    // Prepare
    const i = twoNodes();
    i.options = { nominatedNodes: ['a'] };

    // Act
    const d = computeDisruption(i);

    // Assess
    expect(d.command?.candidates.map((c) => c.node.name) ?? []).not.toContain('a');
    expect(skippedWhy(d, 'claim-a')).toContain('node is nominated for pending pods');
  });
});
