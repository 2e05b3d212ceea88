import { describe, expect, it } from 'vitest';
import { existingNode, fakeInstanceTypes, nodePool, pod, pods } from '../../fixtures/builders';
import { cheapestType, plan, scheduledCount } from './helpers';

describe('packing (docs/karpenter-reference.md §7, 1–11)', () => {
  it('should not schedule a pod asking for more than any instance type has', () => {
    // Prepare
    const huge = [pod({ cpu: '512' }), pod({ memory: '2Ti' })];
    // Act
    const result = plan({ pods: huge });
    // Assess
    expect(result.nodeClaims).toHaveLength(0);
    expect(result.unschedulable).toHaveLength(2);
    expect(result.unschedulable[0].reason).toMatch(/nodepool "default"/);
  });

  it('should launch one small-instance-type for a 100M memory pod', () => {
    const result = plan({ pods: [pod({ memory: '100M' })] });
    expect(result.nodeClaims).toHaveLength(1);
    expect(cheapestType(result)).toBe('small-instance-type');
  });

  it('should put five tiny pods on one small node', () => {
    const result = plan({ pods: pods(5, { memory: '10M' }) });
    expect(result.nodeClaims).toHaveLength(1);
    expect(cheapestType(result)).toBe('small-instance-type');
  });

  it('should need 20 default nodes for 40 pods of 1.8G', () => {
    const types = fakeInstanceTypes().filter((t) => t.name === 'default-instance-type');
    const result = plan({ pods: pods(40, { memory: '1.8G' }), types });
    expect(result.nodeClaims).toHaveLength(20);
  });

  it('should still need 20 nodes when 20 pods of 400M join 40 of 1.8G', () => {
    const types = fakeInstanceTypes().filter((t) => t.name === 'default-instance-type');
    const result = plan({ pods: [...pods(40, { memory: '1.8G' }), ...pods(20, { memory: '400M' })], types });
    expect(result.nodeClaims).toHaveLength(20);
    expect(scheduledCount(result)).toBe(60);
  });

  it('should need 5 nodes for 25 tiny pods when a node holds 5 pods', () => {
    const types = fakeInstanceTypes().filter((t) => t.name === 'default-instance-type');
    const result = plan({ pods: pods(25, { cpu: '10m' }), types });
    expect(result.nodeClaims).toHaveLength(5);
  });

  it('should size for pod overhead and the largest init container', () => {
    // A 1-CPU pod with 2 CPU of runtime overhead is a 3-CPU pod (requests are already effective).
    const withOverhead = plan({ pods: [pod({ cpu: '3' })] });
    expect(cheapestType(withOverhead)).toBe('default-instance-type');
    const tooBig = plan({ pods: [pod({ memory: '1Ti' })] });
    expect(tooBig.unschedulable).toHaveLength(1);
  });

  it('should put two pods using the same host port on two nodes', () => {
    const result = plan({ pods: pods(2, { cpu: '100m', hostPorts: [8080] }) });
    expect(result.nodeClaims).toHaveLength(2);
  });

  it('should reuse an in-flight node with room and open a claim when it is full or terminating', () => {
    const [def] = fakeInstanceTypes();
    const inflight = existingNode('inflight-1', { type: def, zone: 'test-zone-1', pool: 'default', inFlight: true, initialized: false });
    const fits = plan({ pods: [pod({ cpu: '1' })], existing: [inflight] });
    expect(fits.nodeClaims).toHaveLength(0);
    expect(fits.existingPlacements[0].node).toBe('inflight-1');
    const tooBig = plan({ pods: [pod({ cpu: '5' })], existing: [inflight], types: [...fakeInstanceTypes()] });
    expect(tooBig.existingPlacements).toHaveLength(0);
    const deleting = plan({ pods: [pod({ cpu: '1' })], existing: [{ ...inflight, markedForDeletion: true }] });
    expect(deleting.nodeClaims).toHaveLength(1);
  });

  it('should not schedule an arm64 pod when the pool allows only amd64', () => {
    const result = plan({
      pods: [pod({ nodeSelector: { 'kubernetes.io/arch': 'arm64' } })],
      pools: [nodePool({ requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] })],
    });
    expect(result.nodeClaims).toHaveLength(0);
    expect(result.unschedulable).toHaveLength(1);
  });
});
