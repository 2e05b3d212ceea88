import { describe, expect, it } from 'vitest';
import { localFunctions, runLocalExecution } from '../../shared/sim/sfn';
import { fakes, node, nodeClaim, pod, type Fakes } from '../fakes/lifecycle';
import { epochMs } from '../../shared/core/time';

const PROVIDER_ID = 'aws:///eu-west-1a/i-0abc000000000042';
const NODE = 'ip-10-0-0-42.eu-west-1.compute.internal';

function managedNode(f: Fakes, opts: { tgp?: number | null } = {}) {
  f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PROVIDER_ID, nodeName: NODE, tgp: opts.tgp ?? null }));
  f.cluster.nodes.set(NODE, node(NODE, { providerID: PROVIDER_ID, taints: [] }));
  f.cloud.instances.set(PROVIDER_ID, {
    instanceId: 'i-0abc000000000042',
    providerID: PROVIDER_ID,
    instanceType: 'm5.large',
    zone: 'eu-west-1a',
    capacityType: 'spot',
    launchTime: epochMs(0),
    state: 'running',
    tags: {},
  });
}

/** Moves the fake clock on by `ms` at each Wait, on top of the Wait's own time (which the runner sleeps on it). */
const advance = (f: Fakes, ms: number) => () => f.clock.advance(ms);

