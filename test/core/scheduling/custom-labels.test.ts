/**
 * Node labels for custom keys come from every requirement that resolves to a value, as Karpenter's
 * NodeClaimTemplate resolves them (Requirement.Any): In → one of its values, NotIn / Exists / Gt / Lt → an
 * integer within bounds that is not excluded, DoesNotExist → no label.
 */
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement } from '../../../shared/core/model/kube';
import { nodePool, pod } from '../../fixtures/builders';
import { plan } from './helpers';

const labelsFor = (requirements: NodeSelectorRequirement[], podReqs: NodeSelectorRequirement[] = []) => {
  const p = plan({
    pods: [pod(podReqs.length ? { affinity: { nodeAffinity: { required: [{ matchExpressions: podReqs }] } } } : {})],
    pools: [nodePool({ requirements })],
  });
  expect(p.nodeClaims).toHaveLength(1);
  return p.nodeClaims[0].labels;
};

describe('node labels from NodePool requirements', () => {
  it('should label the node with the value of a single-valued In requirement', () => {
    expect(labelsFor([{ key: 'team', operator: 'In', values: ['blue'] }])).toMatchObject({ team: 'blue' });
  });

  it("should label the node with one of the values of a multi-valued In requirement, and the pod's choice when it narrows it", () => {
    expect(['a', 'b']).toContain(labelsFor([{ key: 'team', operator: 'In', values: ['b', 'a'] }]).team);
    expect(labelsFor([{ key: 'team', operator: 'In', values: ['a', 'b'] }], [{ key: 'team', operator: 'In', values: ['b'] }]).team).toBe('b');
  });

  it('should give Exists, NotIn, Gt and Lt requirements a value within their bounds and not excluded', () => {
    expect(labelsFor([{ key: 'slot', operator: 'Exists' }]).slot).toMatch(/^\d+$/);
    const notIn = labelsFor([{ key: 'slot', operator: 'NotIn', values: ['0', '1'] }]).slot;
    expect(notIn).toMatch(/^\d+$/);
    expect(['0', '1']).not.toContain(notIn);
    expect(Number(labelsFor([{ key: 'gen', operator: 'Gt', values: ['5'] }]).gen)).toBeGreaterThan(5);
    expect(Number(labelsFor([{ key: 'gen', operator: 'Lt', values: ['3'] }]).gen)).toBeLessThan(3);
    const both = labelsFor([
      { key: 'gen', operator: 'Gt', values: ['5'] },
      { key: 'gen', operator: 'Lt', values: ['8'] },
      { key: 'gen', operator: 'NotIn', values: ['6'] },
    ]).gen;
    expect(both).toBe('7');
  });

  it('should not label the node for DoesNotExist, nor set the hostname or restricted keys from requirements', () => {
    const labels = labelsFor([{ key: 'legacy', operator: 'DoesNotExist' }]);
    expect(labels).not.toHaveProperty('legacy');
    expect(labels).not.toHaveProperty('kubernetes.io/hostname');
  });
});
