import { describe, expect, it } from 'vitest';
import type { InstanceType } from '../../../shared/core/instance-types/types';
import { createClaimsFromPool } from '../../../shared/core/lifecycle';
import { runLocalExecution, localFunctions } from '../../../shared/sim/sfn';
import { fakes, instanceType, nodeClaim, nodePool, type Fakes } from '../../fakes/lifecycle';

/** A type with the labels the pool's requirements look at (the fakes' default types carry only instance-type). */
function typed(name: string, price: number, arch: 'amd64' | 'arm64', category: string, cpu: number): InstanceType {
  const it = instanceType(name, price);
  return {
    ...it,
    arch,
    labels: { ...it.labels, 'kubernetes.io/arch': arch, 'karpenter.k8s.aws/instance-category': category, 'karpenter.k8s.aws/instance-cpu': String(cpu) },
    capacity: { ...it.capacity, cpu: cpu * 1000 },
    allocatable: { ...it.allocatable, cpu: cpu * 1000 - 70 },
  };
}

/** The pool of the report: amd64, category m, on-demand; the cheapest type in the catalog is an arm64 t4g.nano. */
function reportedWorld(limits: Record<string, number> = {}): Fakes {
  const f = fakes();
  f.cloud.types = [
    typed('t4g.nano', 0.0042, 'arm64', 't', 2),
    typed('m5.large', 0.096, 'amd64', 'm', 2),
    typed('c5.large', 0.085, 'amd64', 'c', 2),
    typed('m5.xlarge', 0.192, 'amd64', 'm', 4),
  ];
  f.cluster.nodePools = [
    nodePool('default', {
      limits,
      template: {
        ...nodePool().template,
        labels: { team: 'web' },
        taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        ],
      },
    }),
  ];
  return f;
}

const req = (claim: { spec: { requirements: { key: string; values?: string[] }[] } }, key: string) =>
  claim.spec.requirements.find((r) => r.key === key)?.values;