describe('terminate state machine (local)', () => {
  it('should taint, drain in tiers, terminate the instance and delete node and claim', async () => {
    // Prepare
    const f = fakes();
    managedNode(f);
    f.cluster.pods = [
      pod('fluent-bit-x', { nodeName: NODE, owner: { kind: 'DaemonSet', name: 'fluent-bit' } }),
      pod('web-1', { nodeName: NODE }),
      pod('coredns-1', { nodeName: NODE, priorityClassName: 'system-cluster-critical' }),
    ];
    let taintedBeforeEviction = false;
    const evict = f.cluster.evict.bind(f.cluster);
    f.cluster.evict = async (p) => {
      taintedBeforeEviction ||= !!f.cluster.nodes.get(NODE)?.taints.some((t) => t.key === 'karpenter.sh/disrupted');
      return evict(p);
    };

    // Act
    const run = await runLocalExecution('terminate', { nodeName: NODE }, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(taintedBeforeEviction).toBe(true);
    expect(f.cluster.writes.filter((w) => w.startsWith('evict'))).toEqual(['evict default/web-1', 'evict default/fluent-bit-x', 'evict default/coredns-1']);
    expect(f.cloud.instances.get(PROVIDER_ID)?.state).toBe('shutting-down');
    expect(f.cluster.nodes.has(NODE)).toBe(false);
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
    expect(f.log.messages()).toEqual(expect.arrayContaining(['tainted node', 'deleted node', 'deleted nodeclaim']));
  });

  it('should retry an eviction blocked by a PDB until it succeeds', async () => {
    // Prepare
    const f = fakes();
    managedNode(f);
    f.cluster.pods = [pod('db-0', { nodeName: NODE })];
    f.cluster.evictionResults.set('default/db-0', ['blocked', 'blocked', 'evicted']);

    // Act
    const run = await runLocalExecution('terminate', { instanceId: 'i-0abc000000000042' }, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(f.cluster.writes.filter((w) => w === 'evict default/db-0')).toHaveLength(3);
    expect(f.cluster.nodes.has(NODE)).toBe(false);
  });

  it('should go on in a fresh execution after 2,000 drain passes (the 25,000-event history limit), keeping the node tainted', async () => {
    // Prepare: a PDB that never allows the eviction, a terminationGracePeriod of 30 days
    const f = fakes();
    managedNode(f, { tgp: 30 * 24 * 3600 });
    f.cluster.pods = [pod('db-0', { nodeName: NODE })];
    f.cluster.evictionResults.set(
      'default/db-0',
      Array.from({ length: 5000 }, () => 'blocked' as const),
    );

    // Act
    const run = await runLocalExecution(
      'terminate',
      { nodeClaimName: 'default-abcde', reason: 'Drifted' },
      { invoke: localFunctions(f), clock: f.clock, executionName: 'drift-default-abcde' },
    );

    // Assess: this execution ended after 2,000 passes, a fresh one carries on for the same claim
    expect(run.status).toBe('SUCCEEDED');
    expect(f.cluster.writes.filter((w) => w === 'evict default/db-0')).toHaveLength(2000);
    expect(f.workflows.started).toEqual([
      { machine: 'terminate', name: 'drift-default-abcde-cont1', input: { nodeClaimName: 'default-abcde', reason: 'Drifted' } },
    ]);
    expect(f.cluster.nodes.get(NODE)?.taints.map((t) => t.key)).toContain('karpenter.sh/disrupted');
    expect(f.cloud.instances.get(PROVIDER_ID)?.state).toBe('running');
  }, 120_000);

  it('should delete pods bypassing PDBs once the terminationGracePeriod deadline is reached', async () => {
    // Prepare
    const f = fakes();
    managedNode(f, { tgp: 120 });
    f.cluster.pods = [pod('db-0', { nodeName: NODE, terminationGracePeriodSeconds: 30 })];
    f.cluster.evictionResults.set('default/db-0', Array(100).fill('blocked'));

    // Act
    const run = await runLocalExecution(
      'terminate',
      { nodeClaimName: 'default-abcde' },
      { invoke: localFunctions(f), clock: f.clock, onWait: advance(f, 20_000) },
    );

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(f.cluster.writes.some((w) => w.startsWith('deletePod default/db-0'))).toBe(true);
    expect(f.cloud.instances.get(PROVIDER_ID)?.state).toBe('shutting-down');
  });

  it('should keep do-not-disrupt pods waiting, then fail at the drain deadline when there is no grace period and untaint the node (no budget held)', async () => {
    // Prepare
    const f = fakes();
    managedNode(f, { tgp: null });
    f.cluster.pods = [pod('batch-1', { nodeName: NODE, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];

    // Act
    const run = await runLocalExecution('terminate', { nodeName: NODE }, { invoke: localFunctions(f), clock: f.clock, onWait: advance(f, 6 * 3600_000) });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'NodeTerminationFailed' });
    expect(f.cluster.writes.some((w) => w.startsWith('evict'))).toBe(false);
    expect(f.cloud.instances.get(PROVIDER_ID)?.state).toBe('running');
    expect(f.cluster.nodes.get(NODE)?.taints.map((t) => t.key)).not.toContain('karpenter.sh/disrupted');
    expect(await f.store.auditLog({ kind: 'termination' })).toContainEqual(
      expect.objectContaining({ action: 'released', reason: expect.stringContaining('DeadlineExceededError') }),
    );
  });

  it('should untaint the node when a step keeps failing after its retries (here TerminateInstance), never leaving it tainted', async () => {
    // Prepare
    const f = fakes();
    managedNode(f, { tgp: null });
    f.cloud.delete = async () => {
      throw Object.assign(new Error('not authorized to perform ec2:TerminateInstances'), { name: 'CloudProviderUnauthorizedError' });
    };

    // Act
    const run = await runLocalExecution('terminate', { nodeName: NODE }, { invoke: localFunctions(f), clock: f.clock, onWait: advance(f, 60_000) });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'NodeTerminationFailed' });
    expect(f.cluster.nodes.get(NODE)?.taints.map((t) => t.key)).not.toContain('karpenter.sh/disrupted');
  });

  it.each([
    [{ nodeName: 'Not_A_Name' }, /nodeName/],
    [{ nodeName: 'a', instanceId: 'i-0abc000000000042' }, /exactly one target/],
    [{ instanceId: 'i-0fff00000000foreign' }, /instanceId/],
    [{ instanceId: 'i-0fffffffffffffff0' }, /belongs to no NodeClaim/],
    [{ nodeName: 'ip-10-9-9-9.eu-west-1.compute.internal' }, /does not exist/],
    [{}, /exactly one target/],
  ])('should fail at once with no side effect on wrong input %j', async (input, message) => {
    // Prepare
    const f = fakes();
    managedNode(f);
    f.cluster.writes = [];

    // Act
    const run = await runLocalExecution('terminate', input, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
    expect(run.cause).toMatch(message);
    expect(run.tasks).toEqual(['validateTerminateInput']);
    expect(f.cluster.writes).toEqual([]);
    expect(f.cloud.calls).toEqual([]);
  });

  it('should refuse to drain a node nodewright does not manage', async () => {
    // Prepare
    const f = fakes();
    f.cluster.nodes.set('mng-node', node('mng-node', { providerID: 'aws:///eu-west-1a/i-0123456789abcdef0', taints: [] }));

    // Act
    const run = await runLocalExecution('terminate', { nodeName: 'mng-node' }, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
    expect(run.cause).toMatch(/has no NodeClaim/);
    expect(f.cluster.writes).toEqual([]);
  });
});
