/**
 * Acting on node repair: a reboot is an EC2 reboot plus the claim's reboot annotation, an event and a metric; a
 * replacement is a `disrupt` execution (reason Unhealthy) with the claim's drain bounded before it starts; a node
 * that must wait gets NodeRepairBlocked.
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { actOnRepairs } from '../../../shared/core/lifecycle/repair-act';
import { Annotation } from '../../../shared/core/model/labels';
import { ago, bound, c6g, cluster, input, managed, NOW, pool, type Managed } from '../disruption/builders';
import { fakes } from '../../fakes/lifecycle';
import { instance } from '../../fakes/interruption';

function world(condition: string, status: string, sinceSecondsAgo: number, over: { extraUnhealthy?: boolean } = {}) {
  const f = fakes();
  f.clock.ms = NOW;
  const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null, terminationGracePeriod: 3600 });
  const nodes: Managed[] = ['x', 'a', 'b', 'c', 'd', 'e'].map((n) => managed(n, { pool: p, type: c6g.xlarge }));
  nodes[0].node.unhealthy = [{ type: condition, status, since: ago(sinceSecondsAgo) }];
  if (over.extraUnhealthy) for (const m of nodes.slice(1, 3)) m.node.unhealthy = [{ type: 'Ready', status: 'False', since: ago(60) }];
  for (const m of nodes) {
    f.cluster.claims.set(m.claim.name, m.claim);
    f.cluster.nodes.set(m.node.name, m.node);
    f.cloud.instances.set(m.claim.status.providerID!, instance(`i-${m.node.name}`, { providerID: m.claim.status.providerID! }));
  }
  const decision = computeDisruption(input(cluster({ pools: [p], nodes, pods: nodes.map((n) => bound(n, { cpu: '3' })) }), [c6g.large, c6g.xlarge]));
  return { f, decision, claim: nodes[0].claim };
}

describe('actOnRepairs', () => {
  it('should reboot the instance, mark the claim and say so on the node', async () => {
    const { f, decision, claim } = world('KernelReady', 'False', 31 * 60);
    const out = await actOnRepairs(f, decision, NOW, {});
    expect(f.cloud.rebooted).toEqual(['i-x']);
    expect(out.rebooted).toEqual([claim.name]);
    expect(f.cluster.claims.get(claim.name)?.annotations[Annotation.repairRebootedAt]).toBe(new Date(NOW).toISOString());
    expect(f.cluster.events.some((e) => e.startsWith('Node/x NodeRepairReboot: Rebooting: KernelReady=False'))).toBe(true);
    expect(f.metrics.records).toContainEqual(
      expect.objectContaining({
        name: 'karpenter_nodeclaims_unhealthy_rebooted_total',
        labels: expect.objectContaining({ condition: 'kernel_ready', nodepool: 'default' }),
      }),
    );
    expect(f.workflows.started).toEqual([]);
  });

  it('should start a disrupt execution with reason Unhealthy carrying the drain bound, and leave the claim unannotated until the drain starts', async () => {
    const { f, decision, claim } = world('Ready', 'False', 31 * 60);
    const out = await actOnRepairs(f, decision, NOW, {});
    expect(out.started.map((s) => s.machine)).toEqual(['disrupt']);
    expect(f.workflows.started[0].input).toMatchObject({ reason: 'Unhealthy', drainSeconds: 300, candidates: [{ nodeClaimName: claim.name, nodeName: 'x' }] });
    // A rolled-back repair must leave nothing that would force a later drain through PDBs.
    expect(f.cluster.claims.get(claim.name)?.annotations[Annotation.terminationTimestamp]).toBeUndefined();
    expect(f.metrics.records).toContainEqual(
      expect.objectContaining({
        name: 'karpenter_nodeclaims_unhealthy_disrupted_total',
        labels: expect.objectContaining({ condition: 'ready', nodepool: 'default' }),
      }),
    );
    expect(f.metrics.records).toContainEqual(
      expect.objectContaining({ name: 'karpenter_nodeclaims_disrupted_total', labels: expect.objectContaining({ reason: 'unhealthy' }) }),
    );
  });

  it('should go on with the other repairs when one reboot fails, say so on the node, and not leave the reboot mark', async () => {
    const { f, decision, claim } = world('KernelReady', 'False', 31 * 60);
    f.cloud.reboot = async () => {
      throw Object.assign(new Error('You are not authorized to perform this operation.'), { name: 'UnauthorizedOperation' });
    };
    const out = await actOnRepairs(f, decision, NOW, {});
    expect(out.rebooted).toEqual([]);
    expect(f.cluster.claims.get(claim.name)?.annotations[Annotation.repairRebootedAt]).toBeUndefined();
    expect(f.cluster.events.some((e) => e.startsWith('Node/x NodeRepairBlocked: Repair failed: UnauthorizedOperation'))).toBe(true);
  });

  it('should record NodeRepairBlocked when more than 20% of the pool is unhealthy', async () => {
    const { f, decision } = world('Ready', 'False', 31 * 60, { extraUnhealthy: true });
    await actOnRepairs(f, decision, NOW, {});
    expect(f.workflows.started).toEqual([]);
    expect(f.cluster.events).toContain('Node/x NodeRepairBlocked: More than 20% nodes are unhealthy in the nodepool (3 of 6)');
  });
});
