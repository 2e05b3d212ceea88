import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { NodeClassHashVersion, nodeClassHash } from '../../../shared/core/model/hash';
import type { EC2NodeClass } from '../../../shared/core/model/karpenter';
import { Annotation, Label } from '../../../shared/core/model/labels';
import { ago, bound, c6g, claimNames, cluster, input, managed, pool } from './builders';

const types = [c6g.large, c6g.xlarge, c6g.x2large];

/** Changes the pool template after its nodes were launched, so their nodepool-hash no longer matches. */
function drift(p: ReturnType<typeof pool>) {
  p.template.labels = { ...p.template.labels, team: 'new' };
}

describe('drift', () => {
  it('should disrupt drifted nodes one per command, empty ones first, within the Drifted budget', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const busy = managed('busy', { pool: p, type: c6g.xlarge });
    const empty = managed('empty', { pool: p, type: c6g.xlarge });
    drift(p);

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [busy, empty], pods: [bound(busy)] }), types));

    // Assess
    expect(d.command).toMatchObject({ method: 'drift', reason: 'drifted', action: 'delete', replacements: [] });
    expect(claimNames(d.command?.candidates)).toEqual(['claim-empty']);
    expect(d.command?.driftReasons).toEqual({ 'claim-empty': 'NodePoolDrifted' });
  });

  it('should replace a drifted node whose pods fit nowhere else, with the replacements the scheduler plans', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '1' }], consolidateAfter: null });
    const a = managed('a', { pool: p, type: c6g.xlarge });
    drift(p);

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a, { cpu: '3' })] }), types));

    // Assess
    expect(d.command).toMatchObject({ method: 'drift', action: 'replace' });
    expect(d.command?.replacements).toHaveLength(1);
    expect(d.command?.replacements[0].labels.team).toBe('new');
  });

  it('should order drifted nodes by when they drifted and take cloud-provider reasons as given', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '1' }], consolidateAfter: null });
    const late = managed('late', { pool: p, type: c6g.xlarge, driftedCondition: { reason: 'SubnetDrift', at: ago(60) } });
    const early = managed('early', { pool: p, type: c6g.xlarge, driftedCondition: { reason: 'SubnetDrift', at: ago(600) } });
    const other = managed('other', { pool: p, type: c6g.x2large });
    const pods = [bound(late), bound(early), bound(other)];

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [late, early, other], pods }), types, { drifted: { 'claim-other': 'AMIDrift' } }));

    // Assess
    expect(claimNames(d.command?.candidates)).toEqual(['claim-early']);
    expect(d.command?.driftReasons).toEqual({ 'claim-early': 'SubnetDrift' });
  });

  it('should detect RequirementsDrifted when the node no longer fits the pool requirements', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '1' }], consolidateAfter: null });
    const a = managed('a', { pool: p, type: c6g.xlarge });
    p.template.requirements = [{ key: Label.zone, operator: 'In', values: ['zone-b'] }];

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a] }), types));

    // Assess
    expect(d.command?.driftReasons).toEqual({ 'claim-a': 'RequirementsDrifted' });
  });

  it('should detect NodeClassDrift when the EC2NodeClass hash changed since launch, at the same hash version', () => {
    // Prepare
    const cls: EC2NodeClass = {
      name: 'default',
      amiFamily: 'AL2023',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ id: 'subnet-1' }],
      securityGroupSelectorTerms: [{ id: 'sg-1' }],
      tags: {},
      blockDeviceMappings: [],
      metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    };
    const launchedWith = { [Annotation.nodeClassHash]: nodeClassHash(cls), [Annotation.nodeClassHashVersion]: NodeClassHashVersion };
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const a = managed('a', { pool: p, type: c6g.xlarge, claimAnnotations: launchedWith });
    const old = managed('old', { pool: p, type: c6g.xlarge, claimAnnotations: { ...launchedWith, [Annotation.nodeClassHashVersion]: 'v1' } });
    // A claim Karpenter launched: its own hashes (hashstructure) at its own versions, never compared with nodewright's.
    const karpenters = managed('karpenters', {
      pool: p,
      type: c6g.xlarge,
      claimAnnotations: {
        [Annotation.nodePoolHash]: '6821555240594823858',
        [Annotation.nodePoolHashVersion]: 'v3',
        [Annotation.nodeClassHash]: '11937521203981245071',
        [Annotation.nodeClassHashVersion]: 'v6',
      },
    });
    const snap = cluster({ pools: [p], nodes: [a, old, karpenters] });
    const unchanged = computeDisruption(input({ ...snap, nodeClasses: [cls] }, types));

    // Act
    const changed = computeDisruption(input({ ...snap, nodeClasses: [{ ...cls, userData: 'echo hi' }] }, types));

    // Assess
    expect(unchanged.command).toBeUndefined();
    expect(changed.command?.driftReasons).toEqual({ 'claim-a': 'NodeClassDrift' });
  });

  it('should let a terminationGracePeriod override pod blockers for drift only', () => {
    // Prepare
    const mk = (tgp: number | null) => {
      const p = pool({ budgets: [{ nodes: '1' }], consolidateAfter: null, terminationGracePeriod: tgp });
      const a = managed('a', { pool: p, type: c6g.xlarge });
      drift(p);
      return input(cluster({ pools: [p], nodes: [a], pods: [bound(a, { annotations: { [Annotation.doNotDisrupt]: 'true' } })] }), types);
    };

    // Act
    const withTgp = computeDisruption(mk(3600));
    const without = computeDisruption(mk(null));

    // Assess
    expect(withTgp.command?.method).toBe('drift');
    expect(without.command).toBeUndefined();
    expect(without.audit.find((r) => r.detail.method === 'drift')?.detail.why).toContain('do-not-disrupt');
  });

  it('should run emptiness before drift', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const driftedBusy = managed('drifted', { pool: p, type: c6g.xlarge, driftedCondition: { reason: 'AMIDrift', at: ago(600) } });
    const empty = managed('empty', { pool: p, type: c6g.xlarge });

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [driftedBusy, empty], pods: [bound(driftedBusy, { cpu: '3' })] }), types));

    // Assess
    expect(d.command?.method).toBe('emptiness');
    expect(claimNames(d.command?.candidates)).toEqual(['claim-empty']);
  });
});