describe('add capacity now (launch {nodePool, count})', () => {
  it('should plan claims with the pool requirements, taints and labels, cheapest compatible type first', async () => {
    // Prepare
    const f = reportedWorld();

    // Act
    const { nodeClaims } = await createClaimsFromPool(f, { nodePool: 'default', count: 1, seed: 'add-1' });

    // Assess
    const claim = f.cluster.claims.get(nodeClaims[0])!;
    expect(req(claim, 'node.kubernetes.io/instance-type')).toEqual(['m5.large', 'm5.xlarge']);
    expect(req(claim, 'kubernetes.io/arch')).toEqual(['amd64']);
    expect(req(claim, 'karpenter.k8s.aws/instance-category')).toEqual(['m']);
    expect(req(claim, 'karpenter.sh/capacity-type')).toEqual(['on-demand']);
    expect(claim.spec.taints).toEqual([{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }]);
    expect(claim.labels).toMatchObject({ team: 'web', 'karpenter.sh/nodepool': 'default', 'karpenter.k8s.aws/ec2nodeclass': 'default' });
    expect(claim.annotations['karpenter.sh/nodepool-hash']).toBeDefined();
  });

  it('should launch an amd64 m type, not the arm64 t4g.nano, for an amd64 / m / on-demand pool', async () => {
    // Prepare
    const f = reportedWorld();

    // Act
    const run = await runLocalExecution('launch', { nodePool: 'default', count: 1 }, { invoke: localFunctions(f), clock: f.clock, executionName: 'add-1' });
    const name = [...f.cluster.claims.keys()][0];
    await runLocalExecution('launch', { nodeClaimName: name }, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect([...f.cloud.instances.values()].map((i) => i.instanceType)).toEqual(['m5.large']);
  });

  it('should refuse count 5 against limits.cpu 2, naming the resource and the excess, with no side effect', async () => {
    // Prepare
    const f = reportedWorld({ cpu: 2000 });

    // Act
    const run = await runLocalExecution('launch', { nodePool: 'default', count: 5 }, { invoke: localFunctions(f), clock: f.clock, executionName: 'add-5' });
    const direct = createClaimsFromPool(f, { nodePool: 'default', count: 5, seed: 'add-5' });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
    expect(run.cause).toMatch(/limits\.cpu is 2 and 0 is in use; 5 node\(s\) need at least 10 .* 8 over the limit/);
    expect(run.tasks).toEqual(['validateLaunchInput', 'createNodeClaims']);
    await expect(direct).rejects.toMatchObject({ name: 'ExecutionInputInvalidError', message: expect.stringMatching(/limits\.cpu/) });
    expect(f.cluster.writes).toEqual([]);
    expect(f.workflows.started).toEqual([]);
  });

  it('should keep every claim within the cpu limit counting what the pool already runs', async () => {
    // Prepare
    const f = reportedWorld({ cpu: 8000 });
    f.cluster.claims.set('default-old', { ...nodeClaim('default-old'), status: { conditions: [], capacity: { cpu: 2000 } } });

    // Act
    const { nodeClaims } = await createClaimsFromPool(f, { nodePool: 'default', count: 3, seed: 'add-3' });
    const over = createClaimsFromPool(f, { nodePool: 'default', count: 1, seed: 'add-1-more' });

    // Assess
    const largest = nodeClaims.map((n) =>
      Math.max(...req(f.cluster.claims.get(n)!, 'node.kubernetes.io/instance-type')!.map((t) => f.cloud.types.find((x) => x.name === t)!.capacity.cpu)),
    );
    expect(2000 + largest.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(8000);
    await expect(over).rejects.toMatchObject({ message: expect.stringMatching(/limits\.cpu is 8 and \S+ is in use; 1 node\(s\) need at least 2/) });
  });

  it('should create the same claims again when the Task is retried (its own claims do not count against the limits)', async () => {
    // Prepare
    const f = reportedWorld({ cpu: 4000 });

    // Act
    const first = await createClaimsFromPool(f, { nodePool: 'default', count: 2, seed: 'add-2' });
    const again = await createClaimsFromPool(f, { nodePool: 'default', count: 2, seed: 'add-2' });

    // Assess
    expect(again).toEqual(first);
    expect(f.cluster.claims.size).toBe(2);
  });

  it.each([
    [
      'missing',
      (f: Fakes) => {
        f.cluster.nodePools = [];
      },
      /nodepool "default" does not exist/,
    ],
    [
      'not ready',
      (f: Fakes) => {
        f.cluster.nodePools[0].ready = false;
      },
      /nodepool "default" is not ready/,
    ],
    [
      'deleting',
      (f: Fakes) => {
        f.cluster.nodePools[0].deleting = true;
      },
      /nodepool "default" is being deleted/,
    ],
    [
      'nodes limit',
      (f: Fakes) => {
        f.cluster.nodePools[0].limits = { nodes: 1 };
      },
      /limits\.nodes is 1 and 0 node\(s\) are in use; 2 more would exceed it by 1/,
    ],
    [
      'no compatible type',
      (f: Fakes) => {
        f.cloud.types = f.cloud.types.filter((t) => t.labels['karpenter.k8s.aws/instance-category'] !== 'm');
      },
      /no available instance type satisfies/,
    ],
  ])('should fail with no side effect when the pool is %s', async (_what, setup, message) => {
    // Prepare
    const f = reportedWorld();
    setup(f);

    // Act
    const run = await runLocalExecution('launch', { nodePool: 'default', count: 2 }, { invoke: localFunctions(f), clock: f.clock, executionName: 'add-2' });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
    expect(run.cause).toMatch(message);
    expect(f.cluster.writes).toEqual([]);
    expect(f.workflows.started).toEqual([]);
    expect(f.cloud.calls).toEqual([]);
  });
});
