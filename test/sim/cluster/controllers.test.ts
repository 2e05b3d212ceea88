import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { Ec2World } from '../../../shared/sim/aws/ec2-world';
import {
  collectOrphanPods,
  kubeletFromUserData,
  nodeObjectFor,
  reconcileDaemonSets,
  reconcileDeployments,
  runScheduler,
  startClusterControllers,
} from '../../../shared/sim/cluster';
import { FakeKubeApi } from '../../../shared/sim/kube';
import type { KubeObject } from '../../../shared/sim/kube';

const T0 = Date.UTC(2025, 0, 1);

function setup() {
  const clock = new VirtualClock(T0);
  const api = new FakeKubeApi({ clock: () => clock.now() });
  const world = new Ec2World({ region: 'us-east-1', zones: ['us-east-1a', 'us-east-1b'], clusterName: 'sim', seed: 1, clock, catalog: loadCatalog() });
  const nodes = api.store.typeOf('v1', 'Node');
  const addNode = (type: string, zone: string, opts: { taints?: string; labels?: string } = {}) => {
    const subnet = world.subnets.find((s) => s.zone === zone);
    const userData = `--node-labels=${opts.labels ?? 'karpenter.sh/nodepool=default'} --register-with-taints=${opts.taints ?? ''}`;
    const i = world.launch({
      type,
      zone,
      subnetId: subnet?.id ?? '',
      capacityType: 'on-demand',
      imageId: 'ami-1',
      securityGroupIds: [],
      tags: {},
      clientToken: `${type}-${zone}-${opts.taints ?? ''}`,
      userData,
    });
    const node = nodeObjectFor(world, i, api.store.timestamp());
    node.spec = { ...node.spec, taints: ((node.spec?.taints as { key: string }[]) ?? []).filter((t) => t.key !== 'karpenter.sh/unregistered') };
    return api.store.create(nodes, undefined, node);
  };
  const deployment = (name: string, replicas: number, spec: Record<string, unknown>): KubeObject =>
    api.apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec } },
    });
  const pods = () => api.store.list(api.store.typeOf('v1', 'Pod')).items;
  return { clock, api, world, addNode, deployment, pods };
}

const container = (cpu: string) => ({ containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu } } }] });

