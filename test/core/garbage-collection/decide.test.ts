import { describe, expect, it } from 'vitest';
import { decideGarbageCollection } from '../../../shared/core/garbage-collection';
import type { CloudInstance } from '../../../shared/core/ports';
import type { NodeClaim, NodeClaimCondition } from '../../../shared/core/model/karpenter';
import type { Node } from '../../../shared/core/model/kube';
import { epochMs } from '../../../shared/core/time';

const NOW = epochMs(Date.parse('2026-11-21T23:40:00Z'));
const SEC = 1000;
const MIN = 60 * SEC;
const ownedTags = { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default' };

function instance(id: string, ageMs: number, tags: Record<string, string> = ownedTags, state: CloudInstance['state'] = 'running'): CloudInstance {
  return {
    instanceId: id,
    providerID: `aws:///us-west-2a/${id}`,
    instanceType: 'm5.large',
    zone: 'us-west-2a',
    capacityType: 'on-demand',
    launchTime: epochMs(NOW - ageMs),
    state,
    tags,
  };
}

function claim(name: string, ageMs: number, opts: { instanceId?: string; conditions?: NodeClaimCondition[]; deleting?: boolean } = {}): NodeClaim {
  return {
    name,
    labels: {},
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
    status: { conditions: opts.conditions ?? [], ...(opts.instanceId ? { providerID: `aws:///us-west-2a/${opts.instanceId}` } : {}) },
    creationTimestamp: epochMs(NOW - ageMs),
    ...(opts.deleting ? { deletionTimestamp: epochMs(NOW - 1000) } : {}),
    finalizers: ['karpenter.sh/termination'],
  };
}

function node(name: string, instanceId: string, ready: boolean): Node {
  return {
    name,
    labels: {},
    annotations: {},
    taints: [],
    capacity: {},
    allocatable: {},
    providerID: `aws:///us-west-2a/${instanceId}`,
    unschedulable: false,
    ready,
    creationTimestamp: epochMs(NOW - 10 * MIN),
    finalizers: [],
  };
}

const launched: NodeClaimCondition = { type: 'Launched', status: 'True', lastTransitionTime: epochMs(NOW - 10 * MIN) };
const registered: NodeClaimCondition = { type: 'Registered', status: 'True', lastTransitionTime: epochMs(NOW - 9 * MIN) };

describe('decideGarbageCollection', () => {
  it('should terminate an owned instance with no claim once the 30 s grace period has passed, with its node', () => {
    // Prepare
    const input = {
      clusterName: 'demo',
      now: NOW,
      instances: [instance('i-00000000000000001', 31 * SEC), instance('i-00000000000000002', 10 * SEC)],
      nodeClaims: [],
      nodes: [node('ip-10-0-0-1', 'i-00000000000000001', true)],
    };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions).toEqual([
      {
        type: 'terminateOrphanInstance',
        instanceId: 'i-00000000000000001',
        providerID: 'aws:///us-west-2a/i-00000000000000001',
        nodeName: 'ip-10-0-0-1',
        ageMs: 31 * SEC,
      },
    ]);
  });

  it('should never terminate a claimed, foreign, node-group or already-terminating instance', () => {
    // Prepare
    const input = {
      clusterName: 'demo',
      now: NOW,
      instances: [
        instance('i-00000000000000001', 5 * MIN),
        instance('i-00000000000000002', 5 * MIN, { ...ownedTags, 'karpenter.sh/nodeclaim': 'default-b' }),
        instance('i-00000000000000003', 5 * MIN, { 'kubernetes.io/cluster/other': 'owned', 'karpenter.sh/nodepool': 'default' }),
        instance('i-00000000000000004', 5 * MIN, { 'kubernetes.io/cluster/demo': 'owned', 'eks:nodegroup-name': 'system' }),
        instance('i-00000000000000005', 5 * MIN, ownedTags, 'shutting-down'),
      ],
      nodeClaims: [claim('default-a', 6 * MIN, { instanceId: 'i-00000000000000001', conditions: [launched, registered] }), claim('default-b', 20 * SEC)],
      nodes: [],
    };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions).toEqual([]);
  });

  it('should remove a launched claim whose instance is gone and whose node is not ready', () => {
    // Prepare
    const input = {
      clusterName: 'demo',
      now: NOW,
      instances: [],
      nodeClaims: [
        claim('default-gone', 12 * MIN, { instanceId: 'i-00000000000000007', conditions: [launched, registered] }),
        claim('default-ready-node', 12 * MIN, { instanceId: 'i-00000000000000008', conditions: [launched, registered] }),
      ],
      nodes: [node('ip-10-0-0-7', 'i-00000000000000007', false), node('ip-10-0-0-8', 'i-00000000000000008', true)],
    };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions).toEqual([
      {
        type: 'removeClaimWithoutInstance',
        nodeClaim: 'default-gone',
        providerID: 'aws:///us-west-2a/i-00000000000000007',
        nodeName: 'ip-10-0-0-7',
        notFoundIsGone: false,
      },
    ]);
  });

  it("should trust EC2 not knowing a claim's instance id only once the registration timeout has passed since launch", () => {
    // Prepare: neither instance is listed; DescribeInstances may not know a new one for minutes after CreateFleet.
    const launchedAgo = (ms: number): NodeClaimCondition => ({ type: 'Launched', status: 'True', lastTransitionTime: epochMs(NOW - ms) });
    const input = {
      clusterName: 'demo',
      now: NOW,
      instances: [],
      nodeClaims: [
        claim('default-fresh', 41 * SEC, { instanceId: 'i-0000000000000000c', conditions: [launchedAgo(40 * SEC)] }),
        claim('default-old', 15 * MIN + SEC, { instanceId: 'i-0000000000000000d', conditions: [launchedAgo(15 * MIN), registered] }),
      ],
      nodes: [],
    };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions.map((a) => (a.type === 'removeClaimWithoutInstance' ? [a.nodeClaim, a.notFoundIsGone] : a.type))).toEqual([
      ['default-fresh', false],
      ['default-old', true],
    ]);
  });

  it('should terminate and delete a claim launched but not registered within 15 minutes, once the workflow had its turn', () => {
    // Prepare
    const launchedLongAgo: NodeClaimCondition = { type: 'Launched', status: 'True', lastTransitionTime: epochMs(NOW - 16 * MIN - SEC) };
    const input = {
      clusterName: 'demo',
      now: NOW,
      instances: [instance('i-00000000000000009', 16 * MIN)],
      nodeClaims: [claim('default-stuck', 17 * MIN, { instanceId: 'i-00000000000000009', conditions: [launchedLongAgo] })],
      nodes: [],
    };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions).toEqual([
      { type: 'registrationTimeout', nodeClaim: 'default-stuck', providerID: 'aws:///us-west-2a/i-00000000000000009', ageMs: 17 * MIN },
    ]);
  });

  it('should leave claims alone while their launch and registration are within their deadlines', () => {
    // Prepare
    const input = {
      clusterName: 'demo',
      now: NOW,
      instances: [instance('i-0000000000000000a', 14 * MIN)],
      nodeClaims: [
        claim('default-launching', 4 * MIN),
        claim('default-booting', 14 * MIN, { instanceId: 'i-0000000000000000a', conditions: [launched] }),
        // Created 20 min ago but launched 15.5 min ago: the launch workflow's own deadline goes first.
        claim('default-slow-launch', 20 * MIN, {
          instanceId: 'i-0000000000000000a',
          conditions: [{ type: 'Launched', status: 'True', lastTransitionTime: epochMs(NOW - 15.5 * MIN) }],
        }),
        claim('default-just-launched', 20 * SEC, {
          instanceId: 'i-0000000000000000b',
          conditions: [{ type: 'Launched', status: 'True', lastTransitionTime: epochMs(NOW - 10 * SEC) }],
        }),
        claim('default-deleting', 60 * MIN, { deleting: true }),
      ],
      nodes: [],
    };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions).toEqual([]);
  });

  it('should delete a claim that never launched within 5 minutes', () => {
    // Prepare
    const input = { clusterName: 'demo', now: NOW, instances: [], nodeClaims: [claim('default-never', 6 * MIN), claim('default-slow', 5.5 * MIN)], nodes: [] };
    // Act
    const actions = decideGarbageCollection(input);
    // Assess
    expect(actions).toEqual([{ type: 'launchTimeout', nodeClaim: 'default-never', ageMs: 6 * MIN }]);
  });

  it("should reclaim a stray instance carrying a claim's tag after its grace period, never the claim's own instance", () => {
    // Prepare: claim default-x runs on i-…b; i-…a carries default-x's tag too
    const tags = { ...ownedTags, 'karpenter.sh/nodeclaim': 'default-x' };
    const base = {
      clusterName: 'demo',
      now: NOW,
      nodeClaims: [claim('default-x', 20 * MIN, { instanceId: 'i-0000000000000000b', conditions: [launched, registered] })],
      nodes: [node('ip-10-0-0-2', 'i-0000000000000000b', true)],
    };
    // Act
    const early = decideGarbageCollection({
      ...base,
      instances: [instance('i-0000000000000000a', 10 * SEC, tags), instance('i-0000000000000000b', 20 * MIN, tags)],
    });
    const late = decideGarbageCollection({
      ...base,
      instances: [instance('i-0000000000000000a', 31 * SEC, tags), instance('i-0000000000000000b', 20 * MIN, tags)],
    });
    // Assess
    expect(early).toEqual([]);
    expect(late).toEqual([
      {
        type: 'terminateOrphanInstance',
        instanceId: 'i-0000000000000000a',
        providerID: 'aws:///us-west-2a/i-0000000000000000a',
        ageMs: 31 * SEC,
        nodeClaim: 'default-x',
      },
    ]);
  });
});
