import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';

const SCENARIO = `
name: insufficient-capacity
seed: 5
duration: 10m
objects: |
  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: spot}
  spec:
    template:
      spec:
        requirements:
          - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
          - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
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
  metadata: {name: web}
  spec:
    replicas: 0
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m}}}]
events:
  - {at: 0s, unavailable: {instanceType: m5.large, capacityType: spot, for: 4m}}
  - {at: 0s, unavailable: {instanceType: m5.xlarge, capacityType: spot, for: 4m}}
  - {at: 30s, scale: {deployment: default/web, replicas: 2}}
`;

describe('simulated insufficient capacity', () => {
  it('should fail the launch with the real ICE codes, mark the offerings, and launch once capacity returns', async () => {
    // Act
    const run = await runScenario(parseScenario(SCENARIO, 'ice.yaml'));
    // Assess
    const launches = run.executions.filter((e) => e.machine === 'launch');
    expect(launches[0]).toMatchObject({ status: 'FAILED', error: 'NodeClaimLaunchFailed' });
    expect(launches[0].tasks).toContain('markOfferingUnavailable');
    const launched = run.nodes.filter((n) => n.nodePool === 'spot');
    expect(launched.length).toBeGreaterThan(0);
    expect(launched.every((n) => n.launchedAt >= 240 && n.capacityType === 'spot')).toBe(true);
    expect(run.final).toEqual({ nodes: launched.length, pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(run.pods.maxPendingSeconds).toBeGreaterThan(200);
  }, 120_000);
});
