/**
 * Which pods the simulated Deployment controller deletes on scale down: kube's ReplicaSet order (unassigned,
 * Pending, not Ready, pod-deletion-cost, pods doubled up on a node, Ready for less time, restarts, newer), and the
 * names it gives the pods it creates again.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../shared/sim/clock';
import { reconcileDeployments } from '../../../shared/sim/cluster';
import { deletionCost } from '../../../shared/sim/cluster/scale-down';
import { FakeKubeApi } from '../../../shared/sim/kube';
import type { KubeObject } from '../../../shared/sim/kube';
import { parseScenario, runScenario } from '../../../shared/sim';
import { ClusterObserver } from '../../../shared/sim/scenario/observe';
import { deployment, NODE_CLASS, nodePool, objects } from '../fixtures/objects';

const T0 = Date.UTC(2025, 0, 1);
const COST = 'controller.kubernetes.io/pod-deletion-cost';

function setup() {
  const clock = new VirtualClock(T0);
  const api = new FakeKubeApi({ clock: () => clock.now() });
  const podType = api.store.typeOf('v1', 'Pod');
  const deployment = (name: string, replicas: number): KubeObject =>
    api.apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '100m' } } }] } },
      },
    });
  /** Binds the pod to `node` and runs it, Ready since `readyAt` (the scheduler's and kubelet's writes). */
  const run = (name: string, node: string, readyAt = api.store.timestamp()) => {
    const pod = api.store.get(podType, 'default', name);
    const bound = api.store.update(podType, 'default', name, { ...pod, spec: { ...(pod.spec ?? {}), nodeName: node } });
    api.store.update(
      podType,
      'default',
      name,
      { ...bound, status: { ...(bound.status ?? {}), phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readyAt }] } },
      { subresource: 'status' },
    );
  };
  const annotate = (name: string, annotations: Record<string, string>) =>
    api.store.patch(podType, 'default', name, 'application/merge-patch+json', { metadata: { annotations } });
  const pods = () => api.store.list(podType).items;
  const names = () => pods().map((p) => p.metadata.name ?? '');
  const byNode = () => {
    const out: Record<string, string[]> = {};
    for (const p of pods()) (out[String(p.spec?.nodeName ?? '')] ??= []).push(p.metadata.name ?? '');
    return out;
  };
  return { clock, api, podType, deployment, run, annotate, pods, names, byNode };
}

/** web-0..8 on three nodes, three each: node-a web-0..2, node-b web-3..5, node-c web-6..8. */
function threeByThree(s: ReturnType<typeof setup>) {
  s.deployment('web', 9);
  reconcileDeployments(s.api.store);
  for (let i = 0; i < 9; i++) s.run(`web-${i}`, ['node-a', 'node-b', 'node-c'][Math.floor(i / 3)]);
  reconcileDeployments(s.api.store);
}

