import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';

import { runFor as runWorldFor } from './fixtures/time';
import { kubeTypes, listAll, podNodeName } from '../../shared/sim/cluster/kube-objects';
import { applyObjects } from '../../shared/sim/scenario/events';
import { ClusterObserver } from '../../shared/sim/scenario/observe';
import type { KubeObject } from '../../shared/sim/kube/types';
import { NODE_CLASS, nodePool, objects } from './fixtures/objects';

// Three replicas under a PDB that allows one disruption at a time: a drain must wait for each evicted pod to
// run elsewhere before evicting the next.
const SCENARIO = `
name: finalizers
objects: |
${objects(
  nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']),
  NODE_CLASS,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate}
spec:
  replicas: 3
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
      containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1"}}}]`,
  `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: inflate}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: inflate}}`,
)}
`;

const FINALIZER = 'karpenter.sh/termination';

describe('kubectl delete of a NodeClaim or a Node (karpenter.sh/termination finalizer)', () => {
  let world: SimWorld;
  let observer: ClusterObserver;
  let stopObserver: () => void;

  const types = () => kubeTypes(world.api.store);
  const claims = () => listAll(world.api.store, types().nodeClaim);
  const nodes = () => listAll(world.api.store, types().node);
  const pods = () => listAll(world.api.store, types().pod).filter((p) => p.metadata.labels?.app === 'inflate');
  const running = () =>
    pods().filter((p) => podNodeName(p) && (p.status as { phase?: string } | undefined)?.phase === 'Running' && !p.metadata.deletionTimestamp);
  const claimOf = (node: KubeObject) => claims().find((c) => (c.status as { nodeName?: string } | undefined)?.nodeName === node.metadata.name);

  const runFor = (seconds: number) => runWorldFor(world, seconds);

  async function runUntil(done: () => boolean, maxSeconds: number): Promise<number> {
    const start = world.clock.elapsedSeconds();
    while (!done() && world.clock.elapsedSeconds() - start < maxSeconds) await runFor(5);
    return world.clock.elapsedSeconds() - start;
  }

  /** The one node running every inflate pod, its claim, and the pods Running there. */
  function placement(): { node: string; claim: string } {
    const on = new Set(running().map(podNodeName));
    expect(on.size).toBe(1);
    const node = nodes().find((n) => n.metadata.name === [...on][0]) as KubeObject;
    return { node: node.metadata.name as string, claim: claimOf(node)?.metadata.name as string };
  }

  function finalState() {
    const live = [...world.ec2.instances.values()].filter((i) => i.state === 'pending' || i.state === 'running');
    const claimed = new Set(
      claims().map((c) =>
        String((c.status as { providerID?: string } | undefined)?.providerID ?? '')
          .split('/')
          .pop(),
      ),
    );
    const state = new Map([...world.ec2.instances.values()].map((i) => [i.id, i.state]));
    const leaked = claims().filter((c) => {
      const id =
        String((c.status as { providerID?: string } | undefined)?.providerID ?? '')
          .split('/')
          .pop() ?? '';
      return id !== '' && (state.get(id) === undefined || state.get(id) === 'terminated' || state.get(id) === 'shutting-down');
    });
    return { orphanInstances: live.filter((i) => !claimed.has(i.id)).length, leakedNodeClaims: leaked.length };
  }

  beforeEach(async () => {
    const scenario = parseScenario(SCENARIO, 'finalizers.yaml');
    world = await worldForScenario(scenario);
    observer = new ClusterObserver(world.api, world.clock);
    stopObserver = observer.start();
    applyObjects(world, scenario.objects);
    await runUntil(() => running().length === 3 && nodes().length === 1, 600);
  }, 60_000);

  afterEach(async () => {
    stopObserver();
    await world.close();
  });

  it('should put the finalizer on the NodeClaim and its Node', () => {
    // Act
    const { node, claim } = placement();
    // Assess
    expect(world.api.store.get(types().nodeClaim, undefined, claim).metadata.finalizers).toEqual([FINALIZER]);
    expect(world.api.store.get(types().node, undefined, node).metadata.finalizers).toEqual([FINALIZER]);
  });

  it('should drain, terminate and let go when the NodeClaim is deleted, then again when the replacement Node is deleted', async () => {
    // Prepare
    const first = placement();

    // Act: kubectl delete nodeclaim (the API server only marks it)
    const deletedAt = world.clock.now();
    const marked = world.api.store.delete(types().nodeClaim, undefined, first.claim);
    const firstGone = await runUntil(
      () => !claims().some((c) => c.metadata.name === first.claim) && !nodes().some((n) => n.metadata.name === first.node) && running().length === 3,
      900,
    );
    const second = placement();

    // Act: kubectl delete node on the replacement
    const nodeDeletedAt = world.clock.now();
    const markedNode = world.api.store.delete(types().node, undefined, second.node);
    const secondGone = await runUntil(
      () => !claims().some((c) => c.metadata.name === second.claim) && !nodes().some((n) => n.metadata.name === second.node) && running().length === 3,
      900,
    );
    const third = placement();
    await runFor(180); // one more garbage-collection run: nothing left for it to do

    // Assess
    expect(marked.gone).toBe(false);
    expect(marked.object.metadata.deletionTimestamp).toBeDefined();
    expect(markedNode.gone).toBe(false);
    expect(firstGone).toBeLessThan(900);
    expect(secondGone).toBeLessThan(900);
    // The controller's watch sees each deletion: its drain starts within 2 s, not at the next garbage collection.
    const terminateOf = (claim: string) => world.stepFunctions.executions.find((e) => e.machine === 'terminate' && e.input.includes(`"${claim}"`));
    expect(terminateOf(first.claim)!.startedMs - deletedAt).toBeLessThanOrEqual(2_000);
    expect(terminateOf(second.claim)!.startedMs - nodeDeletedAt).toBeLessThanOrEqual(2_000);
    expect(new Set([first.node, second.node, third.node]).size).toBe(3);
    expect(running()).toHaveLength(3);
    expect(observer.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: 0 });
    expect(world.lostPods).toEqual([]);
    expect(finalState()).toEqual({ orphanInstances: 0, leakedNodeClaims: 0 });
    const terminates = world.stepFunctions.executions.filter((e) => e.machine === 'terminate');
    expect(terminates.map((e) => [JSON.parse(e.input) as unknown, e.status])).toEqual([
      [{ nodeClaimName: first.claim, reason: 'Deleted' }, 'SUCCEEDED'],
      [{ nodeClaimName: second.claim, reason: 'Deleted' }, 'SUCCEEDED'],
    ]);
    expect([...world.ec2.instances.values()].filter((i) => i.state === 'running').map((i) => i.privateDnsName)).toEqual([third.node]);
  }, 120_000);
});
