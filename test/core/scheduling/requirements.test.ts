import { describe, expect, it } from 'vitest';
import type { NodeSelectorTerm } from '../../../shared/core/model/kube';
import { nodePool, pod } from '../../fixtures/builders';
import { plan } from './helpers';

const zoneTerm = (zone: string): NodeSelectorTerm => ({ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] });
const zoneOf = (p: ReturnType<typeof plan>) => p.nodeClaims[0]?.zone;

describe('requirements and preferences (docs/karpenter-reference.md §7, 12–22)', () => {
  it('should schedule only pods selecting the pool label value', () => {
    const pools = [nodePool({ labels: { team: 'a' } })];
    expect(plan({ pods: [pod({ nodeSelector: { team: 'b' } })], pools }).unschedulable).toHaveLength(1);
    expect(plan({ pods: [pod({ nodeSelector: { team: 'a' } })], pools }).nodeClaims).toHaveLength(1);
  });

  it('should treat a key the pool does not define by operator', () => {
    const withOp = (operator: 'In' | 'NotIn' | 'DoesNotExist' | 'Exists') =>
      plan({
        pods: [
          pod({
            affinity: {
              nodeAffinity: {
                required: [{ matchExpressions: [{ key: 'custom', operator, values: operator === 'In' || operator === 'NotIn' ? ['x'] : undefined }] }],
              },
            },
          }),
        ],
      });
    expect(withOp('In').nodeClaims).toHaveLength(0);
    expect(withOp('NotIn').nodeClaims).toHaveLength(1);
    expect(withOp('DoesNotExist').nodeClaims).toHaveLength(1);
    expect(withOp('Exists').nodeClaims).toHaveLength(0);
  });

  it('should fall through invalid required OR-terms to the first satisfiable one', () => {
    const p = pod({ affinity: { nodeAffinity: { required: [zoneTerm('invalid'), zoneTerm('invalid2'), zoneTerm('test-zone-1'), zoneTerm('test-zone-2')] } } });
    expect(zoneOf(plan({ pods: [p] }))).toBe('test-zone-1');
  });

  it('should never relax the last required term', () => {
    const p = pod({ affinity: { nodeAffinity: { required: [zoneTerm('invalid')] } } });
    expect(plan({ pods: [p] }).unschedulable).toHaveLength(1);
  });

  it('should schedule when every preferred term is impossible', () => {
    const p = pod({
      affinity: {
        nodeAffinity: {
          preferred: [
            { weight: 1, preference: zoneTerm('invalid') },
            { weight: 2, preference: zoneTerm('nope') },
          ],
        },
      },
    });
    expect(plan({ pods: [p] }).nodeClaims).toHaveLength(1);
  });

  it('should honour preferred weights in order', () => {
    const pools = [nodePool({ requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-1', 'test-zone-2'] }] })];
    const p = pod({
      affinity: {
        nodeAffinity: {
          preferred: [
            { weight: 1, preference: zoneTerm('test-zone-1') },
            { weight: 100, preference: zoneTerm('invalid') },
            { weight: 50, preference: zoneTerm('test-zone-2') },
          ],
        },
      },
    });
    expect(zoneOf(plan({ pods: [p], pools }))).toBe('test-zone-2');
  });

  it('should combine a preferred NotIn with a required In on the same zone', () => {
    const p = pod({
      affinity: {
        nodeAffinity: {
          required: [zoneTerm('test-zone-3')],
          preferred: [{ weight: 1, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['test-zone-3'] }] } }],
        },
      },
    });
    expect(zoneOf(plan({ pods: [p] }))).toBe('test-zone-3');
  });

  it('should use a PreferNoSchedule pool only after relaxing, and prefer the untainted pool', () => {
    const tainted = nodePool({ name: 'tainted', taints: [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }] });
    const clean = nodePool({ name: 'clean' });
    const onlyTainted = plan({ pods: [pod()], pools: [tainted] });
    expect(onlyTainted.nodeClaims[0]?.nodePool).toBe('tainted');
    const both = plan({ pods: [pod()], pools: [tainted, clean] });
    expect(both.nodeClaims[0].nodePool).toBe('clean');
  });

  it('should choose the heaviest pool unless the pod selects another', () => {
    const pools = [nodePool({ name: 'none' }), nodePool({ name: 'twenty', weight: 20 }), nodePool({ name: 'hundred', weight: 100 })];
    expect(plan({ pods: [pod()], pools }).nodeClaims[0].nodePool).toBe('hundred');
    expect(plan({ pods: [pod({ nodeSelector: { 'karpenter.sh/nodepool': 'none' } })], pools }).nodeClaims[0].nodePool).toBe('none');
  });

  it('should require tolerations for pool taints but not for startup taints', () => {
    const taint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };
    expect(plan({ pods: [pod()], pools: [nodePool({ taints: [taint] })] }).unschedulable[0].reason).toMatch(
      /did not tolerate taint nvidia.com\/gpu=true:NoSchedule/,
    );
    const startup = plan({ pods: [pod()], pools: [nodePool({ startupTaints: [taint] })] });
    expect(startup.nodeClaims).toHaveLength(1);
    expect(startup.nodeClaims[0].startupTaints).toEqual([taint]);
    const tolerated = plan({ pods: [pod({ tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }] })], pools: [nodePool({ taints: [taint] })] });
    expect(tolerated.nodeClaims).toHaveLength(1);
  });

  it('should enforce minValues strictly, or relax and annotate under BestEffort', () => {
    const pools = [nodePool({ requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: 3 }] })];
    const big = pod({ cpu: '10' });
    expect(plan({ pods: [big], pools }).unschedulable).toHaveLength(1);
    const best = plan({ pods: [big], pools, options: { minValuesPolicy: 'BestEffort' } });
    expect(best.nodeClaims).toHaveLength(1);
    expect(best.nodeClaims[0].minValuesRelaxed).toBe(true);
  });
});
