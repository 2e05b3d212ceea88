import { describe, expect, it } from 'vitest';
import { createLocalHandlers, runLocalExecution } from '../../shared/sim/sfn';
import { fakes, node, nodeClaim, type Fakes } from '../core/lifecycle/fakes';

const NODE = 'ip-10-0-0-7.eu-west-1.compute.internal';

function setup(): Fakes {
  const f = fakes();
  f.cluster.claims.set('default-old01', nodeClaim('default-old01', { providerID: 'aws:///eu-west-1a/i-0abc000000000007', nodeName: NODE }));
  f.cluster.nodes.set(NODE, node(NODE, { providerID: 'aws:///eu-west-1a/i-0abc000000000007', taints: [] }));
  return f;
}

const input = { reason: 'Underutilized', candidates: [{ nodeClaimName: 'default-old01' }], replacements: [nodeClaim('default-new01')] };

describe('disrupt state machine (local)', () => {
  it('should taint candidates, launch replacements, wait until they are ready and start one terminate per candidate', async () => {
    // Prepare
    const f = setup();
    const onWait = () => {
      f.clock.advance(10_000);
      const r = f.cluster.claims.get('default-new01');
      if (r) r.status.conditions.push({ type: 'Initialized', status: 'True' });
    };

    // Act
    const run = await runLocalExecution('disrupt', input, { handlers: createLocalHandlers(f), onWait });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(f.cluster.nodes.get(NODE)?.taints.map((t) => t.key)).toEqual(['karpenter.sh/disrupted']);
    const [launch, terminate] = f.workflows.started;
    expect(launch).toMatchObject({ machine: 'launch', name: 'default-new01', input: { nodeClaimName: 'default-new01' } });
    expect(terminate.machine).toBe('terminate');
    expect(terminate.name).toMatch(/^default-old01-[a-z0-9]{8}$/);
    expect(terminate.input).toEqual({ nodeClaimName: 'default-old01', reason: 'Underutilized' });
  });

  it('should untaint candidates and roll replacements back when they are not ready before the deadline', async () => {
    // Prepare
    const f = setup();

    // Act
    const run = await runLocalExecution('disrupt', input, { handlers: createLocalHandlers(f), onWait: () => f.clock.advance(5 * 60_000) });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'DisruptionRolledBack' });
    expect(f.cluster.nodes.get(NODE)?.taints).toEqual([]);
    expect(f.workflows.started.filter((s) => s.machine === 'terminate')).toEqual([
      expect.objectContaining({ input: { nodeClaimName: 'default-new01', reason: 'DisruptionRollback' } }),
    ]);
  });

  it('should roll back when a replacement launch failed and its claim is gone', async () => {
    // Prepare
    const f = setup();
    const onWait = () => { f.cluster.claims.delete('default-new01'); };

    // Act
    const run = await runLocalExecution('disrupt', input, { handlers: createLocalHandlers(f), onWait });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'DisruptionRolledBack' });
    expect(f.cluster.nodes.get(NODE)?.taints).toEqual([]);
    expect(f.workflows.started.filter((s) => s.machine === 'terminate')).toEqual([]);
  });

  it.each([
    [{ reason: 'Underutilized', candidates: [] }, /candidates/],
    [{ reason: 'Bored', candidates: [{ nodeClaimName: 'default-old01' }] }, /reason/],
    [{ reason: 'Empty', candidates: [{ nodeClaimName: 'default-zzz99' }] }, /does not exist/],
  ])('should fail at once with no side effect on wrong input %j', async (bad, message) => {
    // Prepare
    const f = setup();

    // Act
    const run = await runLocalExecution('disrupt', bad, { handlers: createLocalHandlers(f) });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
    expect(run.cause).toMatch(message);
    expect(f.cluster.writes).toEqual([]);
    expect(f.workflows.started).toEqual([]);
  });
});