describe('simulated kube-side controllers', () => {
  it("should name a Deployment's pods <name>-<i>, recreate a deleted one and remove extras on scale down", () => {
    // Prepare
    const { api, deployment, pods } = setup();
    deployment('inflate', 3, container('1'));
    reconcileDeployments(api.store);
    // Act
    api.store.delete(api.store.typeOf('v1', 'Pod'), 'default', 'inflate-1', { gracePeriodSeconds: 0 });
    reconcileDeployments(api.store);
    const afterDelete = pods()
      .map((p) => p.metadata.name)
      .sort();
    deployment('inflate', 1, container('1'));
    reconcileDeployments(api.store);
    // Assess
    expect(afterDelete).toEqual(['inflate-0', 'inflate-1', 'inflate-2']);
    // which pod stays is kube's tie order among equal pods (none set): one of them
    expect(pods().map((p) => p.metadata.name)).toEqual([expect.stringMatching(/^inflate-[0-2]$/)]);
  });

  it('should count ready replicas from pod writes between passes, and recreate a pod deleted after the Deployment settled', () => {
    // Prepare
    const { api, addNode, deployment } = setup();
    const podType = api.store.typeOf('v1', 'Pod');
    const deploymentType = api.store.typeOf('apps/v1', 'Deployment');
    addNode('m5.xlarge', 'us-east-1a');
    deployment('web', 3, container('1'));
    reconcileDeployments(api.store);
    runScheduler(api.store);
    const running = (name: string) =>
      api.store.patch(podType, 'default', name, 'application/merge-patch+json', { status: { phase: 'Running' } }, { subresource: 'status' });
    // Act
    for (const name of ['web-0', 'web-1', 'web-2']) running(name);
    reconcileDeployments(api.store);
    const readyWhenRunning = api.store.get(deploymentType, 'default', 'web').status?.readyReplicas;
    api.store.delete(podType, 'default', 'web-2', { gracePeriodSeconds: 0 });
    reconcileDeployments(api.store);
    const recreated = api.store.get(podType, 'default', 'web-2');
    const readyAfterDelete = api.store.get(deploymentType, 'default', 'web').status?.readyReplicas;
    // Assess
    expect(readyWhenRunning).toBe(3);
    expect(recreated.spec?.nodeName).toBeUndefined();
    expect(recreated.status?.phase).toBe('Pending');
    expect(readyAfterDelete).toBe(2);
  });

  it('should delete the pods of a Node once the Node object is removed (pod GC), and the Deployment recreates them', () => {
    // Prepare
    const { api, addNode, deployment, pods } = setup();
    const node = addNode('m5.xlarge', 'us-east-1a');
    const nodeType = api.store.typeOf('v1', 'Node');
    api.store.patch(nodeType, undefined, node.metadata.name ?? '', 'application/merge-patch+json', { metadata: { finalizers: ['karpenter.sh/termination'] } });
    deployment('inflate', 2, container('1'));
    reconcileDeployments(api.store);
    runScheduler(api.store);
    const lost: string[] = [];
    // Act
    api.store.delete(nodeType, undefined, node.metadata.name ?? '');
    const whileMarked = collectOrphanPods(api.store, { onPodLost: (p) => lost.push(p) });
    api.store.patch(nodeType, undefined, node.metadata.name ?? '', 'application/merge-patch+json', { metadata: { finalizers: null } });
    const afterRemoval = collectOrphanPods(api.store, { onPodLost: (p) => lost.push(p) });
    reconcileDeployments(api.store);
    // Assess
    expect(whileMarked).toBe(0);
    expect(afterRemoval).toBe(2);
    expect(lost.sort()).toEqual(['default/inflate-0', 'default/inflate-1']);
    expect(pods().map((p) => [p.metadata.name, p.spec?.nodeName ?? null])).toEqual([
      ['inflate-0', null],
      ['inflate-1', null],
    ]);
  });

  it('should collect a pod bound to a node that is not there, and the pods of a node removed later, while the controllers run', async () => {
    // Prepare
    const { clock, api, world, addNode, pods } = setup();
    const node = addNode('m5.xlarge', 'us-east-1a');
    const podType = api.store.typeOf('v1', 'Pod');
    const nodeType = api.store.typeOf('v1', 'Node');
    const lost: string[] = [];
    const stop = startClusterControllers(clock, world, api.store, { startupSeconds: 1, onPodLost: (p) => lost.push(p) });
    const bound = (name: string, nodeName: string) =>
      api.store.create(podType, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, ...container('1') } });
    const later = async (ms: number) => {
      await settle(clock);
      clock.advance(clock.now() + ms);
      await settle(clock);
    };
    try {
      // Act: a pod written bound to a node that does not exist, one bound to a node that does
      bound('stray', 'ip-10-9-9-9.ec2.internal');
      bound('kept', node.metadata.name ?? '');
      await later(1000);
      const first = pods().map((p) => p.metadata.name);
      // Act: the node goes
      api.store.delete(nodeType, undefined, node.metadata.name ?? '');
      await later(1000);
      // Assess
      expect(first).toEqual(['kept']);
      expect(pods()).toEqual([]);
      expect(lost).toEqual(['default/stray', 'default/kept']);
    } finally {
      stop();
    }
  });

  it('should bind pods that fit and mark the rest Unschedulable with the reasons', () => {
    // Prepare
    const { api, addNode, deployment, pods } = setup();
    addNode('m5.large', 'us-east-1a');
    deployment('inflate', 3, container('1'));
    reconcileDeployments(api.store);
    // Act
    const result = runScheduler(api.store);
    // Assess
    expect(result.bound).toHaveLength(1);
    expect(result.unschedulable).toHaveLength(2);
    const pending = pods().find((p) => !(p.spec as { nodeName?: string }).nodeName);
    expect((pending?.status as { conditions: { type: string; status: string; reason?: string; message?: string }[] }).conditions).toContainEqual(
      expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: expect.stringContaining('Insufficient cpu') }),
    );
  });

  it("should try a pod that did not fit again only after kube-scheduler's backoff and a cluster event", () => {
    // Prepare: one pod, no node
    const { clock, api, addNode, deployment } = setup();
    deployment('inflate', 1, container('1'));
    reconcileDeployments(api.store);
    const first = runScheduler(api.store);
    // Act: a node arrives half a second later, inside the pod's 1 s backoff
    clock.advance(T0 + 500);
    addNode('m5.large', 'us-east-1a');
    const early = runScheduler(api.store);
    clock.advance(T0 + 1_000);
    const due = runScheduler(api.store);
    // Assess: without a cluster event the pod would wait for the 5-minute flush
    expect(first).toMatchObject({ unschedulable: ['default/inflate-0'], retryAt: T0 + 300_000 });
    expect(early).toMatchObject({ bound: [], unschedulable: [], retryAt: T0 + 1_000 });
    expect(due.bound).toEqual([{ pod: 'default/inflate-0', node: expect.any(String) }]);
  });

  it('should see, at its next pass, a node written and a pod gone since the last one (it keeps its nodes between passes)', () => {
    // Prepare: two nodes of one CPU's room each, filled by a first pass
    const { clock, api, addNode, deployment } = setup();
    const nodeType = api.store.typeOf('v1', 'Node');
    const a = addNode('m5.large', 'us-east-1a');
    const b = addNode('m5.large', 'us-east-1b');
    deployment('web', 2, container('1'));
    reconcileDeployments(api.store);
    const filled = runScheduler(api.store);
    // Act: node a is cordoned and the pod on b deleted; a new pod arrives
    const onA = filled.bound.find((x) => x.node === a.metadata.name)?.pod.split('/')[1] as string;
    const onB = filled.bound.find((x) => x.node === b.metadata.name)?.pod.split('/')[1] as string;
    api.store.update(nodeType, undefined, a.metadata.name as string, {
      ...api.store.get(nodeType, undefined, a.metadata.name as string),
      spec: { unschedulable: true },
    });
    api.store.delete(api.store.typeOf('v1', 'Pod'), 'default', onA, { gracePeriodSeconds: 0 });
    api.store.delete(api.store.typeOf('v1', 'Pod'), 'default', onB, { gracePeriodSeconds: 0 });
    clock.advance(T0 + 1_000);
    reconcileDeployments(api.store);
    const next = runScheduler(api.store);
    // Assess: both replacements go to b, which has room again; a is cordoned, though its pod is gone
    expect(filled.bound).toHaveLength(2);
    expect(next.bound.map((x) => x.node)).toEqual([b.metadata.name]);
    expect(next.unschedulable).toHaveLength(1);
  });

  it.each([
    ['nominated to the big node, it binds there and the others keep off its room (one small pod waits for a node)', true],
    ['not nominated, the small pods spread onto the big node first and it fits nowhere', false],
  ])('should place a pending pod by its status.nominatedNodeName (kube-scheduler ≥ 1.35): %s', (_, nominate) => {
    // Prepare: a 2-CPU and an 8-CPU node; three 1-CPU pods created before a 6-CPU pod that only the big node holds
    const { clock, api, addNode, deployment, pods } = setup();
    addNode('m5.large', 'us-east-1a');
    const big = addNode('m5.2xlarge', 'us-east-1b');
    deployment('small', 3, container('1'));
    reconcileDeployments(api.store);
    clock.advance(T0 + 1_000);
    deployment('db', 1, container('6'));
    reconcileDeployments(api.store);
    if (nominate) {
      const podType = api.store.typeOf('v1', 'Pod');
      const db = pods().find((p) => p.metadata.name === 'db-0')!;
      api.store.update(
        podType,
        'default',
        'db-0',
        { ...db, status: { ...(db.status ?? {}), nominatedNodeName: big.metadata.name } },
        { subresource: 'status' },
      );
    }
    // Act
    const result = runScheduler(api.store);
    // Assess
    const db = result.bound.find((b) => b.pod === 'default/db-0');
    if (nominate) {
      expect(db?.node).toBe(big.metadata.name);
      expect(result.unschedulable).toHaveLength(1);
      expect(result.unschedulable[0]).toMatch(/^default\/small-/);
    } else {
      expect(db).toBeUndefined();
      expect(result.unschedulable).toEqual(['default/db-0']);
    }
  });

  it('should keep pods off nodes with untolerated taints, including karpenter.sh/disrupted', () => {
    // Prepare
    const { api, addNode, deployment } = setup();
    addNode('m5.xlarge', 'us-east-1a', { taints: 'karpenter.sh/disrupted:NoSchedule' });
    addNode('m5.xlarge', 'us-east-1b', { taints: 'gpu=true:NoSchedule' });
    deployment('web', 1, container('100m'));
    deployment('gpu', 1, { ...container('100m'), tolerations: [{ key: 'gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }] });
    reconcileDeployments(api.store);
    // Act
    const result = runScheduler(api.store);
    // Assess
    expect(result.bound.map((b) => b.pod)).toEqual(['default/gpu-0']);
    expect(result.unschedulable).toEqual(['default/web-0']);
  });

  it('should honour required anti-affinity on hostname and DoNotSchedule zone spread', () => {
    // Prepare
    const { api, addNode, deployment } = setup();
    addNode('m5.2xlarge', 'us-east-1a');
    addNode('m5.2xlarge', 'us-east-1b');
    deployment('solo', 3, {
      ...container('100m'),
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'solo' } } }],
        },
      },
    });
    deployment('spread', 4, {
      ...container('100m'),
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } },
      ],
    });
    reconcileDeployments(api.store);
    // Act
    const result = runScheduler(api.store);
    // Assess
    const solo = result.bound.filter((b) => b.pod.startsWith('default/solo'));
    expect(new Set(solo.map((b) => b.node)).size).toBe(2);
    expect(result.unschedulable).toEqual(['default/solo-2']);
    const spread = result.bound.filter((b) => b.pod.startsWith('default/spread'));
    expect(spread.filter((b) => b.node.includes('.ec2.internal')).length).toBe(4);
    const perNode = new Map<string, number>();
    for (const b of spread) perNode.set(b.node, (perNode.get(b.node) ?? 0) + 1);
    expect([...perNode.values()]).toEqual([2, 2]);
  });

  it('should keep new pods out of the zone of a bound pod whose anti-affinity selects them, and off a node a pod of theirs already holds', () => {
    // Prepare: a db bound in an earlier pass that repels app=web from its zone; web spreads one per node
    const { api, addNode, deployment } = setup();
    for (const zone of ['us-east-1a', 'us-east-1a', 'us-east-1b', 'us-east-1b']) addNode('m5.2xlarge', zone);
    deployment('db', 1, {
      ...container('100m'),
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: 'web' } } }],
        },
      },
    });
    reconcileDeployments(api.store);
    const db = runScheduler(api.store).bound[0];
    const antiWeb = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }],
      },
    };
    deployment('web', 3, { ...container('100m'), affinity: antiWeb });
    reconcileDeployments(api.store);
    // Act
    const result = runScheduler(api.store);
    // Assess: two web pods on the two nodes of the other zone, the third has nowhere to go
    const zoneOf = (node: string) => api.store.get(api.store.typeOf('v1', 'Node'), undefined, node).metadata.labels?.['topology.kubernetes.io/zone'];
    const otherZone = zoneOf(db.node) === 'us-east-1a' ? 'us-east-1b' : 'us-east-1a';
    expect(result.bound.map((b) => zoneOf(b.node))).toEqual([otherZone, otherZone]);
    expect(new Set(result.bound.map((b) => b.node)).size).toBe(2);
    expect(result.unschedulable).toHaveLength(1);
  });

  it('should run DaemonSet pods on nodes whose taints they tolerate', () => {
    // Prepare
    const { api, addNode, pods } = setup();
    addNode('m5.large', 'us-east-1a');
    addNode('m5.large', 'us-east-1b', { taints: 'dedicated=db:NoSchedule' });
    api.apply({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'kube-system' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: container('50m') } },
    });
    // Act
    reconcileDaemonSets(api.store);
    // Assess
    expect(pods().filter((p) => p.metadata.namespace === 'kube-system')).toHaveLength(1);
  });

  it('should read the kubelet labels, taints and max pods from AL2023 or Bottlerocket user data', () => {
    // Act
    const al = kubeletFromUserData(
      'kubelet:\n  flags:\n    - --node-labels=karpenter.sh/nodepool=default,team=a\n    - --register-with-taints=gpu=true:NoSchedule,karpenter.sh/unregistered:NoExecute\n  config: {"maxPods": 29}\n',
    );
    const br = kubeletFromUserData(
      '[settings.kubernetes]\nmax-pods = 17\n[settings.kubernetes.node-labels]\n"karpenter.sh/nodepool" = "br"\n[settings.kubernetes.node-taints]\n"gpu" = ["true:NoSchedule"]\n',
    );
    // Assess
    expect(al).toEqual({
      labels: { 'karpenter.sh/nodepool': 'default', team: 'a' },
      taints: [
        { key: 'gpu', value: 'true', effect: 'NoSchedule' },
        { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
      ],
      maxPods: 29,
    });
    expect(br.labels).toEqual({ 'karpenter.sh/nodepool': 'br' });
    expect(br.taints).toContainEqual({ key: 'gpu', value: 'true', effect: 'NoSchedule' });
    expect(br.maxPods).toBe(17);
  });
});

