import { describe, expect, it } from 'vitest';
import { checkRegistration, decideDeletions, deletionExecutionName, finalizeNodeClaim, reconcileDeletions } from '../../../shared/core/lifecycle';
import { fakes, node, nodeClaim } from '../../fakes/lifecycle';
import { epochMs, fromSeconds } from '../../../shared/core/time';

const PID = 'aws:///eu-west-1a/i-0abc000000000001';
const DELETED_AT = fromSeconds(1_767_229_200);
const DISRUPTED = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };

function world() {
  const f = fakes();
  f.cluster.deletionTime = () => DELETED_AT;
  f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID, nodeName: 'n1' }));
  f.cluster.nodes.set('n1', node('n1', { providerID: PID, taints: [], finalizers: ['karpenter.sh/termination'] }));
  return f;
}

describe('decideDeletions', () => {
  it('should start terminate for a deleted NodeClaim, named after the claim and its deletionTimestamp', async () => {
    // Prepare
    const f = world();
    await f.cluster.deleteNodeClaim('default-abcde');
    // Act
    const actions = decideDeletions(await f.cluster.snapshot());
    // Assess
    expect(actions).toEqual([
      { type: 'terminate', nodeClaimName: 'default-abcde', nodeName: 'n1', deletionTimestamp: DELETED_AT, executionName: 'default-abcde-deleted-1767229200' },
    ]);
    expect(deletionExecutionName('default-abcde', DELETED_AT)).toBe('default-abcde-deleted-1767229200');
  });

  it('should leave a deleted NodeClaim whose Node already carries the disrupted taint (termination under way)', async () => {
    // Prepare
    const f = world();
    await f.cluster.deleteNodeClaim('default-abcde');
    f.cluster.nodes.get('n1')?.taints.push(DISRUPTED);
    // Act
    const actions = decideDeletions(await f.cluster.snapshot());
    // Assess
    expect(actions).toEqual([]);
  });

  it('should start terminate for a deleted NodeClaim that never got a Node', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-early', { ...nodeClaim('default-early'), deletionTimestamp: DELETED_AT });
    // Act
    const actions = decideDeletions(await f.cluster.snapshot());
    // Assess
    expect(actions).toEqual([
      { type: 'terminate', nodeClaimName: 'default-early', deletionTimestamp: DELETED_AT, executionName: 'default-early-deleted-1767229200' },
    ]);
  });

  it('should delete the NodeClaim of a deleted Node, and ignore a deleted Node without one', async () => {
    // Prepare
    const f = world();
    f.cluster.nodes.set(
      'foreign',
      node('foreign', { providerID: 'aws:///eu-west-1a/i-0ffff00000000009', finalizers: ['other'], deletionTimestamp: DELETED_AT }),
    );
    await f.cluster.deleteNode('n1');
    // Act
    const actions = decideDeletions(await f.cluster.snapshot());
    // Assess
    expect(actions).toEqual([{ type: 'deleteNodeClaim', nodeClaimName: 'default-abcde', nodeName: 'n1' }]);
  });

  it('should do nothing for a claim without our finalizer or objects not being deleted', async () => {
    // Prepare
    const f = world();
    f.cluster.claims.set('other', { ...nodeClaim('other'), finalizers: ['someone.else/hold'], deletionTimestamp: DELETED_AT });
    // Act
    const actions = decideDeletions(await f.cluster.snapshot());
    // Assess
    expect(actions).toEqual([]);
  });
});