describe('simulated scale down (kube ReplicaSet order)', () => {
  it('should delete from the node with the most pods of the Deployment first', () => {
    // Prepare: 5 pods on node-a, 2 on node-b, 2 on node-c.
    const s = setup();
    s.deployment('web', 9);
    reconcileDeployments(s.api.store);
    const placement = ['node-b', 'node-a', 'node-c', 'node-a', 'node-b', 'node-a', 'node-c', 'node-a', 'node-a'];
    placement.forEach((node, i) => s.run(`web-${i}`, node));
    reconcileDeployments(s.api.store);
    // Act
    s.deployment('web', 6);
    reconcileDeployments(s.api.store);
    // Assess: the three deleted were all node-a's (rank 5 against 2): two pods left on each node.
    expect(Object.fromEntries(Object.entries(s.byNode()).map(([node, ps]) => [node, ps.length]))).toEqual({ 'node-a': 2, 'node-b': 2, 'node-c': 2 });
  });

  it('should delete all three pods of the node whose pods have pod-deletion-cost -3', () => {
    // Prepare
    const s = setup();
    threeByThree(s);
    for (const name of ['web-3', 'web-4', 'web-5']) s.annotate(name, { [COST]: '-3' });
    // Act
    s.deployment('web', 6);
    reconcileDeployments(s.api.store);
    // Assess
    expect(s.byNode()).toEqual({ 'node-a': ['web-0', 'web-1', 'web-2'], 'node-c': ['web-6', 'web-7', 'web-8'] });
  });

  it('should not spread a scale down over nodes holding equally many pods (kube ranks the pods once, before deleting)', () => {
    // Prepare: every pod has rank 3 and was Ready at the same time: rank does not tell them apart (kube ranks once).
    const s = setup();
    threeByThree(s);
    // Act
    s.deployment('web', 6);
    reconcileDeployments(s.api.store);
    // Assess: same cost, rank, Ready time, restarts and age: the pods tie and go in no set order (kube compares its
    // random UIDs; the simulator hashes its counted ones), not one per node
    const left = Object.values(s.byNode()).map((pods) => pods.length);
    expect(left.reduce((a, b) => a + b, 0)).toBe(6);
    expect(left.length === 3 && left.every((n) => n === 2)).toBe(false);
  });

  it('should delete unbound pods, then Pending ones, then not-Ready ones before Running and Ready ones', () => {
    // Prepare: web-0..2 running on three nodes; web-3 unbound; web-4 bound but Pending; web-5 Running but not Ready.
    const s = setup();
    s.deployment('web', 6);
    reconcileDeployments(s.api.store);
    ['node-a', 'node-b', 'node-c'].forEach((node, i) => s.run(`web-${i}`, node));
    const web4 = s.api.store.get(s.podType, 'default', 'web-4');
    s.api.store.update(s.podType, 'default', 'web-4', { ...web4, spec: { ...(web4.spec ?? {}), nodeName: 'node-a' } });
    s.run('web-5', 'node-b');
    s.api.store.patch(
      s.podType,
      'default',
      'web-5',
      'application/merge-patch+json',
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      { subresource: 'status' },
    );
    reconcileDeployments(s.api.store);
    const order: string[] = [];
    // Act: one at a time, each deletion in its own pass.
    for (const replicas of [5, 4, 3]) {
      const before = new Set(s.names());
      s.deployment('web', replicas);
      reconcileDeployments(s.api.store);
      order.push(...[...before].filter((n) => !s.names().includes(n)));
    }
    // Assess
    expect(order).toEqual(['web-3', 'web-4', 'web-5']);
    expect(s.names()).toEqual(['web-0', 'web-1', 'web-2']);
  });

  it('should delete the pod Ready for the shortest time first, by log2 buckets of the time', () => {
    // Prepare: one pod per node (same rank); web-0 Ready for 2 h, web-1 for 1 min, web-2 for 1 h.
    const s = setup();
    s.deployment('web', 3);
    reconcileDeployments(s.api.store);
    s.clock.advance(T0 + 2 * 3600_000);
    const ago = (seconds: number) => new Date(s.clock.now() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    s.run('web-0', 'node-a', ago(7200));
    s.run('web-1', 'node-b', ago(60));
    s.run('web-2', 'node-c', ago(3600));
    reconcileDeployments(s.api.store);
    // Act
    s.deployment('web', 1);
    reconcileDeployments(s.api.store);
    // Assess: web-1 (shortest) and web-2 went; web-0, the longest Ready, stays.
    expect(s.names()).toEqual(['web-0']);
  });

  it('should delete the pod with more container restarts first when both became Ready at the same time', () => {
    // Prepare: one pod per node (same rank), Ready at the same time; web-0 restarted 4 times.
    const s = setup();
    s.deployment('web', 2);
    reconcileDeployments(s.api.store);
    s.run('web-0', 'node-a');
    s.run('web-1', 'node-b');
    s.api.store.patch(
      s.podType,
      'default',
      'web-0',
      'application/merge-patch+json',
      { status: { containerStatuses: [{ name: 'c', restartCount: 4 }] } },
      {
        subresource: 'status',
      },
    );
    reconcileDeployments(s.api.store);
    // Act
    s.deployment('web', 1);
    reconcileDeployments(s.api.store);
    // Assess
    expect(s.names()).toEqual(['web-1']);
  });

  it('should read pod-deletion-cost as kube does: an int32 in plain decimal, anything else 0', () => {
    const pod = (v?: string): KubeObject => ({ metadata: { name: 'p', ...(v === undefined ? {} : { annotations: { [COST]: v } }) } });
    expect([undefined, '-3', '0', '100', '2147483647', '-2147483648'].map((v) => deletionCost(pod(v)))).toEqual([0, -3, 0, 100, 2147483647, -2147483648]);
    expect(['+5', '007', '2147483648', '1.5', 'abc', '', '-'].map((v) => deletionCost(pod(v)))).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('should create pods again under the lowest free names when scaled back up, and replace a deleted pod the same way', () => {
    // Prepare: node-b's pods deleted by a scale down to 6.
    const s = setup();
    threeByThree(s);
    for (const name of ['web-3', 'web-4', 'web-5']) s.annotate(name, { [COST]: '-3' });
    s.deployment('web', 6);
    reconcileDeployments(s.api.store);
    // Act
    s.deployment('web', 8);
    reconcileDeployments(s.api.store);
    const scaledUp = s.names();
    s.api.store.delete(s.podType, 'default', 'web-8', { gracePeriodSeconds: 0 });
    reconcileDeployments(s.api.store);
    // Assess
    expect(scaledUp).toEqual(['web-0', 'web-1', 'web-2', 'web-3', 'web-4', 'web-6', 'web-7', 'web-8']);
    expect(s.names()).toEqual(['web-0', 'web-1', 'web-2', 'web-3', 'web-4', 'web-5', 'web-6', 'web-7']);
    expect(s.api.store.get(s.podType, 'default', 'web-5').status?.phase).toBe('Pending');
  });

  it('should not count pods deleted by a scale down as PDB violations, whatever their names', () => {
    // Prepare: a PDB wanting all 9; the pods of node-a (web-0..2) are the cheapest to delete.
    const s = setup();
    const observer = new ClusterObserver(s.api, s.clock);
    observer.start();
    s.api.apply({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 9, selector: { matchLabels: { app: 'web' } } },
    });
    for (const node of ['node-a', 'node-b', 'node-c']) s.api.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
    threeByThree(s);
    for (const name of ['web-0', 'web-1', 'web-2']) s.annotate(name, { [COST]: '-1' });
    // Act
    s.deployment('web', 6);
    reconcileDeployments(s.api.store);
    s.api.store.delete(s.podType, 'default', 'web-3', { gracePeriodSeconds: 0 });
    // Assess: the scale down is on purpose; the deletion of web-3 afterwards is a disruption under the PDB.
    expect(s.byNode()).toEqual({ 'node-b': ['web-4', 'web-5'], 'node-c': ['web-6', 'web-7', 'web-8'] });
    expect(observer.violations).toEqual({ pdb: 1, doNotDisrupt: 0, podsLost: 0 });
  });
});

describe('scale down in a scenario', () => {
  it('should not report the pods a scale down removes as disruptions or violations', async () => {
    // Prepare: nine replicas under a PDB that wants all nine, scaled to 3, up to 6 and down to 2.
    const yaml = `name: scale-down
seed: 5
duration: 20m
objects: |
${objects(
  `${nodePool('default', ['{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}'])}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}`,
  NODE_CLASS,
  deployment('web', 'pause', '{cpu: 500m}'),
  `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 9
  selector: {matchLabels: {app: web}}`,
)}
events:
  - {at: 1s, scale: {deployment: default/web, replicas: 9}}
  - {at: 4m, scale: {deployment: default/web, replicas: 3}}
  - {at: 8m, scale: {deployment: default/web, replicas: 6}}
  - {at: 12m, scale: {deployment: default/web, replicas: 2}}
`;
    // Act
    const r = await runScenario(parseScenario(yaml, 'scale-down.yaml'));
    // Assess
    expect(r.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: 0 });
    expect(r.final).toMatchObject({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
  }, 120_000);
});
