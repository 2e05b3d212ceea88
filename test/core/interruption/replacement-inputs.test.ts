/**
 * What planning an interrupted node's replacements reads (issue #28): the node's pods, the cluster's configuration
 * and those pods' volumes, never the whole cluster; the plan sized on new capacity for those pods.
 */
import { describe, expect, it } from 'vitest';
import { readReplacementInputs } from '../../../shared/core/interruption/replacement-inputs';
import { planInterruptionReplacements } from '../../../shared/core/interruption/replacements';
import type { InstanceType } from '../../../shared/core/instance-types/types';
import { fakes, instanceType, node, nodeClaim, nodePool, pod } from '../../fakes/lifecycle';
import { epochMs } from '../../../shared/core/time';

const NODE = 'ip-10-0-0-1';

function cluster() {
  const f = fakes();
  const claim = nodeClaim('default-aaaaa', { nodeName: NODE, conditions: [{ type: 'Initialized', status: 'True', lastTransitionTime: epochMs(0) }] });
  f.cluster.claims.set(claim.name, claim);
  f.cluster.nodes.set(NODE, node(NODE, { taints: [], labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/initialized': 'true' } }));
  f.cluster.pods = [
    pod('web-1', { nodeName: NODE, volumeClaims: [{ claimName: 'data-web-1' }] }),
    pod('web-2', { nodeName: NODE }),
    pod('elsewhere', { nodeName: 'ip-10-0-0-2', volumeClaims: [{ claimName: 'data-elsewhere' }] }),
  ];
  f.cluster.persistentVolumeClaims = [
    { namespace: 'default', name: 'data-web-1', volumeName: 'pv-web-1', phase: 'Bound', bindCompleted: true },
    { namespace: 'default', name: 'data-elsewhere', volumeName: 'pv-elsewhere', phase: 'Bound', bindCompleted: true },
  ];
  f.cluster.persistentVolumes = [
    {
      name: 'pv-web-1',
      claimRef: { namespace: 'default', name: 'data-web-1' },
      nodeAffinity: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1b'] }] }],
    },
    { name: 'pv-elsewhere', claimRef: { namespace: 'default', name: 'data-elsewhere' } },
  ];
  // Every read, by method and argument.
  const reads: string[] = [];
  const spied = new Proxy(f.cluster, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        reads.push(`${String(key)} ${JSON.stringify(args)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { f, claim, reads, spied };
}

/** c5.large in two zones, spot. */
function twoZoneType(): InstanceType {
  const t = instanceType('c5.large', 0.03);
  return { ...t, offerings: ['eu-west-1a', 'eu-west-1b'].map((zone) => ({ zone, capacityType: 'spot' as const, price: 0.03, available: true })) };
}

describe('readReplacementInputs', () => {
  it("should read the node's pods, the cluster's configuration and only those pods' volumes", async () => {
    // Prepare
    const { claim, reads, spied } = cluster();
    // Act
    const { snapshot } = await readReplacementInputs(spied, claim);
    // Assess
    expect(reads.sort()).toEqual([`listPodsOnNode ["${NODE}"]`, 'schedulingConfig []', `volumesOf [[{"namespace":"default","name":"data-web-1"}]]`]);
    expect(snapshot.pods.map((p) => p.name)).toEqual(['web-1', 'web-2']);
    expect(snapshot.persistentVolumes.map((v) => v.name)).toEqual(['pv-web-1']);
    expect(snapshot.nodeClaims.map((c) => c.name)).toEqual([claim.name]);
  });

  it("should plan the replacement in the zone of a moving pod's volume", async () => {
    // Prepare
    const { claim, spied } = cluster();
    const { snapshot, poolUsage } = await readReplacementInputs(spied, claim);
    // Act
    const plan = await planInterruptionReplacements(snapshot, { default: [twoZoneType()] }, claim.name, 'event-1', epochMs(0), { poolUsage });
    // Assess
    expect(plan.moving).toBe(2);
    expect(plan.replacements).toHaveLength(1);
    expect(plan.replacements[0].spec.requirements).toContainEqual(expect.objectContaining({ key: 'topology.kubernetes.io/zone', values: ['eu-west-1b'] }));
  });

  it("should count a pool's usage from its status, so a pool at its limits gets no replacement", async () => {
    // Prepare
    const { f, claim, spied } = cluster();
    f.cluster.nodePools = [nodePool('default', { limits: { cpu: 4000 }, observedStatus: { resources: { cpu: '4', nodes: '2' }, nodes: 2, conditions: [] } })];
    const { snapshot, poolUsage } = await readReplacementInputs(spied, claim);
    // Act
    const plan = await planInterruptionReplacements(snapshot, { default: [twoZoneType()] }, claim.name, 'event-1', epochMs(0), { poolUsage });
    // Assess
    expect(poolUsage).toEqual({ default: { cpu: 4000, nodes: 2 } });
    expect(plan.replacements).toEqual([]);
    expect(plan.unschedulable.map((u) => u.pod)).toEqual(['default/web-1', 'default/web-2']);
  });

  it('should read no pods for a claim that never registered a node', async () => {
    // Prepare
    const { reads, spied } = cluster();
    // Act
    const { snapshot } = await readReplacementInputs(spied, nodeClaim('default-bbbbb'));
    // Assess
    expect(reads).toEqual(['schedulingConfig []']);
    expect(snapshot.pods).toEqual([]);
  });
});
