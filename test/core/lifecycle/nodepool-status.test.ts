/**
 * NodePool status (issue #13 item 2): what Karpenter's nodepool.counter / validation / readiness controllers
 * write, so `kubectl get nodepools` shows NODES and READY.
 */
import { describe, expect, it } from 'vitest';
import { desiredNodePoolStatus, reconcileNodePoolStatuses } from '../../../shared/core/lifecycle/nodepool-status';
import { fakes, node, nodeClaim } from '../../fakes/lifecycle';

describe('reconcileNodePoolStatuses', () => {
  it("should count the pool's NodeClaims and their capacity, and report Ready", async () => {
    // Prepare: one registered claim (its node's capacity counts) and one launched, not registered (the claim's).
    const f = fakes();
    f.cluster.claims.set('default-a', {
      ...nodeClaim('default-a', { nodeName: 'node-a' }),
      status: { conditions: [], nodeName: 'node-a', capacity: { cpu: 1000 } },
    });
    f.cluster.nodes.set('node-a', node('node-a', { capacity: { cpu: 2000, memory: 8 * 2 ** 30, pods: 29 } }));
    f.cluster.claims.set('default-b', { ...nodeClaim('default-b'), status: { conditions: [], capacity: { cpu: 4000, memory: 16 * 2 ** 30, pods: 58 } } });
    f.cluster.claims.set('other-c', nodeClaim('other-c', { nodePool: 'other' }));
    // Act
    const written = await reconcileNodePoolStatuses(f, await f.cluster.snapshot());
    // Assess
    expect(written).toEqual(['default']);
    const status = f.cluster.nodePools[0].observedStatus!;
    expect(status.nodes).toBe(2);
    expect(status.resources).toEqual({ cpu: '6', memory: '24Gi', pods: '87', 'ephemeral-storage': '0', nodes: '2' });
    expect(status.conditions.map((c) => [c.type, c.status])).toEqual([
      ['ValidationSucceeded', 'True'],
      ['NodeClassReady', 'True'],
      ['Ready', 'True'],
    ]);
  });

  it('should not write a status that did not change', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-a', nodeClaim('default-a'));
    await reconcileNodePoolStatuses(f, await f.cluster.snapshot());
    f.cluster.nodePoolStatusWrites = [];
    // Act
    const written = await reconcileNodePoolStatuses(f, await f.cluster.snapshot());
    // Assess
    expect(written).toEqual([]);
    expect(f.cluster.nodePoolStatusWrites).toEqual([]);
  });

  it('should report NodeClassNotFound and not Ready when the EC2NodeClass is missing', async () => {
    // Prepare
    const f = fakes();
    f.cluster.nodeClasses = [];
    // Act
    const status = desiredNodePoolStatus(f.cluster.nodePools[0], await f.cluster.snapshot());
    // Assess
    expect(status.conditions).toEqual([
      { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '' },
      { type: 'NodeClassReady', status: 'False', reason: 'NodeClassNotFound', message: 'NodeClass not found on cluster' },
      { type: 'Ready', status: 'False', reason: 'UnhealthyDependents', message: 'NodeClassReady=False' },
    ]);
  });

  it('should mark a NodePool the functions cannot read ValidationSucceeded=False with the reason, and say so in a Warning event', async () => {
    // Prepare
    const f = fakes();
    f.cluster.nodePools.push({ ...f.cluster.nodePools[0], name: 'bad' });
    const snapshot = {
      ...(await f.cluster.snapshot()),
      invalid: [{ kind: 'NodePool', name: 'bad', reason: 'spec.template.spec.requirements[0].operator: Invalid enum value "Inn"' }],
    };
    snapshot.nodePools = snapshot.nodePools.filter((p) => p.name !== 'bad');
    // Act
    await reconcileNodePoolStatuses(f, snapshot);
    // Assess
    const bad = f.cluster.nodePools.find((p) => p.name === 'bad')!;
    expect(bad.observedStatus?.conditions).toEqual([
      {
        type: 'ValidationSucceeded',
        status: 'False',
        reason: 'NodePoolValidationFailed',
        message: 'spec.template.spec.requirements[0].operator: Invalid enum value "Inn"',
      },
      { type: 'Ready', status: 'False', reason: 'UnhealthyDependents', message: 'ValidationSucceeded=False' },
    ]);
    expect(bad.ready).toBe(false);
    expect(f.cluster.events).toEqual(['NodePool/bad NodePoolValidationFailed: spec.template.spec.requirements[0].operator: Invalid enum value "Inn"']);
  });
});
