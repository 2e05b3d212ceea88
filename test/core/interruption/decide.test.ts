import { describe, expect, it } from 'vitest';
import {
  buildOwnershipIndex,
  decideInterruption,
  interruptionExecutionName,
  parseInterruptionMessage,
  type OwnedInstance,
} from '../../../shared/core/interruption';
import type { CloudInstance } from '../../../shared/core/ports';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { eventBody } from '../../fixtures/events';
import { epochMs } from '../../../shared/core/time';

const OWNED = 'i-0b2c3d4e5f6a7b8c9';
const owned: OwnedInstance = { instanceId: OWNED, nodeClaim: 'default-abcde', instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'spot' };
const lookup = (id: string) => (id === OWNED ? owned : undefined);

function instance(id: string, tags: Record<string, string>): CloudInstance {
  return {
    instanceId: id,
    providerID: `aws:///us-west-2b/${id}`,
    instanceType: 'c5.xlarge',
    zone: 'us-west-2b',
    capacityType: 'spot',
    launchTime: epochMs(0),
    state: 'running',
    tags,
  };
}

function claim(name: string, providerID?: string): NodeClaim {
  return {
    name,
    labels: { 'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-west-2a', 'karpenter.sh/capacity-type': 'on-demand' },
    annotations: {},
    nodePool: 'default',
    spec: {
      taints: [],
      startupTaints: [],
      requirements: [],
      resources: { requests: {} },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: null,
      terminationGracePeriod: null,
    },
    status: { conditions: [], ...(providerID ? { providerID, nodeName: `node-${name}` } : {}) },
    creationTimestamp: epochMs(0),
    finalizers: [],
  };
}

describe('decideInterruption', () => {
  it('should cordon and drain an owned spot instance, mark its offering unavailable for 3 minutes and ask for replacements', () => {
    // Prepare
    const message = parseInterruptionMessage(eventBody('spot-interruption-warning'));
    // Act
    const actions = decideInterruption(message, lookup);
    // Assess
    expect(actions).toEqual([
      {
        type: 'cordonAndDrain',
        instanceId: OWNED,
        nodeClaim: 'default-abcde',
        executionName: `interruption-${OWNED}-1e5527d7-bb36-4607-3370-4164db56a40e`,
        input: { nodeClaimName: 'default-abcde', reason: 'SpotInterruption' },
        markUnavailable: { offering: { instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'spot' }, ttlSeconds: 180, reason: 'SpotInterruption' },
        triggerProvisioning: true,
      },
    ]);
  });

  it('should drain a stopping instance through its claim without marking its offering', () => {
    // Prepare
    const message = parseInterruptionMessage(eventBody('instance-state-change-stopping'));
    // Act
    const [action] = decideInterruption(message, lookup);
    // Assess
    expect(action).toMatchObject({ type: 'cordonAndDrain', input: { nodeClaimName: 'default-abcde', reason: 'InstanceStateChange:stopping' } });
    expect(action).not.toHaveProperty('markUnavailable');
  });

  it('should leave an owned instance without a claim to garbage collection', () => {
    // Prepare
    const message = parseInterruptionMessage(eventBody('spot-interruption-warning'));
    // Act
    const actions = decideInterruption(message, () => ({ instanceId: OWNED, instanceType: 'm5.large', zone: 'us-west-2a' }));
    // Assess
    expect(actions).toEqual([{ type: 'drop', instanceId: OWNED, reason: expect.stringContaining('garbage collection') }]);
  });

  it('should only record a rebalance recommendation', () => {
    // Act
    const actions = decideInterruption(parseInterruptionMessage(eventBody('rebalance-recommendation')), lookup);
    // Assess
    expect(actions).toEqual([{ type: 'record', instanceId: OWNED, nodeClaim: 'default-abcde', reason: 'RebalanceRecommendation' }]);
  });

  it('should drop an instance that is not owned and never act on it', () => {
    // Act
    const actions = decideInterruption(parseInterruptionMessage(eventBody('spot-interruption-warning', { instanceId: 'i-0ffffffffffffffff' })), lookup);
    // Assess
    expect(actions).toEqual([{ type: 'drop', instanceId: 'i-0ffffffffffffffff', reason: 'instance is not owned by this cluster' }]);
  });

  it('should act on the owned instances of a scheduled change and drop the others', () => {
    // Act
    const actions = decideInterruption(parseInterruptionMessage(eventBody('health-scheduled-change')), lookup);
    // Assess
    expect(actions.map((a) => [a.type, a.instanceId])).toEqual([
      ['cordonAndDrain', OWNED],
      ['drop', 'i-0a1b2c3d4e5f60718'],
    ]);
  });

  it('should mark the reserved offering of a capacity reservation interruption', () => {
    // Act
    const [action] = decideInterruption(parseInterruptionMessage(eventBody('capacity-reservation-interruption')), lookup);
    // Assess
    expect(action).toMatchObject({ type: 'cordonAndDrain', markUnavailable: { offering: { capacityType: 'reserved' } } });
  });

  it('should drop unknown events', () => {
    // Act
    const actions = decideInterruption(parseInterruptionMessage(eventBody('autoscaling-launch-successful')), lookup);
    // Assess
    expect(actions).toEqual([{ type: 'drop', reason: expect.stringContaining('unknown event') }]);
  });
});

