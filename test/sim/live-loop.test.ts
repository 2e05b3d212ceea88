/**
 * The live loop over many rounds (issue: "the live loop, as faithful as the plan"): each scenario runs the deployed
 * handlers and ASL in the simulator with events at odd seconds, and asserts what a Karpenter user would see.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario, type SimulationResult } from '../../shared/sim';
import { expectClean } from './shipped/helpers';

const POOL_AND_CLASS = `
  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        requirements:
          - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
    disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
  ---
  apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    role: KarpenterNodeRole-demo
    amiSelectorTerms: [{alias: al2023@latest}]
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: nodewright-sim}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: nodewright-sim}}]`;

function deployment(name: string, spec: string, replicas = 0): string {
  return `
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ${name}}
  spec:
    replicas: ${replicas}
    selector: {matchLabels: {app: ${name}}}
    template:
      metadata: {labels: {app: ${name}}}
      spec:
        terminationGracePeriodSeconds: 0
${spec}
        containers:
          - name: c
            image: pause
            resources: {requests: {cpu: 500m}}`;
}

async function run(name: string, duration: string, objects: string[], events: string): Promise<SimulationResult> {
  const yaml = `name: ${name}\nseed: 3\nduration: ${duration}\nsettings: {nodeStartup: 35s}\nobjects: |\n${objects.join('\n  ---')}\nevents:\n${events}`;
  return runScenario(parseScenario(yaml, `${name}.yaml`));
}

const launches = (r: SimulationResult) => r.events.filter((e) => e.message === 'launched nodeclaim');

describe('the live loop over many rounds', () => {
  it('should give pods that select instance-type labels the in-flight claim that fits them, not a second node', async () => {
    // Prepare: two pods select family and CPU count; a third arrives while their claim is in flight, before its node registers.
    const selectors = `        nodeSelector: {karpenter.k8s.aws/instance-family: m6i, karpenter.k8s.aws/instance-cpu: "4"}`;

    // Act
    const r = await run(
      'labels',
      '6m',
      [POOL_AND_CLASS, deployment('sel', selectors)],
      ['  - {at: 33s, scale: {deployment: default/sel, replicas: 2}}', '  - {at: 1m17s, scale: {deployment: default/sel, replicas: 3}}'].join('\n'),
    );

    // Assess: one m6i.xlarge holds all three (1.5 vCPU of 4), and nothing was launched and removed again.
    expectClean(r);
    expect(launches(r)).toHaveLength(1);
    expect(launches(r)[0].fields['instance-type']).toBe('m6i.xlarge');
    expect(r.disruptions).toEqual([]);
    expect(r.final).toMatchObject({ nodes: 1, pendingPods: 0 });
  }, 120_000);

  it('should drain and remove the nodes of a deleted NodePool (its NodeClaims are owned by it), and let the EC2NodeClass go after them', async () => {
    // Prepare
    const events = [
      '  - {at: 41s, scale: {deployment: default/app, replicas: 3}}',
      '  - {at: 4m13s, delete: {kind: Deployment, name: default/app}}',
      '  - {at: 4m27s, delete: {kind: NodePool, name: default}}',
      '  - {at: 4m29s, delete: {kind: EC2NodeClass, name: default, apiVersion: karpenter.k8s.aws/v1}}',
    ].join('\n');

    // Act
    const r = await run('delete-pool', '12m', [POOL_AND_CLASS, deployment('app', '')], events);

    // Assess: the node went through the termination finalizer within a minute, nothing is left, and the class
    // was released only after its claims were gone.
    expectClean(r);
    expect(r.nodes.length).toBeGreaterThan(0);
    for (const n of r.nodes) {
      expect(n.terminatedAt).toBeDefined();
      expect(n.terminatedAt!).toBeLessThan(4 * 60 + 27 + 60);
    }
    expect(r.final.nodes).toBe(0);
    const released = r.events.find((e) => e.message === 'deleted ec2nodeclass');
    const lastClaimGone = Math.max(...r.events.filter((e) => e.message === 'deleted nodeclaim').map((e) => e.t));
    expect(released).toBeDefined();
    expect(released!.t).toBeGreaterThanOrEqual(lastClaimGone);
  }, 120_000);

  it('should replace every node within seconds of its EC2NodeClass changing (static drift on the class hash every claim carries)', async () => {
    // Prepare: Karpenter's drift e2e changes userData, tags, metadataOptions …; one of them here.
    const changed = POOL_AND_CLASS.replace('    role: KarpenterNodeRole-demo', '    role: KarpenterNodeRole-demo\n    tags: {team: drift-test}')
      .split('\n')
      .map((l) => l.slice(2))
      .join('\n');
    const events = [
      '  - {at: 37s, scale: {deployment: default/app, replicas: 2}}',
      `  - at: 5m11s\n    apply: |\n${changed
        .split('\n')
        .map((l) => `      ${l}`)
        .join('\n')}`,
    ].join('\n');

    // Act
    const r = await run('static-drift', '16m', [POOL_AND_CLASS, deployment('app', '')], events);

    // Assess
    expectClean(r);
    const drifted = r.disruptions.filter((d) => d.reason === 'drifted');
    expect(drifted.length).toBeGreaterThan(0);
    expect(drifted[0].t).toBeLessThanOrEqual(5 * 60 + 11 + 30); // the controller watches EC2NodeClasses: within seconds
    const original = r.nodes.filter((n) => n.launchedAt < 5 * 60);
    expect(original.length).toBeGreaterThan(0);
    for (const n of original) expect(n.terminationReason).toMatch(/drift/i);
    expect(r.final.pendingPods).toBe(0);
    expect(r.final.nodes).toBeGreaterThan(0);
  }, 120_000);

  it('should launch for pods already pending within seconds of their NodePool being applied', async () => {
    // Prepare: the pods wait with no NodePool; the pool arrives at an odd second.
    const [pool, nodeClass] = POOL_AND_CLASS.split('  ---');
    const poolYaml = pool
      .split('\n')
      .map((l) => `      ${l.slice(2)}`)
      .join('\n');

    // Act
    const r = await run(
      'late-pool',
      '4m',
      [nodeClass, deployment('app', '')],
      ['  - {at: 21s, scale: {deployment: default/app, replicas: 2}}', `  - at: 1m43s\n    apply: |${poolYaml}`].join('\n'),
    );

    // Assess
    expectClean(r);
    expect(launches(r)).toHaveLength(1);
    expect(launches(r)[0].t).toBeLessThanOrEqual(103 + 5);
    expect(r.final.pendingPods).toBe(0);
  }, 120_000);

  it('should expire a node within 30 s of its expireAfter, not at the next periodic pass', async () => {
    // Prepare
    const expiring = POOL_AND_CLASS.replace('        requirements:', '        expireAfter: 3m\n        requirements:');

    // Act
    const r = await run('expire', '8m', [expiring, deployment('app', '')], '  - {at: 37s, scale: {deployment: default/app, replicas: 2}}');

    // Assess
    expectClean(r);
    const first = r.nodes.reduce((a, b) => (a.launchedAt <= b.launchedAt ? a : b));
    const expired = r.disruptions.find((d) => d.reason === 'expired');
    expect(expired).toBeDefined();
    expect(expired!.t - first.launchedAt).toBeGreaterThanOrEqual(180 - 5); // the claim is created a few seconds before its instance
    expect(expired!.t - first.launchedAt).toBeLessThanOrEqual(180 + 30);
  }, 120_000);

  it('should remove empty nodes within 30 s of a blocking budget window closing', async () => {
    // Prepare: no disruption 09:00–09:12 UTC (the simulated clock starts at 09:00:00).
    const budgeted = POOL_AND_CLASS.replace(
      '    disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}',
      '    disruption:\n      consolidationPolicy: WhenEmpty\n      consolidateAfter: 30s\n      budgets: [{nodes: "0", schedule: "0 9 * * *", duration: 12m}]',
    );

    // Act
    const r = await run(
      'budget-window',
      '16m',
      [budgeted, deployment('app', '')],
      ['  - {at: 41s, scale: {deployment: default/app, replicas: 3}}', '  - {at: 4m13s, scale: {deployment: default/app, replicas: 0}}'].join('\n'),
    );

    // Assess
    expectClean(r);
    expect(r.disruptions.length).toBeGreaterThan(0);
    for (const d of r.disruptions) {
      expect(d.reason).toBe('empty');
      expect(d.t).toBeGreaterThanOrEqual(12 * 60);
      expect(d.t).toBeLessThanOrEqual(12 * 60 + 30);
    }
    expect(r.final.nodes).toBe(0);
  }, 120_000);

  it("should replace nodes within seconds of their NodePool's requirements excluding them (requirements drift)", async () => {
    // Prepare: the pool allows m only, then c only.
    const withCategory = (category: string) =>
      POOL_AND_CLASS.replace(
        'values: [on-demand]}',
        `values: [on-demand]}\n          - {key: karpenter.k8s.aws/instance-category, operator: In, values: [${category}]}`,
      );
    const changed = withCategory('c')
      .split('  ---')[0]
      .split('\n')
      .map((l) => `      ${l.slice(2)}`)
      .join('\n');

    // Act
    const r = await run(
      'requirements-drift',
      '10m',
      [withCategory('m'), deployment('web', '')],
      ['  - {at: 29s, scale: {deployment: default/web, replicas: 2}}', `  - at: 4m07s\n    apply: |${changed}`].join('\n'),
    );

    // Assess: drift replaces the m node with a c node within seconds of the change.
    expectClean(r);
    const drifted = r.disruptions.filter((d) => d.reason === 'drifted');
    expect(drifted.length).toBeGreaterThan(0);
    expect(drifted[0].t).toBeLessThanOrEqual(4 * 60 + 7 + 30);
    expect(r.nodes.filter((n) => !n.terminatedAt).map((n) => n.instanceType[0])).toEqual(['c']);
    expect(r.final.pendingPods).toBe(0);
  }, 120_000);

  it('should launch a NodeClaim a user applies (no NodePool), and terminate its instance when it is deleted', async () => {
    // Prepare: Karpenter's StandaloneNodeClaim e2e: requirements, requests and a nodeClassRef, nothing else.
    const claim = [
      'apiVersion: karpenter.sh/v1',
      'kind: NodeClaim',
      'metadata: {name: standalone, labels: {custom-label: custom-value}}',
      'spec:',
      '  requirements:',
      '    - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}',
      '    - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}',
      '  resources: {requests: {cpu: "3", memory: 11Gi}}',
      '  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}',
    ]
      .map((l) => `      ${l}`)
      .join('\n');
    const nodeClassOnly = POOL_AND_CLASS.split('  ---')[1];

    // Act
    const r = await run(
      'standalone',
      '9m',
      [nodeClassOnly],
      [`  - at: 1m13s\n    apply: |\n${claim}`, '  - {at: 5m07s, delete: {kind: NodeClaim, name: standalone, apiVersion: karpenter.sh/v1}}'].join('\n'),
    );

    // Assess: launched within seconds on a type with room for its requests; gone within a minute of the delete.
    expectClean(r);
    expect(launches(r)).toHaveLength(1);
    expect(launches(r)[0].t).toBeLessThanOrEqual(73 + 15);
    expect(r.nodes).toHaveLength(1);
    expect(r.nodes[0].instanceType).toMatch(/^[cm]\d/);
    expect(r.nodes[0].readyAt).toBeDefined();
    expect(r.nodes[0].terminatedAt).toBeDefined();
    expect(r.nodes[0].terminatedAt!).toBeLessThanOrEqual(307 + 60);
    expect(r.final.nodes).toBe(0);
  }, 120_000);
});
