/**
 * Karpenter's metrics as the lifecycle use cases record them (docs/metrics.md): what a dashboard over
 * karpenter_nodeclaims_created_total, …_terminated_total, karpenter_nodes_created_total and
 * karpenter_cloudprovider_errors_total would show — and that a retried Task never counts twice.
 */
import { describe, expect, it } from 'vitest';
import { checkRegistration, finalizeNodeClaim, launchNodeClaim, runProvisioner, type Planner } from '../../../shared/core/lifecycle';
import type { SchedulingInput } from '../../../shared/core/scheduling/types';
import { fakes, node, nodeClaim, pendingInput, plannedClaim, plannedToNodeClaim, pod } from '../../fakes/lifecycle';
import { addSeconds, epochMs } from '../../../shared/core/time';

const PID = 'aws:///eu-west-1a/i-0abc000000000001';

/** One claim for the first pod; every other pod unschedulable. */
const planner: Planner = {
  schedulingInputFromSnapshot: pendingInput,
  solve: (input: SchedulingInput) => {
    const [first, ...rest] = input.pods;
    const claim = plannedClaim([first], { requests: { cpu: 500 }, minValuesRelaxed: true });
    return { nodeClaims: [claim], existingPlacements: [], unschedulable: rest.map((p) => ({ pod: p, reason: 'no instance type fits' })), ignored: [] };
  },
  plannedClaimToNodeClaim: plannedToNodeClaim,
};

describe('lifecycle metrics', () => {
  it('should count each nodeclaim the provisioner creates, with its pool and whether minValues was relaxed, and the pods it saw', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = ['web-1', 'web-2', 'web-3'].map((n) => pod(n, { phase: 'Pending', unschedulable: true, nodeName: undefined }));
    // Act
    await runProvisioner(f, planner, { holder: 'req-1', once: true, batched: true });
    // Assess
    expect(f.metrics.matching('karpenter_nodeclaims_created_total')).toEqual([
      {
        kind: 'count',
        name: 'karpenter_nodeclaims_created_total',
        labels: { reason: 'provisioned', nodepool: 'default', min_values_relaxed: 'true' },
        value: 1,
      },
    ]);
    expect(f.metrics.gaugeValue('karpenter_scheduler_queue_depth', { controller: 'provisioner' })).toBe(3);
    expect(f.metrics.gaugeValue('karpenter_scheduler_unschedulable_pods_count', { controller: 'provisioner' })).toBe(2);
    expect(f.metrics.matching('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' })).toHaveLength(1);
  });

  it('should count a node created when its claim registers, once, however often the step runs', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, labels: { 'topology.kubernetes.io/zone': 'eu-west-1a' } }));
    // Act
    await checkRegistration(f, { nodeClaimName: 'default-abcde', deadlineMs: epochMs(f.clock.now() + 60_000) });
    await checkRegistration(f, { nodeClaimName: 'default-abcde', deadlineMs: epochMs(f.clock.now() + 60_000) });
    // Assess
    expect(f.metrics.total('karpenter_nodes_created_total', { nodepool: 'default', zone: 'eu-west-1a' })).toBe(1);
  });

  it('should count a terminated nodeclaim and node once, with how long the termination took, even when FinalizeNodeClaim is retried', async () => {
    // Prepare: the claim was deleted 90 s ago.
    const f = fakes();
    const claim = nodeClaim('default-abcde', { providerID: PID, nodeName: 'n1' });
    claim.labels['karpenter.sh/capacity-type'] = 'spot';
    claim.labels['topology.kubernetes.io/zone'] = 'eu-west-1a';
    claim.deletionTimestamp = addSeconds(f.clock.now(), -90);
    f.cluster.claims.set(claim.name, claim);
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, taints: [], finalizers: ['karpenter.sh/termination'] }));
    // Act
    await finalizeNodeClaim(f, { nodeClaimName: 'default-abcde', nodeName: 'n1', providerID: PID, reason: 'Deleted' });
    await finalizeNodeClaim(f, { nodeClaimName: 'default-abcde', nodeName: 'n1', providerID: PID, reason: 'Deleted' });
    // Assess
    expect(f.metrics.total('karpenter_nodeclaims_terminated_total', { nodepool: 'default', capacity_type: 'spot', zone: 'eu-west-1a' })).toBe(1);
    expect(f.metrics.total('karpenter_nodes_terminated_total', { nodepool: 'default', zone: 'eu-west-1a' })).toBe(1);
    expect(f.metrics.matching('karpenter_nodes_termination_duration_seconds').map((r) => r.value)).toEqual([90]);
  });

  it('should count a failed launch as a cloud provider error named after the error', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    f.cloud.iceOnce = true;
    // Act
    await expect(launchNodeClaim(f, 'default-abcde')).rejects.toThrow();
    // Assess
    expect(f.metrics.matching('karpenter_cloudprovider_errors_total').map((r) => r.labels)).toEqual([
      { controller: 'nodeclaim.lifecycle', method: 'Create', provider: 'aws', error: 'InsufficientCapacityError' },
    ]);
  });
});
