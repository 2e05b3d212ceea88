/**
 * Standby capacity (nodewright's `nodewright.io/standby-capacity` CapacityBuffers): the chunks a buffer lacks are
 * launched as tainted, marked claims; a standby node that joined is stopped (marked first, so its state-change events
 * are not taken for an interruption); pending pods planned onto it start it; once Ready it is an ordinary node.
 * Disruption leaves standby nodes alone and does not count them against budgets.
 */
import { describe, expect, it } from 'vitest';
import { standbyShortfall, standbyToWake, withStandbyCapacity } from '../../../shared/core/buffers/standby';
import { reconcileStandby, wakeStandby } from '../../../shared/core/lifecycle/standby';
import { StandbyCapacity, type ResolvedBuffer } from '../../../shared/core/model/capacity-buffer';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { Annotation } from '../../../shared/core/model/labels';
import type { SchedulingInput } from '../../../shared/core/scheduling/types';
import { fakes, node, nodeClaim, pendingInput, plannedClaim, plannedToNodeClaim, pod } from '../../fakes/lifecycle';
import { instance } from '../../fakes/interruption';
import type { Planner } from '../../../shared/core/lifecycle';

const buffer = (replicas: number): ResolvedBuffer => ({
  buffer: { namespace: 'default', name: 'warm', provisioningStrategy: StandbyCapacity, replicas },
  template: pod('chunk', { requests: { cpu: 1000 } }),
});
const standby = (name: string, state?: string, chunks = 1): NodeClaim => {
  const c = nodeClaim(name, {
    providerID: `aws:///us-west-2a/i-${name}`,
    nodeName: name,
    conditions: [{ type: 'Initialized', status: 'True', lastTransitionTime: 0 as never }],
  });
  c.annotations = { [Annotation.standby]: 'default/warm', [Annotation.standbyChunks]: String(chunks), ...(state ? { [Annotation.standbyState]: state } : {}) };
  return c;
};
const planner = (): Planner => ({
  schedulingInputFromSnapshot: pendingInput,
  solve: (input: SchedulingInput) => ({
    nodeClaims: input.pods.length ? [plannedClaim(input.pods)] : [],
    existingPlacements: [],
    unschedulable: [],
    ignored: [],
  }),
  plannedClaimToNodeClaim: plannedToNodeClaim,
});

describe('standby capacity', () => {
  it('should count the chunks live standby claims hold, and plan only the missing ones', () => {
    expect(standbyShortfall([buffer(3)], [standby('a', 'stopped', 2)])[0].pods).toHaveLength(1);
    expect(standbyShortfall([buffer(2)], [standby('a', 'stopped', 2)])).toEqual([]);
  });

  it('should offer stopped standby nodes as Ready capacity without their taints, and wake only those real pods were planned on', () => {
    const claims = [standby('a', 'stopped'), standby('b')];
    const nodes = [
      node('a', {
        ready: false,
        taints: [
          { key: 'nodewright.io/standby', value: 'true', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        ],
      }),
      node('b', { taints: [{ key: 'nodewright.io/standby', value: 'true', effect: 'NoSchedule' }] }),
    ];
    const snapshot = {
      ...(fakes().cluster as unknown as { snapshot: () => unknown }),
      nodeClaims: claims,
      nodes,
      pods: [],
      nodePools: [],
      nodeClasses: [],
      pdbs: [],
      daemonSets: [],
      persistentVolumes: [],
      persistentVolumeClaims: [],
      storageClasses: [],
    };
    const offered = withStandbyCapacity(snapshot as never);
    expect(offered.nodes[0]).toMatchObject({ ready: true, taints: [] });
    expect(offered.nodes[1].taints).toHaveLength(1);
    const virtual = { ...pod('v'), annotations: { 'karpenter.sh/capacity-buffer-fake-pod': 'true' } };
    const plan = (pods: ReturnType<typeof pod>[]) => ({ nodeClaims: [], existingPlacements: [{ node: 'a', pods }], unschedulable: [], ignored: [] });
    expect(standbyToWake(snapshot as never, plan([pod('web-1')])).map((c) => c.name)).toEqual(['a']);
    expect(standbyToWake(snapshot as never, plan([virtual]))).toEqual([]);
  });

  it('should launch the missing chunks as tainted claims marked with their buffer, and stop a standby node once it joined — marked first', async () => {
    const f = fakes();
    f.cluster.capacityBuffers = [buffer(2)];
    const joined = standby('joined');
    f.cluster.claims.set(joined.name, joined);
    f.cluster.nodes.set('joined', node('joined', { taints: [] }));
    f.cloud.instances.set(joined.status.providerID!, instance('i-joined', { providerID: joined.status.providerID!, state: 'running' }));
    const marks: string[] = [];
    const stop = f.cloud.stop.bind(f.cloud);
    f.cloud.stop = async (id) => {
      marks.push(f.cluster.claims.get('joined')?.annotations[Annotation.standbyState] ?? 'none');
      return stop(id);
    };
    const out = await reconcileStandby(f, planner(), await f.cluster.snapshot(), async () => ({ default: f.cloud.types }));
    expect(marks).toEqual(['stopped']);
    expect(f.cloud.byId('i-joined')?.state).toBe('stopped');
    expect(out.created).toHaveLength(1);
    const made = f.cluster.claims.get(out.created[0])!;
    expect(made.annotations).toMatchObject({ [Annotation.standby]: 'default/warm', [Annotation.standbyChunks]: '1' });
    expect(made.spec.taints).toContainEqual({ key: 'nodewright.io/standby', value: 'true', effect: 'NoSchedule' });
    expect(f.workflows.started.map((s) => s.name)).toEqual([out.created[0]]);
  });

  it('should start a stopped standby node for pending pods, drop its taint, and make it an ordinary node once Ready', async () => {
    const f = fakes();
    const c = standby('a', 'stopped');
    f.cluster.claims.set(c.name, c);
    f.cluster.nodes.set('a', node('a', { ready: false, taints: [{ key: 'nodewright.io/standby', value: 'true', effect: 'NoSchedule' }] }));
    f.cloud.instances.set(c.status.providerID!, instance('i-a', { providerID: c.status.providerID!, state: 'stopped' }));
    const snapshot = await f.cluster.snapshot();
    await wakeStandby(f, snapshot, { nodeClaims: [], existingPlacements: [{ node: 'a', pods: [pod('web-1')] }], unschedulable: [], ignored: [] });
    expect(f.cloud.byId('i-a')?.state).toBe('running');
    expect(f.cluster.claims.get('a')?.annotations[Annotation.standbyState]).toBe('starting');
    expect(f.cluster.nodes.get('a')?.taints).toEqual([]);
    f.cluster.nodes.set('a', { ...f.cluster.nodes.get('a')!, ready: true });
    await reconcileStandby(f, planner(), await f.cluster.snapshot(), async () => ({}));
    expect(f.cluster.claims.get('a')?.annotations[Annotation.standby]).toBeUndefined();
  });
});
