import { describe, expect, it } from 'vitest';
import { CloudProviderThrottledError, CloudProviderUnauthorizedError } from '../../shared/core/errors';
import { runLocalExecution, localFunctions } from '../../shared/sim/sfn';
import type { Planner } from '../../shared/core/lifecycle';
import { fakes, node, nodeClaim, type Fakes } from '../fakes/lifecycle';

/**
 * Plays kubelet: the launched instance's Node appears when the machine first waits for registration.
 * `waitAdvanceMs` moves the clock on at each Wait, on top of the Wait's own time.
 */
function kubelet(f: Fakes, opts: { registers?: boolean; waitAdvanceMs?: number } = {}) {
  return (state: string) => {
    if (opts.waitAdvanceMs) f.clock.advance(opts.waitAdvanceMs);
    if (state !== 'WaitForRegistration' || opts.registers === false) return;
    for (const inst of f.cloud.instances.values()) {
      const name = `ip-10-0-0-${inst.instanceId.slice(-2)}.eu-west-1.compute.internal`;
      if (!f.cluster.nodes.has(name)) f.cluster.nodes.set(name, node(name, { providerID: inst.providerID }));
    }
  };
}

describe('launch state machine (local)', () => {
  it('should launch, register and initialize a claim', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));

    // Act
    const run = await runLocalExecution('launch', { nodeClaimName: 'default-abcde' }, { invoke: localFunctions(f), clock: f.clock, onWait: kubelet(f) });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    const claim = f.cluster.claims.get('default-abcde');
    expect(claim?.status.conditions.filter((c) => c.status === 'True').map((c) => c.type)).toEqual(
      expect.arrayContaining(['Launched', 'Registered', 'Initialized']),
    );
    const registered = [...f.cluster.nodes.values()][0];
    expect(registered.labels).toMatchObject({ 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true', 'karpenter.sh/nodepool': 'default' });
    expect(registered.taints.some((t) => t.key === 'karpenter.sh/unregistered')).toBe(false);
    expect(f.log.lines.find((l) => l.message === 'launched nodeclaim')?.fields).toMatchObject({
      nodeclaim: 'default-abcde',
      nodepool: 'default',
      'instance-type': 'c5.large',
      zone: 'eu-west-1a',
      'capacity-type': 'spot',
    });
  });

  it('should mark the offering unavailable and delete the claim on insufficient capacity', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    f.cloud.iceOnce = true;

    // Act
    const run = await runLocalExecution('launch', { nodeClaimName: 'default-abcde' }, { invoke: localFunctions(f), clock: f.clock, onWait: kubelet(f) });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'NodeClaimLaunchFailed' });
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
    expect(await f.store.unavailableOfferings()).toEqual([expect.objectContaining({ instanceType: 'c5.large', zone: 'eu-west-1a', capacityType: 'spot' })]);
    expect(run.tasks).toEqual(['validateLaunchInput', 'launchNodeClaim', 'markOfferingUnavailable']);
  });

  it('should retry a throttled launch and then succeed', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    const create = f.cloud.create.bind(f.cloud);
    let calls = 0;
    f.cloud.create = async (req) => {
      if (calls++ === 0) throw new CloudProviderThrottledError('RequestLimitExceeded');
      return create(req);
    };

    // Act
    const run = await runLocalExecution('launch', { nodeClaimName: 'default-abcde' }, { invoke: localFunctions(f), clock: f.clock, onWait: kubelet(f) });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(f.cloud.instances.size).toBe(1);
  });

  it('should delete the claim at once, marking no offering, when IAM denies the launch (iam:PassRole)', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    f.cloud.create = async () => {
      throw new CloudProviderUnauthorizedError('CreateFleet: UnauthorizedOperation: not authorized to perform iam:PassRole on KarpenterNodeRole-other');
    };

    // Act
    const run = await runLocalExecution('launch', { nodeClaimName: 'default-abcde' }, { invoke: localFunctions(f), clock: f.clock, onWait: kubelet(f) });

    // Assess: no retry of the claim by garbage collection later, no offering blamed for capacity
    expect(run).toMatchObject({ status: 'FAILED', error: 'NodeClaimLaunchFailed' });
    expect(run.tasks).toEqual(['validateLaunchInput', 'launchNodeClaim', 'markOfferingUnavailable']);
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
    expect(await f.store.unavailableOfferings()).toEqual([]);
    expect(f.log.lines.find((l) => l.message === 'deleted nodeclaim after failed launch')?.fields).toMatchObject({ reason: 'CloudProviderUnauthorizedError' });
    // …and says so on the claim (kubectl describe / get events), naming where to look
    expect(f.cluster.events).toEqual([
      expect.stringMatching(
        /^NodeClaim\/default-abcde LaunchUnauthorized: NodeClaim default-abcde event: CreateFleet: UnauthorizedOperation: .*iam:PassRole.*nodeRoleName; docs\/deploy\.md\)$/,
      ),
    ]);
  });

  it('should terminate the instance and delete the claim when no node registers before the deadline', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));

    // Act
    const run = await runLocalExecution(
      'launch',
      { nodeClaimName: 'default-abcde' },
      { invoke: localFunctions(f), clock: f.clock, onWait: kubelet(f, { registers: false, waitAdvanceMs: 5 * 60_000 }) },
    );

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'NodeClaimRegistrationTimedOut' });
    expect([...f.cloud.instances.values()].map((i) => i.state)).toEqual(['shutting-down']);
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
  });

  it('should add capacity from a nodepool by hand, one launch execution per claim', async () => {
    // Prepare
    const f = fakes();

    // Act
    const run = await runLocalExecution('launch', { nodePool: 'default', count: 2 }, { invoke: localFunctions(f), clock: f.clock, executionName: 'add-2' });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    const names = [...f.cluster.claims.keys()];
    expect(names).toHaveLength(2);
    for (const n of names) expect(n).toMatch(/^default-[a-z0-9]{5}$/);
    expect(f.workflows.started.map((s) => [s.machine, s.name])).toEqual(names.map((n) => ['launch', n]));
  });

  it('should run the provisioner once when asked to reconcile now', async () => {
    // Prepare
    const f = fakes();
    let solved = 0;
    const planner: Planner = {
      schedulingInputFromSnapshot: (s, types) => ({ pods: s.pods, nodePools: s.nodePools, instanceTypes: types, existingNodes: [], daemonSets: [] }),
      solve: () => {
        solved++;
        return { nodeClaims: [], existingPlacements: [], unschedulable: [], ignored: [] };
      },
      plannedClaimToNodeClaim: () => {
        throw new Error('unused');
      },
    };
    f.cluster.pods = [{ ...(await import('../fakes/lifecycle')).pod('web-1'), phase: 'Pending', unschedulable: true, nodeName: undefined }];

    // Act
    const run = await runLocalExecution('launch', { reconcile: true }, { invoke: localFunctions({ ...f, planner }), clock: f.clock });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(run.tasks).toEqual(['validateLaunchInput', 'provisioner']);
    expect(solved).toBe(1);
  });

  it.each([
    [{ nodePool: 'default', count: 0 }, /count/],
    [{ nodePool: 'nope', count: 1 }, /nodepool "nope" does not exist/],
    [{ nodeClaimName: 'missing-claim' }, /does not exist/],
    [{ reconcile: 'yes' }, /reconcile/],
    [{ foo: 1 }, /must be one of/],
    ['just a string', /JSON object/],
  ])('should fail at once with no side effect on wrong input %j', async (input, message) => {
    // Prepare
    const f = fakes();

    // Act
    const run = await runLocalExecution('launch', input, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run.status).toBe('FAILED');
    expect(run.error).toBe('ExecutionInputInvalidError');
    expect(run.cause).toMatch(message);
    expect(run.tasks).toEqual(['validateLaunchInput']);
    expect(f.cluster.writes).toEqual([]);
    expect(f.workflows.started).toEqual([]);
    expect(f.cloud.calls).toEqual([]);
  });
});
