import { describe, expect, it } from 'vitest';
import { computeDisruption, replacementClaims, toExecutions } from '../../../shared/core/disruption';
import { NodeClassHashVersion, nodeClassHash, NodePoolHashVersion, nodePoolHash } from '../../../shared/core/model/hash';
import type { EC2NodeClass } from '../../../shared/core/model/karpenter';
import { parseDisruptInput, parseTerminateInput } from '../../../shared/core/lifecycle/manual-input';
import { Annotation, Label } from '../../../shared/core/model/labels';
import { ago, bound, c6g, cluster, HOUR, input, managed, NOW, pool } from './builders';

describe('executions for commands', () => {
  it('should turn a replace into one disrupt execution the disrupt machine accepts, with stable names', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [c6g.large, c6g.x2large])).command!;

    // Act
    const first = toExecutions(cmd, NOW);
    const again = toExecutions(cmd, NOW);

    // Assess
    expect(first).toEqual(again);
    expect(first).toHaveLength(1);
    const parsed = parseDisruptInput(first[0].input);
    expect(parsed.candidates).toEqual([{ nodeClaimName: 'claim-a', nodeName: 'a' }]);
    expect(parsed.replacements).toHaveLength(1);
    const r = parsed.replacements[0] as unknown as {
      nodePool: string;
      annotations: Record<string, string>;
      spec: { requirements: { key: string; values?: string[] }[] };
    };
    expect(r.nodePool).toBe('default');
    expect(r.annotations[Annotation.nodePoolHash]).toBeDefined();
    expect(r.spec.requirements.find((x) => x.key === Label.instanceType)?.values).toEqual(['c6g.large']);
  });

  it('should stamp the nodepool and ec2nodeclass hashes of the replacement pool on replacement claims', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [c6g.large, c6g.x2large])).command!;
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

    // Act
    const [claim] = replacementClaims(cmd, NOW, { nodePools: [p], nodeClasses: [cls] });

    // Assess
    expect(claim.annotations).toMatchObject({
      [Annotation.nodePoolHash]: nodePoolHash(p),
      [Annotation.nodePoolHashVersion]: NodePoolHashVersion,
      [Annotation.nodeClassHash]: nodeClassHash(cls),
      [Annotation.nodeClassHashVersion]: NodeClassHashVersion,
    });
  });

  it('should turn an expiration into terminate executions (forceful, no pre-spin)', () => {
    // Prepare
    const p = pool({ expireAfter: HOUR });
    const a = managed('a', { pool: p, type: c6g.large, createdAt: ago(2 * HOUR) });
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a] }), [c6g.large]));

    // Act
    const ex = d.expirations.flatMap((c) => toExecutions(c, NOW));

    // Assess
    expect(ex).toHaveLength(1);
    expect(ex[0].machine).toBe('terminate');
    expect(parseTerminateInput(ex[0].input)).toMatchObject({ nodeClaimName: 'claim-a', reason: 'Expired' });
  });
});
