/**
 * CapacityBuffers in the provisioner: a round with nothing pending still plans the buffers' chunks (claims for what
 * does not fit), names no virtual pod in an event, and writes the buffer's status (replicas, ReadyForProvisioning,
 * Provisioning) only when it changes.
 */
import { describe, expect, it } from 'vitest';
import { runProvisioner, type Planner } from '../../../shared/core/lifecycle';
import { ActiveCapacity } from '../../../shared/core/model/capacity-buffer';
import type { SchedulingInput } from '../../../shared/core/scheduling/types';
import { fakes, pendingInput, plannedClaim, plannedToNodeClaim, pod } from '../../fakes/lifecycle';

/** One claim holding every pod planned. */
const planner = (seen: SchedulingInput[]): Planner => ({
  schedulingInputFromSnapshot: pendingInput,
  solve: (input: SchedulingInput) => {
    seen.push(input);
    return { nodeClaims: input.pods.length ? [plannedClaim(input.pods)] : [], existingPlacements: [], unschedulable: [], ignored: [] };
  },
  plannedClaimToNodeClaim: plannedToNodeClaim,
});

describe('CapacityBuffers in the provisioner', () => {
  it('should plan the chunks with nothing pending, launch for them, name them in no event, and report the buffer', async () => {
    // Prepare
    const f = fakes();
    const template = pod('chunk', { requests: { cpu: 1000 } });
    f.cluster.capacityBuffers = [{ buffer: { namespace: 'default', name: 'headroom', provisioningStrategy: ActiveCapacity, replicas: 3 }, template }];
    const seen: SchedulingInput[] = [];
    // Act
    const out = await runProvisioner(f, planner(seen), { holder: 'req-1', batched: true, budgetMs: 5_000 });
    // Assess
    expect(seen).toHaveLength(1);
    expect(seen[0].pods.map((p) => p.name)).toEqual(['headroom-buffer-0', 'headroom-buffer-1', 'headroom-buffer-2']);
    expect(out.nodeClaims).toHaveLength(1);
    expect(out.bufferPods).toBe(3);
    expect(f.workflows.started).toHaveLength(1);
    expect(f.cluster.events.filter((e) => e.includes('buffer'))).toEqual([]);
    expect(f.cluster.bufferStatuses.get('default/headroom')).toEqual({
      replicas: 3,
      conditions: [
        { type: 'ReadyForProvisioning', status: 'True', reason: 'Resolved', message: 'Pod template resolved successfully' },
        { type: 'Provisioning', status: 'False', reason: 'RequiresNewCapacity', message: '3/3 virtual pods required new capacity, 0 failed' },
      ],
    });
  });

  it('should say why a buffer whose template is gone cannot be provisioned, and plan nothing for it', async () => {
    const f = fakes();
    f.cluster.capacityBuffers = [
      {
        buffer: { namespace: 'default', name: 'orphan', provisioningStrategy: ActiveCapacity, podTemplateRef: 'gone', replicas: 2 },
        unresolved: { reason: 'PodTemplateNotFound', message: 'podtemplate default/gone not found' },
      },
    ];
    f.cluster.pods = [pod('web-1', { phase: 'Pending', unschedulable: true, nodeName: undefined })];
    const seen: SchedulingInput[] = [];
    await runProvisioner(f, planner(seen), { holder: 'req-1', once: true, batched: true });
    expect(seen[0].pods.map((p) => p.name)).toEqual(['web-1']);
    expect(f.cluster.bufferStatuses.get('default/orphan')?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'ReadyForProvisioning=False/PodTemplateNotFound',
      'Provisioning=False/NotReadyForProvisioning',
    ]);
  });

  it('should report a buffer that plans nothing even when no pod is pending, and a strategy nodewright does not plan as Ready only', async () => {
    const f = fakes();
    f.cluster.capacityBuffers = [
      {
        buffer: { namespace: 'default', name: 'orphan', provisioningStrategy: ActiveCapacity, podTemplateRef: 'gone', replicas: 2 },
        unresolved: { reason: 'PodTemplateNotFound', message: 'podtemplate default/gone not found' },
      },
      { buffer: { namespace: 'default', name: 'other', provisioningStrategy: 'example.com/cold', replicas: 2 }, template: pod('chunk') },
    ];
    const seen: SchedulingInput[] = [];
    await runProvisioner(f, planner(seen), { holder: 'req-1', batched: true, budgetMs: 5_000 });
    expect(seen).toEqual([]);
    expect(f.cluster.bufferStatuses.get('default/orphan')?.conditions[0]).toMatchObject({ status: 'False', reason: 'PodTemplateNotFound' });
    expect(f.cluster.bufferStatuses.get('default/other')?.conditions.map((c) => c.type)).toEqual(['ReadyForProvisioning']);
  });
});
