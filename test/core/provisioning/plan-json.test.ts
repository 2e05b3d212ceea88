/** The `nodewright plan -o json` contract of issue #2 and the NodeClaim written for a planned claim. */
import { describe, expect, it } from 'vitest';
import type { Affinity } from '../../../shared/core/model/kube';
import { Annotation, Finalizer, Label } from '../../../shared/core/model/labels';
import { plannedClaimToNodeClaim } from '../../../shared/core/provisioning/from-snapshot';
import { nodeClaimToKube } from '../../../shared/core/model/manifests/nodeclaim';
import { planToJson } from '../../../shared/core/provisioning/plan-json';
import { NodePoolHashVersion } from '../../../shared/core/model/hash';
import { existingNode, fakeInstanceTypes, nodePool, pod, pods } from '../../fixtures/builders';
import { plan } from '../scheduling/helpers';
import { epochMs } from '../../../shared/core/time';

const small = fakeInstanceTypes().find((t) => t.name === 'small-instance-type')!; // 2 CPU, 2Gi: $0.40 on-demand, $0.28 spot
const def = fakeInstanceTypes().find((t) => t.name === 'default-instance-type')!;
const antiSelf: Affinity = { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: { app: 'web' } } }] } };
const onDemandOnly = nodePool({ requirements: [{ key: Label.capacityType, operator: 'In', values: ['on-demand'] }] });

describe('planToJson (the -o json contract)', () => {
  it('should have exactly the contract keys, as plain JSON', () => {
    // Prepare
    const node = existingNode('ip-10-0-0-1', { type: def, zone: 'test-zone-1', pods: [pod({ name: 'already-there', cpu: '3' })] });
    const result = plan({
      pods: [pod({ name: 'web-1', cpu: '500m' }), pod({ name: 'web-2', cpu: '1500m' }), pod({ name: 'huge', cpu: '512' })],
      existing: [node],
    });
    // Act
    const json = JSON.parse(JSON.stringify(planToJson(result, 3, [node])));
    // Assess
    expect(Object.keys(json).sort()).toEqual(['existingNodes', 'nodeClaims', 'summary', 'unschedulable']);
    expect(json.nodeClaims).toHaveLength(1);
    const claim = json.nodeClaims[0];
    for (const k of ['nodePool', 'instanceTypes', 'capacityType', 'zone', 'requirements', 'pods', 'resources', 'pricePerHour']) expect(claim).toHaveProperty(k);
    expect(claim.nodePool).toBe('default');
    expect(claim.instanceTypes[0]).toBe('small-instance-type');
    expect(typeof claim.pricePerHour).toBe('number');
    expect(
      claim.requirements.every((r: Record<string, unknown>) => typeof r.key === 'string' && typeof r.operator === 'string' && Array.isArray(r.values)),
    ).toBe(true);
    expect(claim.requirements).toContainEqual({ key: Label.instanceType, operator: 'In', values: claim.instanceTypes });
    expect(claim.resources).toEqual({ cpu: '1500m', pods: '1' });
    expect(claim.pods).toEqual(['default/web-2']);
    expect(json.existingNodes).toEqual([{ name: 'ip-10-0-0-1', pods: ['default/web-1'] }]);
    expect(json.unschedulable).toHaveLength(1);
    expect(Object.keys(json.unschedulable[0]).sort()).toEqual(['pod', 'reason']);
    expect(json.unschedulable[0].pod).toBe('default/huge');
    expect(json.unschedulable[0].reason).toMatch(/nodepool "default"/);
    expect(json.summary).toMatchObject({ pods: 3, scheduled: 2, nodeClaims: 1, pricePerHour: claim.pricePerHour });
  });

  it("should sum the claims' prices in summary.pricePerHour", () => {
    // Prepare: three pods that each need their own node, on-demand only.
    const result = plan({ pods: pods(3, { cpu: '1', labels: { app: 'web' }, affinity: antiSelf }), pools: [onDemandOnly], types: [small, def] });
    // Act
    const json = planToJson(result, 3);
    // Assess
    expect(json.nodeClaims.map((c) => c.pricePerHour)).toEqual([0.4, 0.4, 0.4]);
    expect(json.summary.pricePerHour).toBeCloseTo(1.2, 9);
    expect(json.summary).toMatchObject({ pods: 3, scheduled: 3, nodeClaims: 3 });
  });

  it('should list instance types cheapest first', () => {
    // Act
    const json = planToJson(plan({ pods: [pod({ cpu: '1' })], pools: [onDemandOnly] }), 1);
    // Assess: small ($0.40) before default ($0.80); arm ($14.40) last; the GPU type is left out.
    expect(json.nodeClaims[0].instanceTypes).toEqual(['small-instance-type', 'default-instance-type', 'single-pod-instance-type', 'arm-instance-type']);
  });

  it('should ask for spot when the pool allows it and a spot offering exists', () => {
    // Act
    const json = planToJson(plan({ pods: [pod({ cpu: '1' })], types: [small] }), 1);
    // Assess
    expect(json.nodeClaims[0].capacityType).toBe('spot');
    expect(json.nodeClaims[0].pricePerHour).toBeCloseTo(0.28, 9);
  });

  it('should ask for on-demand when the pool excludes spot or no spot offering fits', () => {
    // Act: on-demand-only pool; and a pod pinned to test-zone-3, which has no spot offering.
    const onDemand = planToJson(plan({ pods: [pod({ cpu: '1' })], types: [small], pools: [onDemandOnly] }), 1);
    const zone3 = planToJson(plan({ pods: [pod({ cpu: '1', nodeSelector: { [Label.zone]: 'test-zone-3' } })], types: [small] }), 1);
    // Assess
    expect(onDemand.nodeClaims[0]).toMatchObject({ capacityType: 'on-demand', pricePerHour: 0.4 });
    expect(zone3.nodeClaims[0]).toMatchObject({ capacityType: 'on-demand', zone: 'test-zone-3', pricePerHour: 0.4 });
  });

  it('should set zone only when the claim is pinned to one zone', () => {
    // Act
    const free = planToJson(plan({ pods: [pod({ cpu: '1' })] }), 1);
    const pinned = planToJson(plan({ pods: [pod({ cpu: '1', nodeSelector: { [Label.zone]: 'test-zone-2' } })] }), 1);
    // Assess
    expect(free.nodeClaims[0].zone).toBeNull();
    expect(pinned.nodeClaims[0].zone).toBe('test-zone-2');
  });

  it('should report pods Karpenter ignores as unschedulable with the reason', () => {
    // Prepare
    const affinity: Affinity = { nodeAffinity: { required: [{ matchExpressions: [{ key: Label.nodePool, operator: 'DoesNotExist' }] }] } };
    // Act
    const json = planToJson(plan({ pods: [pod({ name: 'unmanaged', affinity })] }), 1);
    // Assess
    expect(json.unschedulable).toEqual([{ pod: 'default/unmanaged', reason: 'pod requires karpenter.sh/nodepool DoesNotExist' }]);
    expect(json.summary).toMatchObject({ pods: 1, scheduled: 0, nodeClaims: 0, pricePerHour: 0 });
  });
});