describe('interruptionExecutionName', () => {
  it('should give the same valid name for the same instance and event, and different names otherwise', () => {
    // Act
    const a = interruptionExecutionName(OWNED, 'e1');
    const b = interruptionExecutionName(OWNED, 'e1');
    const c = interruptionExecutionName(OWNED, 'e2');
    const long1 = interruptionExecutionName(OWNED, `${'x'.repeat(100)}1`);
    const long2 = interruptionExecutionName(OWNED, `${'x'.repeat(100)}2`);
    const odd = interruptionExecutionName(OWNED, 'a:b/c');
    // Assess
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(long1).not.toBe(long2);
    for (const name of [a, c, long1, long2, odd]) {
      expect(name.length).toBeLessThanOrEqual(80);
      expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });
});

describe('a shutting-down notice for a node nodewright is already taking away', () => {
  it('should be dropped when the node carries karpenter.sh/disrupted (its disruption terminated the instance before deleting the claim), and acted on otherwise', () => {
    // Prepare: the claim's instance is the one the stopping notice names
    const message = parseInterruptionMessage(eventBody('instance-state-change-stopping'));
    const instances = [instance(OWNED, { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default' })];
    const claims = [claim('default-abcde', `aws:///us-west-2a/${OWNED}`)];
    const taintedNode = { name: 'node-default-abcde', taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }] };
    // Act
    const during = decideInterruption(message, (id) => buildOwnershipIndex('demo', instances, claims, [taintedNode]).get(id));
    const untainted = decideInterruption(message, (id) => buildOwnershipIndex('demo', instances, claims, [{ ...taintedNode, taints: [] }]).get(id));
    const deleting = decideInterruption(message, (id) =>
      buildOwnershipIndex('demo', instances, [{ ...claims[0], deletionTimestamp: epochMs(1000) }], []).get(id),
    );
    // Assess
    expect(during).toEqual([{ type: 'drop', instanceId: OWNED, reason: expect.stringContaining('already being disrupted') }]);
    expect(deleting[0].type).toBe('drop');
    expect(untainted[0]).toMatchObject({ type: 'cordonAndDrain', nodeClaim: 'default-abcde' });
  });

  it('should be dropped when the claim says InstanceTerminating (its termination deleted the instance and is finalizing it; the node may be gone)', () => {
    // Prepare
    const message = parseInterruptionMessage(eventBody('instance-state-change-stopping'));
    const instances = [instance(OWNED, { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default' })];
    const c = claim('default-abcde', `aws:///us-west-2a/${OWNED}`);
    const terminating = {
      ...c,
      status: { ...c.status, conditions: [{ type: 'InstanceTerminating', status: 'True' as const, lastTransitionTime: epochMs(1000) }] },
    };
    // Act
    const actions = decideInterruption(message, (id) => buildOwnershipIndex('demo', instances, [terminating]).get(id));
    // Assess
    expect(actions).toEqual([{ type: 'drop', instanceId: OWNED, reason: expect.stringContaining('already being disrupted') }]);
  });

  it('should still act on a spot interruption warning for a node being consolidated (the reclaim comes sooner than the drain)', () => {
    // Prepare
    const message = parseInterruptionMessage(eventBody('spot-interruption-warning'));
    // Act
    const [action] = decideInterruption(message, () => ({ ...owned, disrupting: true }));
    // Assess
    expect(action.type).toBe('cordonAndDrain');
  });
});

describe('buildOwnershipIndex', () => {
  it('should own tagged nodewright instances and claimed instances, but not node-group or foreign ones', () => {
    // Prepare
    const instances = [
      instance('i-00000000000000001', { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': 'default-x' }),
      instance('i-00000000000000002', { 'kubernetes.io/cluster/demo': 'owned', 'eks:nodegroup-name': 'system' }),
      instance('i-00000000000000003', { 'kubernetes.io/cluster/other': 'owned', 'karpenter.sh/nodepool': 'default' }),
    ];
    const claims = [claim('default-x'), claim('default-y', 'aws:///us-west-2a/i-00000000000000004'), claim('default-z')];
    // Act
    const index = buildOwnershipIndex('demo', instances, claims);
    // Assess
    expect([...index.keys()].sort()).toEqual(['i-00000000000000001', 'i-00000000000000004']);
    expect(index.get('i-00000000000000001')).toMatchObject({ nodeClaim: 'default-x', instanceType: 'c5.xlarge', zone: 'us-west-2b', capacityType: 'spot' });
    expect(index.get('i-00000000000000004')).toMatchObject({
      nodeClaim: 'default-y',
      nodeName: 'node-default-y',
      instanceType: 'm5.large',
      capacityType: 'on-demand',
    });
  });
});

describe('buildOwnershipIndex maps instances to claims by providerID', () => {
  const tagged = (claimName: string) => ({ 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': claimName });

  it("should give a stray instance carrying a claim's tag no claim when the claim's providerID names another instance", () => {
    // Prepare
    const instances = [instance('i-0000000000000000a', tagged('default-x')), instance('i-0000000000000000b', tagged('default-x'))];
    const claims = [claim('default-x', 'aws:///us-west-2a/i-0000000000000000b')];
    // Act
    const index = buildOwnershipIndex('demo', instances, claims);
    // Assess
    expect(index.get('i-0000000000000000a')).toBeDefined();
    expect(index.get('i-0000000000000000a')?.nodeClaim).toBeUndefined();
    expect(index.get('i-0000000000000000b')?.nodeClaim).toBe('default-x');
  });

  it('should trust the tag only for a launching claim (no providerID yet) with exactly one tagged instance', () => {
    // Prepare
    const one = [instance('i-0000000000000000a', tagged('default-x'))];
    const two = [instance('i-0000000000000000a', tagged('default-x')), instance('i-0000000000000000b', tagged('default-x'))];
    // Act
    const launching = buildOwnershipIndex('demo', one, [claim('default-x')]);
    const ambiguous = buildOwnershipIndex('demo', two, [claim('default-x')]);
    const noClaim = buildOwnershipIndex('demo', one, []);
    // Assess
    expect(launching.get('i-0000000000000000a')?.nodeClaim).toBe('default-x');
    expect(ambiguous.get('i-0000000000000000a')?.nodeClaim).toBeUndefined();
    expect(ambiguous.get('i-0000000000000000b')?.nodeClaim).toBeUndefined();
    expect(noClaim.get('i-0000000000000000a')?.nodeClaim).toBeUndefined();
  });
});
