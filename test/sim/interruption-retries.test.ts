/**
 * A spot warning whose handling keeps failing is retried throughout its 2-minute notice (issue #28): with Step
 * Functions refusing every StartExecution for the warning's first 95 s, the queue's old settings (a 45 s
 * visibility timeout, 3 receives) dead-lettered it after 90 s and the node's pods died with it. The production
 * handler, queue settings and event source as deployed (infra/), on the simulator.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';

const scenario = `
name: interruption-retries
seed: 5
zones: [us-east-1a, us-east-1b]
duration: 12m
objects: |
  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: spot}
  spec:
    template:
      spec:
        requirements:
          - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
          - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  ---
  apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    role: KarpenterNodeRole-demo
    amiSelectorTerms: [{alias: al2023@latest}]
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  ---
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
          - {name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}
events:
  - {at: 4m17s, interrupt: {node: any, kind: spot-interruption}}
faults:
  - {at: 4m17s, for: 95s, target: sfn, kind: error}
`;

describe('a spot warning whose handling fails', () => {
  it('should be retried every ~10 s through its notice, drain the node before the reclaim and lose no pod', async () => {
    // Act
    const r = await runScenario(parseScenario(scenario, 'interruption-retries.yaml'));
    // Assess
    const [interrupted] = r.nodes.filter((n) => n.interruptedAt !== undefined);
    const drains = r.executions.filter((e) => e.machine === 'disrupt' && e.name.startsWith('interruption-'));
    expect(r.violations.podsLost).toBe(0);
    expect(r.interruptionQueue).toMatchObject({ deadLettered: 0, expired: 0, queued: 0 });
    expect(drains).toHaveLength(1);
    // Started once Step Functions answered again (95 s in), well inside the 120 s notice.
    expect(drains[0].startedAt - interrupted.interruptedAt!).toBeGreaterThanOrEqual(95);
    expect(drains[0].startedAt - interrupted.interruptedAt!).toBeLessThan(110);
    expect(r.controller.sqs.visibilityChanges).toBeGreaterThanOrEqual(5);
  }, 300_000);
});