describe('reconcileDeletions', () => {
  it('should start terminate once for a deleted NodeClaim; a repeat is a no-op', async () => {
    // Prepare
    const f = world();
    await f.cluster.deleteNodeClaim('default-abcde');
    // Act
    const first = await reconcileDeletions(f, await f.cluster.snapshot());
    const again = await reconcileDeletions(f, await f.cluster.snapshot());
    // Assess
    expect(first.map((o) => o.result)).toEqual(['started']);
    expect(again.map((o) => o.result)).toEqual(['alreadyStarted']);
    expect(f.workflows.started).toEqual([
      { machine: 'terminate', name: 'default-abcde-deleted-1767229200', input: { nodeClaimName: 'default-abcde', reason: 'Deleted' } },
    ]);
    expect(f.log.messages()).toEqual(['terminating deleted nodeclaim']);
  });

  it('should delete the NodeClaim of a deleted Node and start its termination in the same call', async () => {
    // Prepare
    const f = world();
    await f.cluster.deleteNode('n1');
    // Act
    const outcomes = await reconcileDeletions(f, await f.cluster.snapshot());
    // Assess
    expect(outcomes.map((o) => [o.action.type, o.result])).toEqual([
      ['deleteNodeClaim', 'deleted'],
      ['terminate', 'started'],
    ]);
    expect(f.cluster.claims.get('default-abcde')?.deletionTimestamp).toBe(DELETED_AT);
    expect(f.cluster.nodes.get('n1')?.deletionTimestamp).toBe(DELETED_AT);
    expect(f.workflows.started.map((s) => s.input)).toEqual([{ nodeClaimName: 'default-abcde', reason: 'Deleted' }]);
    expect(f.log.messages()).toEqual(['deleting nodeclaim of deleted node', 'terminating deleted nodeclaim']);
  });

  it('should start the next attempt after a failed termination once its back-off has passed, never sooner', async () => {
    // Prepare: the first attempt failed (a drain blocked at its deadline); Step Functions keeps its name 90 days
    const f = world();
    await f.cluster.deleteNodeClaim('default-abcde');
    await reconcileDeletions(f, await f.cluster.snapshot());
    const stopped: Record<string, number> = { 'default-abcde-deleted-1767229200': f.clock.now() };
    Object.assign(f.workflows, {
      status: async (_m: string, name: string) => (name in stopped ? { status: 'FAILED', stoppedAt: stopped[name] } : { status: 'RUNNING' }),
    });
    // Act
    f.clock.advance(30_000);
    const early = await reconcileDeletions(f, await f.cluster.snapshot());
    f.clock.advance(31_000);
    const second = await reconcileDeletions(f, await f.cluster.snapshot());
    const running = await reconcileDeletions(f, await f.cluster.snapshot());
    stopped['default-abcde-deleted-1767229200-attempt-2'] = f.clock.now();
    f.clock.advance(61_000);
    const tooSoon = await reconcileDeletions(f, await f.cluster.snapshot());
    f.clock.advance(60_000);
    const third = await reconcileDeletions(f, await f.cluster.snapshot());
    // Assess: 1 min after the first failure, then 2 min after the second
    expect([early, second, running, tooSoon, third].map((o) => o.map((x) => [x.result, x.execution]))).toEqual([
      [['alreadyStarted', undefined]],
      [['started', 'default-abcde-deleted-1767229200-attempt-2']],
      [['alreadyStarted', 'default-abcde-deleted-1767229200-attempt-2']],
      [['alreadyStarted', 'default-abcde-deleted-1767229200-attempt-2']],
      [['started', 'default-abcde-deleted-1767229200-attempt-3']],
    ]);
    expect(f.workflows.started.map((s) => s.input)).toEqual(Array(3).fill({ nodeClaimName: 'default-abcde', reason: 'Deleted' }));
  });

  it('should report a failed start and go on with the other objects', async () => {
    // Prepare
    const f = world();
    f.cluster.claims.set('default-zzzzz', { ...nodeClaim('default-zzzzz'), deletionTimestamp: DELETED_AT });
    await f.cluster.deleteNodeClaim('default-abcde');
    const start = f.workflows.start.bind(f.workflows);
    f.workflows.start = async (machine, name, input) => {
      if (name.startsWith('default-abcde')) throw new Error('throttled');
      return start(machine, name, input);
    };
    // Act
    const outcomes = await reconcileDeletions(f, await f.cluster.snapshot());
    // Assess
    expect(outcomes.map((o) => [o.action.nodeClaimName, o.result])).toEqual([
      ['default-abcde', 'failed'],
      ['default-zzzzz', 'started'],
    ]);
    expect(f.log.lines.filter((l) => l.level === 'error').map((l) => l.fields?.error)).toEqual(['throttled']);
  });
});

describe('the termination finalizer on Nodes', () => {
  it('should add karpenter.sh/termination to the Node at registration', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, finalizers: ['other'] }));
    // Act
    await checkRegistration(f, { nodeClaimName: 'default-abcde', deadlineMs: epochMs(f.clock.now() + 60_000) });
    // Assess
    expect(f.cluster.nodes.get('n1')?.finalizers).toEqual(['other', 'karpenter.sh/termination']);
  });

  it('should let go of a Node and NodeClaim being deleted: both disappear, and a repeat changes nothing', async () => {
    // Prepare
    const f = world();
    await f.cluster.deleteNodeClaim('default-abcde');
    await f.cluster.deleteNode('n1');
    // Act
    await finalizeNodeClaim(f, { nodeClaimName: 'default-abcde', nodeName: 'n1', providerID: PID, reason: 'Deleted' });
    const writes = f.cluster.writes.length;
    await finalizeNodeClaim(f, { nodeClaimName: 'default-abcde', nodeName: 'n1', providerID: PID, reason: 'Deleted' });
    // Assess
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
    expect(f.cluster.nodes.has('n1')).toBe(false);
    expect(f.cluster.writes.slice(writes)).toEqual([]);
  });

  it("should keep other controllers' finalizers: the objects stay marked until those go", async () => {
    // Prepare
    const f = world();
    f.cluster.nodes.get('n1')?.finalizers.push('other');
    // Act
    await finalizeNodeClaim(f, { nodeClaimName: 'default-abcde', nodeName: 'n1', providerID: PID, reason: 'Expired' });
    // Assess
    expect(f.cluster.nodes.get('n1')).toMatchObject({ finalizers: ['other'], deletionTimestamp: DELETED_AT });
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
  });
});
