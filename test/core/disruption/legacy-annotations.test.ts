/**
 * Issue 15, Karpenter's semantics: the NodeClaim's karpenter.sh/do-not-disrupt protects like the Node's; the
 * pre-v1 karpenter.sh/do-not-evict (pod, "true") blocks voluntary disruption of the pod's node like
 * do-not-disrupt; karpenter.sh/do-not-consolidate (node or claim, "true") blocks consolidation only.
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { Annotation } from '../../../shared/core/model/labels';
import { legacyAnnotationWarnings } from '../../../shared/core/model/legacy-annotations';
import { bound, c6g, claimNames, cluster, input, managed, pool } from './builders';

const types = [c6g.large, c6g.xlarge, c6g.x2large];

/** Node "a" (8 vCPU, one 1-vCPU pod) consolidates onto "b" unless something blocks it; "e" is empty. */
function nodes(o: { podAnnotations?: Record<string, string>; nodeAnnotations?: Record<string, string>; claimAnnotations?: Record<string, string> } = {}) {
  const p = pool({ budgets: [{ nodes: '100%' }] });
  const a = managed('a', { pool: p, type: c6g.x2large, nodeAnnotations: o.nodeAnnotations, claimAnnotations: o.claimAnnotations });
  const b = managed('b', { pool: p, type: c6g.x2large });
  const pods = [bound(a, { name: 'web-a', annotations: o.podAnnotations }), bound(b, { name: 'web-b', cpu: '3' }), bound(b, { name: 'web-c', cpu: '3' })];
  return { p, a, b, snapshot: cluster({ pools: [p], nodes: [a, b], pods }) };
}

const whyNot = (d: ReturnType<typeof computeDisruption>, claim: string) =>
  d.audit
    .filter((r) => r.nodeClaims?.includes(claim) && r.action !== 'chosen')
    .map((r) => String(r.detail.why))
    .join('\n');

describe('do-not-disrupt on the NodeClaim', () => {
  it('should skip a node whose NodeClaim (not Node) carries do-not-disrupt "true"', () => {
    const d = computeDisruption(input(nodes({ claimAnnotations: { [Annotation.doNotDisrupt]: 'true' } }).snapshot, types));

    expect(claimNames(d.command?.candidates)).not.toContain('claim-a');
    expect(whyNot(d, 'claim-a')).toContain(`nodeclaim has ${Annotation.doNotDisrupt}: "true"`);
  });
});

describe('karpenter.sh/do-not-evict (pre-v1 pod alias)', () => {
  it('should not disrupt the node of a pod annotated do-not-evict "true"', () => {
    const d = computeDisruption(input(nodes({ podAnnotations: { [Annotation.doNotEvict]: 'true' } }).snapshot, types));

    expect(claimNames(d.command?.candidates)).not.toContain('claim-a');
    expect(whyNot(d, 'claim-a')).toContain(`has ${Annotation.doNotEvict}: "true" (deprecated alias of ${Annotation.doNotDisrupt})`);
  });

  it('should ignore do-not-evict with any value other than "true"', () => {
    const d = computeDisruption(input(nodes({ podAnnotations: { [Annotation.doNotEvict]: 'false' } }).snapshot, types));

    expect(claimNames(d.command?.candidates)).toEqual(['claim-a']);
  });
});

describe('karpenter.sh/do-not-consolidate (pre-v1 node alias)', () => {
  it('should not consolidate a node annotated do-not-consolidate "true", on the Node or on its NodeClaim', () => {
    for (const o of [{ nodeAnnotations: { [Annotation.doNotConsolidate]: 'true' } }, { claimAnnotations: { [Annotation.doNotConsolidate]: 'true' } }]) {
      const d = computeDisruption(input(nodes(o).snapshot, types));

      expect(claimNames(d.command?.candidates)).not.toContain('claim-a');
      expect(whyNot(d, 'claim-a')).toContain(`has ${Annotation.doNotConsolidate}: "true"`);
    }
  });

  it('should not remove an empty node annotated do-not-consolidate "true"', () => {
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const empty = managed('e', { pool: p, type: c6g.xlarge, nodeAnnotations: { [Annotation.doNotConsolidate]: 'true' } });

    const d = computeDisruption(input(cluster({ pools: [p], nodes: [empty], pods: [] }), types));

    expect(d.command).toBeUndefined();
  });

  it('should still disrupt a drifted node annotated do-not-consolidate "true" (drift is not consolidation)', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const n = managed('n', { pool: p, type: c6g.xlarge, nodeAnnotations: { [Annotation.doNotConsolidate]: 'true' } });
    p.template.labels = { ...p.template.labels, team: 'new' };

    const d = computeDisruption(input(cluster({ pools: [p], nodes: [n], pods: [] }), types));

    expect(d.command).toMatchObject({ method: 'drift', reason: 'drifted' });
    expect(claimNames(d.command?.candidates)).toEqual(['claim-n']);
  });
});

describe('legacyAnnotationWarnings', () => {
  it('should warn once per distinct old key, naming the v1 key, and not for "false" or v1 keys', () => {
    const { snapshot } = nodes({ podAnnotations: { [Annotation.doNotEvict]: 'true' }, nodeAnnotations: { [Annotation.doNotConsolidate]: 'true' } });
    snapshot.pods.push({ ...snapshot.pods[0], name: 'other', annotations: { [Annotation.doNotEvict]: 'true' } });

    const w = legacyAnnotationWarnings(snapshot);

    expect(w).toHaveLength(2);
    expect(w[0]).toMatch(/^karpenter\.sh\/do-not-evict is deprecated.*karpenter\.sh\/do-not-disrupt/);
    expect(w[1]).toMatch(/^karpenter\.sh\/do-not-consolidate is deprecated.*karpenter\.sh\/do-not-disrupt/);
    expect(legacyAnnotationWarnings(nodes({ podAnnotations: { [Annotation.doNotEvict]: 'false', [Annotation.doNotDisrupt]: 'true' } }).snapshot)).toEqual([]);
  });

  it("should see do-not-consolidate in a NodePool template (a converted Provisioner's annotations)", () => {
    const p = pool();
    p.template.annotations = { [Annotation.doNotConsolidate]: 'true' };

    expect(legacyAnnotationWarnings({ nodePools: [p] })).toHaveLength(1);
  });
});