describe('simulated rolling update', () => {
  it('should replace pods of an older template while at most maxUnavailable are not ready', () => {
    // Prepare
    const { api, addNode, deployment, pods } = setup();
    addNode('m5.4xlarge', 'us-east-1a');
    deployment('web', 4, container('100m'));
    reconcileDeployments(api.store);
    runScheduler(api.store);
    const hashes = () => pods().map((p) => p.metadata.labels?.['pod-template-hash']);
    const before = new Set(hashes());
    // Act
    deployment('web', 4, container('200m'));
    reconcileDeployments(api.store);
    const firstStep = hashes().filter((h) => !before.has(h)).length;
    for (let i = 0; i < 6; i++) {
      runScheduler(api.store);
      reconcileDeployments(api.store);
    }
    // Assess
    expect(firstStep).toBe(1);
    expect(new Set(hashes()).size).toBe(1);
    expect(before.has(hashes()[0])).toBe(false);
    expect(pods()).toHaveLength(4);
  });
});

describe('simulated owners', () => {
  it('should keep a ReplicaSet per template for PDB accounting and remove pods and ReplicaSets of a deleted Deployment', () => {
    // Prepare
    const { api, deployment, pods } = setup();
    deployment('web', 2, container('100m'));
    reconcileDeployments(api.store);
    const rsType = api.store.typeOf('apps/v1', 'ReplicaSet');
    const replicaSets = api.store.list(rsType).items;
    // Act
    api.remove('apps/v1', 'Deployment', 'web', 'default');
    reconcileDeployments(api.store);
    // Assess
    expect(replicaSets).toHaveLength(1);
    expect(replicaSets[0].spec).toMatchObject({ replicas: 2 });
    expect(replicaSets[0].metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'web', controller: true })]);
    expect(pods()).toEqual([]);
    expect(api.store.list(rsType).items).toEqual([]);
  });
});
