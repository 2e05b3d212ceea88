import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';

const scenario = (name: string, cluster: string, zones: string) => `
name: ${name}
clusterName: ${cluster}
zones: [${zones}]
duration: 4m
objects: |
  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        requirements:
          - {key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  ---
  apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    role: KarpenterNodeRole
    amiSelectorTerms: [{alias: al2023@latest}]
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: "\${CLUSTER_NAME}"}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: "\${CLUSTER_NAME}"}}]
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
        containers: [{name: app, image: pause, resources: {requests: {cpu: "1"}}}]
events:
  - {at: 30s, scale: {deployment: default/app, replicas: 3}}
`;

describe('successive simulations in one process', () => {
  it('should give each run its own world (cluster, zones, clock)', async () => {
    // Act
    const first = await runScenario(parseScenario(scenario('one', 'alpha', 'us-east-1a'), 'one.yaml'));
    const second = await runScenario(parseScenario(scenario('two', 'beta', 'us-east-1c'), 'two.yaml'));
    // Assess
    for (const run of [first, second]) {
      expect(run.nodes.length).toBeGreaterThan(0);
      expect(run.final).toEqual(expect.objectContaining({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 }));
      expect(run.invocationErrors).toEqual([]);
      expect(run.nodes[0].launchedAt).toBeLessThan(70);
    }
    expect(first.nodes.every((n) => n.zone === 'us-east-1a')).toBe(true);
    expect(second.nodes.every((n) => n.zone === 'us-east-1c')).toBe(true);
  }, 120_000);
});