describe('plannedClaimToNodeClaim', () => {
  it('should write the claim as Karpenter would: pool label, requirements, requests, hash, finalizer', () => {
    // Prepare
    const [claim] = plan({ pods: [pod({ cpu: '1', memory: '1Gi' })], pools: [onDemandOnly] }).nodeClaims;
    // Act
    const nc = plannedClaimToNodeClaim(claim, 'default-abcde', epochMs(1_700_000_000_500), { ...onDemandOnly, hash: '1234567890', uid: 'pool-uid' });
    // Assess
    expect(nc.name).toBe('default-abcde');
    expect(nc.nodePool).toBe('default');
    expect(nc.labels[Label.nodePool]).toBe('default');
    expect(nc.annotations).toEqual({
      [Annotation.nodePoolHash]: '1234567890',
      [Annotation.nodePoolHashVersion]: NodePoolHashVersion,
      [Annotation.plannedPods]: claim.pods.map((p) => `${p.namespace}/${p.name}/${p.uid}`).join(','),
    });
    expect(nc.spec.requirements).toEqual(claim.requirements);
    expect(nc.spec.requirements.some((r) => r.key === Label.hostname)).toBe(false);
    expect(nc.spec.resources.requests).toEqual(claim.requests);
    expect(nc.spec.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    expect(nc.spec.expireAfter).toBe(720 * 3600);
    expect(nc.creationTimestamp).toBe(1_700_000_000_000);
    expect(nc.finalizers).toEqual([Finalizer.termination]);
    expect(nc.nodePoolUid).toBe('pool-uid');
    expect(nodeClaimToKube(nc).metadata).toMatchObject({
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: 'default', uid: 'pool-uid', blockOwnerDeletion: true }],
    });
    expect(nc.status.conditions).toEqual([]);
  });

  it("should copy the pool template's annotations onto the claim, the nodepool hash annotations winning", () => {
    // Prepare: Karpenter's NodeClaim template is the pool template's metadata plus the hash annotations
    const pool = nodePool({ requirements: [{ key: Label.capacityType, operator: 'In', values: ['on-demand'] }] });
    pool.template.annotations = { [Annotation.doNotDisrupt]: 'true', 'example.com/owner': 'team-a', [Annotation.nodePoolHash]: 'user-set' };
    pool.template.labels = { team: 'a' };
    const [claim] = plan({ pods: [pod({ cpu: '1' })], pools: [pool] }).nodeClaims;
    // Act
    const nc = plannedClaimToNodeClaim(claim, 'default-abcde', epochMs(0), { ...pool, hash: '1234567890' });
    // Assess
    expect(nc.annotations).toEqual({
      [Annotation.doNotDisrupt]: 'true',
      'example.com/owner': 'team-a',
      [Annotation.nodePoolHash]: '1234567890',
      [Annotation.nodePoolHashVersion]: NodePoolHashVersion,
      [Annotation.plannedPods]: claim.pods.map((p) => `${p.namespace}/${p.name}/${p.uid}`).join(','),
    });
    expect(nc.labels).toMatchObject({ team: 'a', [Label.nodePool]: 'default' });
  });

  it('should annotate a claim whose minValues were relaxed and carry taints', () => {
    // Prepare
    const taints = [{ key: 'team', value: 'a', effect: 'NoSchedule' as const }];
    const startupTaints = [{ key: 'cilium', effect: 'NoExecute' as const }];
    const pool = nodePool({ taints, startupTaints, requirements: [{ key: Label.instanceType, operator: 'Exists', minValues: 10 }] });
    const [claim] = plan({
      pods: [pod({ cpu: '1', tolerations: [{ key: 'team', operator: 'Exists' }] })],
      pools: [pool],
      options: { minValuesPolicy: 'BestEffort' },
    }).nodeClaims;
    // Act
    const nc = plannedClaimToNodeClaim(claim, 'default-xyz', epochMs(0));
    // Assess
    expect(nc.annotations).toEqual({
      [Annotation.minValuesRelaxed]: 'true',
      [Annotation.plannedPods]: claim.pods.map((p) => `${p.namespace}/${p.name}/${p.uid}`).join(','),
    });
    expect(nc.spec.taints).toEqual(taints);
    expect(nc.spec.startupTaints).toEqual(startupTaints);
  });
});
