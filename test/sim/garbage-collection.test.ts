/**
 * Garbage collection in the simulator, against what EC2 and the API server really do: DescribeInstances lagging
 * behind CreateFleet (fault `lag`), and a stored NodeClaim the current schema rejects.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, runScenario, worldForScenario, type SimulationResult, type SimWorld } from '../../shared/sim';
import type { CapturedLog } from '../../shared/sim/runtime/production';
import { applyObjects } from '../../shared/sim/scenario/events';
import { kubeTypes, listAll, podNodeName } from '../../shared/sim/cluster/kube-objects';
import { expectClean } from './shipped/helpers';
import { runFor } from './fixtures/time';

const POOL_AND_CLASS = `
  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        requirements:
          - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
          - {key: node.kubernetes.io/instance-type, operator: In, values: [m6i.large]}
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
    disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 1h}
  ---
  apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    role: KarpenterNodeRole-demo
    amiSelectorTerms: [{alias: al2023@latest}]
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: nodewright-sim}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: nodewright-sim}}]
  ---
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app}
  spec:
    replicas: 0
    selector: {matchLabels: {app: app}}
    template:
      metadata: {labels: {app: app}}
      spec:
        terminationGracePeriodSeconds: 0
        containers:
          - name: c
            image: pause
            resources: {requests: {cpu: 1500m}}`;

async function run(name: string, duration: string, events: string, faults = ''): Promise<SimulationResult> {
  const yaml = `name: ${name}\nseed: 5\nduration: ${duration}\nsettings: {nodeStartup: 60s}\nobjects: |\n${POOL_AND_CLASS}\nevents:\n${events}\n${faults}`;
  return runScenario(parseScenario(yaml, `${name}.yaml`));
}

describe('garbage collection in the simulator', () => {
  let world: SimWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('should keep the node of a NodeClaim stored under a schema this version rejects, and report the claim', async () => {
    // Prepare: two pods on their own nodes; then one claim is rewritten as a newer Karpenter's CRD allows (an
    // operator this version does not know) — stored, listed by the API server, unreadable here.
    const scenario = parseScenario(`name: unreadable\nseed: 5\nsettings: {nodeStartup: 35s}\nobjects: |\n${POOL_AND_CLASS}\n`, 'unreadable.yaml');
    const logs: CapturedLog[] = [];
    world = await worldForScenario(scenario, { onLog: (l) => logs.push(l) });
    applyObjects(world, scenario.objects);
    const store = world.api.store;
    const deploy = store.typeOf('apps/v1', 'Deployment');
    store.patch(deploy, 'default', 'app', 'application/merge-patch+json', { spec: { replicas: 2 } });
    await runFor(world, 150);
    const claimType = store.typeOf('karpenter.sh/v1', 'NodeClaim');
    const claims = listAll(store, claimType);
    expect(claims).toHaveLength(2);
    const victim = claims[0].metadata.name as string;
    const requirements = [{ key: 'karpenter.k8s.aws/instance-generation', operator: 'Matches', values: ['6'] }];
    // As etcd keeps an object written under another CRD version: no validation on the way in (store internals).
    const stored = (store as unknown as { bucket(rt: typeof claimType): Map<string, { spec: Record<string, unknown> }> }).bucket(claimType).get(victim);
    stored!.spec.requirements = requirements;

    // Act: three garbage-collection runs.
    await runFor(world, 6 * 60);

    // Assess: no instance terminated, no pod lost, and the claim named with what failed to parse.
    const terminated = [...world.ec2.instances.values()].filter((i) => i.state !== 'running');
    expect(terminated.map((i) => i.tags['karpenter.sh/nodeclaim'])).toEqual([]);
    expect(world.lostPods).toEqual([]);
    expect(listAll(store, kubeTypes(store).pod).filter((p) => podNodeName(p))).toHaveLength(2);
    const warned = logs.filter((l) => l.level === 'WARN' && l.message === 'nodeclaim exists but cannot be read; keeping its instance');
    expect(warned.length).toBeGreaterThan(0);
    expect(warned[0].fields).toMatchObject({ nodeclaim: victim, reason: expect.stringContaining('spec.requirements[0].operator') });
    const events = listAll(store, store.typeOf('v1', 'Event')).filter((e) => e.reason === 'NodeClaimValidationFailed');
    expect(events.map((e) => (e.involvedObject as { name: string }).name)).toEqual([victim]);
  }, 240_000);
  it('should launch 20 nodes for 20 pods, once each, while DescribeInstances lags CreateFleet by 60 s', async () => {
    // Prepare: 20 pods that need a node each, scaled up 40 s before garbage collection's first run (t=120 s), so
    // every launch is past the 30 s orphan grace and still invisible to DescribeInstances when it runs.
    const events = '  - {at: 1m20s, scale: {deployment: default/app, replicas: 20}}';
    const faults = 'faults:\n  - {at: 0s, for: 20m, target: ec2, kind: lag, lag: 60s}';

    // Act
    const r = await run('describe-lag', '12m', events, faults);

    // Assess: one launch per node, none removed again, every pod placed within seconds of being pending.
    expectClean(r);
    expect(r.faults?.find((f) => f.kind === 'lag')?.count).toBeGreaterThanOrEqual(20);
    expect(r.nodes).toHaveLength(20);
    expect(r.nodes.filter((n) => n.terminatedAt !== undefined)).toEqual([]);
    // 20 launches at once: 19 of them start a cold launch sandbox (one is kept warm), then CreateFleet's 2 s.
    expect(r.pods.launchLatencySecondsP50).toBeLessThanOrEqual(8);
    expect(r.final).toMatchObject({ nodes: 20, pendingPods: 0 });
  }, 240_000);
});
