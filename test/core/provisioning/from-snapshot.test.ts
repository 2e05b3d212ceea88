import { describe, expect, it } from 'vitest';
import { Label, TaintKey } from '../../../shared/core/model/labels';
import { existingNodesFromSnapshot, reschedulablePods, schedulingInputFromSnapshot } from '../../../shared/core/provisioning/from-snapshot';
import { solve } from '../../../shared/core/scheduling/solve';
import { daemonSet, fakeInstanceTypes, pod } from '../../fixtures/builders';
import { kubeClaim, kubeNode, pendingPod, snapshot } from './snapshot-builders';
import { fromSeconds } from '../../../shared/core/time';

const types = { default: fakeInstanceTypes() };
const names = (pods: { name: string }[]) => pods.map((p) => p.name).sort();

describe('schedulingInputFromSnapshot', () => {
  it('should take only provisionable pods as pending', () => {
    // Prepare
    const snap = snapshot({
      nodes: [kubeNode('node-a', { pool: 'default' })],
      pods: [
        pendingPod({ name: 'failed-by-kube-scheduler' }),
        pod({ name: 'not-yet-tried' }), // kube-scheduler has not marked it unschedulable
        { ...pendingPod({ name: 'nominated' }), nominatedNodeName: 'node-a' },
        { ...pendingPod({ name: 'leaving' }), deletionTimestamp: fromSeconds(5) },
        pendingPod({ name: 'daemon', owner: { kind: 'DaemonSet', name: 'logger' } }),
        pendingPod({ name: 'static', owner: { kind: 'Node', name: 'node-a' } }),
        pod({ name: 'running', nodeName: 'node-a' }),
      ],
    });
    // Act
    const input = schedulingInputFromSnapshot(snap, types);
    // Assess
    expect(names(input.pods)).toEqual(['failed-by-kube-scheduler']);
  });

  it("should count DaemonSet overhead from the DaemonSet's newest pod, as Karpenter does, keeping the template's node affinity", () => {
    // Prepare: the template asks 100m; a webhook (or VPA) made the running pods ask more, the newest 500m. The DaemonSet
    // controller pins each pod to its node with matchFields, which says nothing about a new node.
    const logger = daemonSet('logger', { cpu: '100m' });
    const running = (name: string, cpu: string, createdAt: number) => ({
      ...pod({ name, namespace: 'kube-system', cpu, nodeName: 'node-a', owner: { kind: 'DaemonSet', name: 'logger' }, createdAt: fromSeconds(createdAt) }),
      affinity: {
        nodeAffinity: { required: [{ matchExpressions: [], matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: ['node-a'] }] }] },
      },
    });
    const snap = {
      ...snapshot({ nodes: [kubeNode('node-a', { pool: 'default' })], pods: [running('logger-old', '300m', 10), running('logger-new', '500m', 20)] }),
      daemonSets: [logger],
    };

    // Act
    const input = schedulingInputFromSnapshot(snap, types);

    // Assess
    expect(input.daemonSets[0].template.requests.cpu).toBe(500);
    expect(input.daemonSets[0].template.nodeName).toBeUndefined();
    expect(input.daemonSets[0].template.affinity?.nodeAffinity?.required).toBeUndefined();
  });

  it('should add the reschedulable pods of nodes that are going away', () => {
    // Prepare
    const snap = snapshot({
      nodes: [
        kubeNode('deleting', { pool: 'default', deletionTimestamp: fromSeconds(10) }),
        kubeNode('disrupted', { pool: 'default', taints: [{ key: TaintKey.disrupted, effect: 'NoSchedule' }] }),
        kubeNode('claim-deleting', { pool: 'default', providerID: 'aws:///z/i-claim' }),
        kubeNode('healthy', { pool: 'default' }),
      ],
      nodeClaims: [kubeClaim('nc-1', { nodeName: 'claim-deleting', providerID: 'aws:///z/i-claim', deletionTimestamp: fromSeconds(20) })],
      pods: [
        pod({ name: 'on-deleting', nodeName: 'deleting' }),
        pod({ name: 'on-disrupted', nodeName: 'disrupted' }),
        pod({ name: 'on-claim-deleting', nodeName: 'claim-deleting' }),
        pod({ name: 'on-healthy', nodeName: 'healthy' }),
        pod({ name: 'daemon-on-deleting', nodeName: 'deleting', owner: { kind: 'DaemonSet', name: 'logger' } }),
        { ...pod({ name: 'done-on-deleting', nodeName: 'deleting' }), phase: 'Succeeded' as const },
        { ...pod({ name: 'terminating-on-deleting', nodeName: 'deleting' }), deletionTimestamp: fromSeconds(11) },
      ],
    });
    // Act
    const input = schedulingInputFromSnapshot(snap, types);
    // Assess
    expect(names(input.pods)).toEqual(['on-claim-deleting', 'on-deleting', 'on-disrupted']);
    expect(names(reschedulablePods(snap))).toEqual(['on-claim-deleting', 'on-deleting', 'on-disrupted']);
    const byName = new Map(input.existingNodes.map((n) => [n.name, n]));
    expect(byName.get('deleting')?.markedForDeletion).toBe(true);
    expect(byName.get('disrupted')?.markedForDeletion).toBe(true);
    expect(byName.get('claim-deleting')?.markedForDeletion).toBe(true);
    expect(byName.get('healthy')?.markedForDeletion).toBe(false);
  });

  it("should use the given pending pods instead of the snapshot's", () => {
    // Prepare
    const snap = snapshot({ pods: [pendingPod({ name: 'from-snapshot' })] });
    // Act
    const input = schedulingInputFromSnapshot(snap, types, { pendingPods: [pod({ name: 'chosen' })], preferencePolicy: 'Ignore' });
    // Assess
    expect(names(input.pods)).toEqual(['chosen']);
    expect(input.options).toEqual({ preferencePolicy: 'Ignore' });
  });

  it('should turn a NodeClaim without a node into an in-flight target', () => {
    // Prepare
    const snap = snapshot({ nodeClaims: [kubeClaim('nc-inflight', { types: ['default-instance-type', 'small-instance-type'], zone: 'test-zone-2' })] });
    // Act
    const input = schedulingInputFromSnapshot(snap, types);
    // Assess
    expect(input.existingNodes).toHaveLength(1);
    const target = input.existingNodes[0];
    expect(target).toMatchObject({
      name: 'nc-inflight',
      nodePool: 'default',
      nodeClaim: 'nc-inflight',
      inFlight: true,
      initialized: false,
      markedForDeletion: false,
    });
    expect(target.labels[Label.zone]).toBe('test-zone-2');
    expect(target.labels[Label.nodePool]).toBe('default');
    // Without status.allocatable, the smallest allocatable of the listed types (small: 2 CPU, 2Gi).
    expect(target.allocatable.cpu).toBe(2000);
    expect(target.allocatable.memory).toBe(2 * 2 ** 30);
  });

  it('should prefer the NodeClaim status allocatable and skip claims being deleted', () => {
    // Prepare
    const snap = snapshot({
      nodeClaims: [
        kubeClaim('nc-launched', { allocatable: { cpu: '3', memory: '3Gi', pods: '10' } }),
        kubeClaim('nc-deleted', { deletionTimestamp: fromSeconds(100) }),
        kubeClaim('nc-terminating', { conditions: [{ type: 'InstanceTerminating', status: 'True' }] }),
      ],
    });
    // Act
    const nodes = existingNodesFromSnapshot(snap, types);
    // Assess
    expect(nodes.map((n) => n.name).sort()).toEqual(['nc-launched', 'nc-terminating']);
    expect(nodes.find((n) => n.name === 'nc-launched')?.allocatable.cpu).toBe(3000);
    expect(nodes.find((n) => n.name === 'nc-terminating')?.markedForDeletion).toBe(true);
  });

  it('should not list a NodeClaim twice once its node exists', () => {
    // Prepare
    const snap = snapshot({
      nodes: [kubeNode('ip-10-0-0-1', { pool: 'default', providerID: 'aws:///test-zone-1/i-1' })],
      nodeClaims: [kubeClaim('nc-1', { providerID: 'aws:///test-zone-1/i-1', nodeName: 'ip-10-0-0-1' })],
    });
    // Act
    const nodes = existingNodesFromSnapshot(snap, types);
    // Assess
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ name: 'ip-10-0-0-1', nodeClaim: 'nc-1', initialized: true });
    expect(nodes[0].inFlight).toBeUndefined();
  });

  it("should drop the claim's startup taints from a node that is not initialized yet", () => {
    // Prepare
    const cilium = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' as const };
    const team = { key: 'team', value: 'a', effect: 'NoSchedule' as const };
    const claim = { ...kubeClaim('nc-1', { nodeName: 'starting', providerID: 'aws:///z/i-s' }) };
    claim.spec = { ...claim.spec, startupTaints: [cilium], taints: [team] };
    const starting = kubeNode('starting', { pool: 'default', providerID: 'aws:///z/i-s', taints: [cilium, team] });
    starting.labels = { ...starting.labels, [Label.initialized]: 'false' };
    const ready = kubeNode('ready', { pool: 'default', taints: [cilium] });
    // Act
    const nodes = existingNodesFromSnapshot(snapshot({ nodes: [starting, ready], nodeClaims: [claim] }), types);
    // Assess
    expect(nodes.find((n) => n.name === 'starting')).toMatchObject({ initialized: false, taints: [team] });
    expect(nodes.find((n) => n.name === 'ready')).toMatchObject({ initialized: true, taints: [cilium] });
  });

  it('should mark a cordoned node as not a target', () => {
    // Act
    const nodes = existingNodesFromSnapshot(snapshot({ nodes: [kubeNode('cordoned', { pool: 'default', unschedulable: true })] }));
    // Assess
    expect(nodes[0].markedForDeletion).toBe(true);
  });

  it('should place a pending pod on the in-flight claim instead of launching another', () => {
    // Prepare
    const snap = snapshot({ nodeClaims: [kubeClaim('nc-inflight')], pods: [pendingPod({ name: 'web', cpu: '1' })] });
    // Act
    const plan = solve(schedulingInputFromSnapshot(snap, types));
    // Assess
    expect(plan.nodeClaims).toHaveLength(0);
    expect(plan.existingPlacements).toEqual([{ node: 'nc-inflight', pods: [expect.objectContaining({ name: 'web' })] }]);
  });

  it('should count a GPU an uninitialized node has not reported yet from its NodeClaim, not launch another node', () => {
    // Prepare: the kubelet is up but the device plugin has not registered nvidia.com/gpu yet
    const claim = kubeClaim('nc-gpu', {
      nodeName: 'gpu-node',
      providerID: 'aws:///z/i-gpu',
      types: ['gpu-vendor-instance-type'],
      allocatable: { cpu: '4', memory: '4Gi', pods: '20', 'nvidia.com/gpu': '2' },
    });
    const node = kubeNode('gpu-node', { pool: 'default', providerID: 'aws:///z/i-gpu' });
    node.labels = { ...node.labels, [Label.initialized]: 'false' };
    const gpuPod = pendingPod({ name: 'trainer', cpu: '1', requests: { 'nvidia.com/gpu': '1' } });
    const snap = snapshot({ nodes: [node], nodeClaims: [claim], pods: [gpuPod] });
    // Act
    const plan = solve(schedulingInputFromSnapshot(snap, types));
    // Assess
    expect(plan.nodeClaims).toHaveLength(0);
    expect(plan.existingPlacements).toEqual([{ node: 'gpu-node', pods: [expect.objectContaining({ name: 'trainer' })] }]);
  });

  it("should trust an initialized node's own allocatable (no GPU reported means none)", () => {
    // Prepare
    const claim = kubeClaim('nc-gpu', { nodeName: 'gpu-node', providerID: 'aws:///z/i-gpu', allocatable: { cpu: '4', 'nvidia.com/gpu': '2' } });
    const node = kubeNode('gpu-node', { pool: 'default', providerID: 'aws:///z/i-gpu' });
    // Act
    const nodes = existingNodesFromSnapshot(snapshot({ nodes: [node], nodeClaims: [claim] }), types);
    // Assess
    expect(nodes[0].allocatable['nvidia.com/gpu']).toBeUndefined();
  });
});
