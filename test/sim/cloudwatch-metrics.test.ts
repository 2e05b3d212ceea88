/**
 * The deployment's `metrics` parameter, as the simulated bill sees the functions' EMF documents: Karpenter's
 * metrics reach CloudWatch only when asked for, and then per NodePool — never per node, zone or instance type,
 * whose series would each be a billed custom metric (docs/metrics.md).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const scenario = (metrics: string) => `
name: cloudwatch-metrics
seed: 3
duration: 12m
settings: {metrics: ${metrics}}
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']), NODE_CLASS, deployment('web', 'nginx', '{cpu: "1"}'))}
events:
  - {at: 31s, scale: {deployment: default/web, replicas: 4}}
  - {at: 6m17s, scale: {deployment: default/web, replicas: 0}}
`;

describe('Karpenter metrics in CloudWatch (the metrics deploy parameter)', () => {
  it('should publish them per NodePool when metrics is cloudwatch, with no per-node, per-zone or per-instance-type dimension', async () => {
    // Act
    const run = await runScenario(parseScenario(scenario('cloudwatch'), 'cw.yaml'));
    // Assess
    const metrics = run.controller.cloudWatch.metrics.map((k) => {
      const [, name, dims] = k.split('|');
      return { name, dims: JSON.parse(dims) as Record<string, string> };
    });
    expect(metrics).toContainEqual({
      name: 'karpenter_nodeclaims_created_total',
      dims: { service: 'nodewright', reason: 'provisioned', nodepool: 'default', min_values_relaxed: 'false' },
    });
    expect(metrics).toContainEqual({ name: 'karpenter_nodes_created_total', dims: { service: 'nodewright', nodepool: 'default' } });
    expect(metrics).toContainEqual({ name: 'karpenter_nodepools_usage', dims: { service: 'nodewright', nodepool: 'default', resource_type: 'cpu' } });
    expect(metrics.map((m) => m.name)).toEqual(
      expect.arrayContaining([
        'karpenter_nodepools_cost_total',
        'karpenter_scheduler_scheduling_duration_seconds',
        'karpenter_voluntary_disruption_eligible_nodes',
      ]),
    );
    for (const m of metrics)
      expect(Object.keys(m.dims), m.name).not.toEqual(expect.arrayContaining([expect.stringMatching(/^(node_name|zone|instance_type|arch)$/)]));
    expect(run.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: 0 });
  }, 120_000);

  it("should publish none of them by default: the handlers' own success metric only", async () => {
    // Act
    const run = await runScenario(parseScenario(scenario('off'), 'off.yaml'));
    // Assess
    expect(run.controller.cloudWatch.metrics.every((k) => /\|Handler(Succeeded|Error)\|/.test(k))).toBe(true);
    expect(run.final.pendingPods).toBe(0);
  }, 120_000);
});
