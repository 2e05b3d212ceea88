/**
 * A scenario's `cost` (shared/sim/aws/ec2-billing.ts): EC2 compute in `total` and `perHourAtEnd`, EBS apart in `ebs`
 * and `ebsPerHourAtEnd`, and `nodes[].stoppedSeconds` for an instance stopped.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { stopInstance } from '../../shared/sim/aws/ec2-stop-start';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const HOURS_PER_MONTH = 720;

describe("a scenario's cost", () => {
  const scenario = `
name: ebs
duration: 10m
objects: |
${objects(nodePool('default', ['{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}']), NODE_CLASS, deployment('busy', 'pause', '{cpu: 1500m}', 3))}
fleet:
  - {nodePool: default, instanceType: m5.large, capacityType: on-demand, count: 3}
`;

  it('should report EBS apart from compute, and the seconds an instance was stopped', async () => {
    // Prepare
    let stopped = '';
    let volumes: unknown[] = [];
    // Act
    const run = await runScenario(parseScenario(scenario, 'ebs.yaml'), {
      atEnd: (world) => {
        const live = [...world.ec2.instances.values()].filter((i) => i.state === 'running');
        volumes = live.map((i) => i.volumes);
        stopped = live[0]?.id ?? '';
        if (live[0]) stopInstance(world.ec2, live[0]);
      },
    });
    // Assess: the production launch template's AL2023 root (20 GiB gp3), billed from launch until terminated or the end
    expect(volumes.length).toBeGreaterThan(0);
    expect(volumes.every((v) => JSON.stringify(v) === JSON.stringify([{ sizeGiB: 20, type: 'gp3' }]))).toBe(true);
    const perHour = (20 * 0.08) / HOURS_PER_MONTH;
    const hours = run.nodes.reduce((s, n) => s + ((n.terminatedAt ?? 600) - n.launchedAt) / 3600, 0);
    expect(run.cost.ebs).toBeCloseTo(hours * perHour, 4);
    expect(run.cost.ebsPerHourAtEnd).toBeCloseTo(run.nodes.filter((n) => n.terminatedAt === undefined).length * perHour, 4);
    // compute: the instance stopped at the end is no longer in the rate
    const running = run.nodes.filter((n) => n.terminatedAt === undefined && n.instanceId !== stopped);
    expect(run.cost.perHourAtEnd).toBeCloseTo(
      running.reduce((s, n) => s + n.pricePerHour, 0),
      4,
    );
    expect(run.nodes.find((n) => n.instanceId === stopped)?.stoppedSeconds).toBe(0);
    expect(run.nodes.filter((n) => n.stoppedSeconds !== undefined)).toHaveLength(1);
  }, 120_000);
});
