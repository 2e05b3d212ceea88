import { describe, expect, it } from 'vitest';
import { disruptionIdOf, replacementClaimName } from '../../shared/core/lifecycle';
import { localFunctions, runLocalExecution } from '../../shared/sim/sfn';
import { fakes, node, nodeClaim, type Fakes } from '../fakes/lifecycle';
import { epochMs } from '../../shared/core/time';

/** The replacement's name: the disruption names it from its id (from the execution name, `local-disrupt` here). */
const NEW = replacementClaimName('default', disruptionIdOf('local-disrupt'), 0);

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
      const r = f.cluster.claims.get(NEW);
      if (r) r.status.conditions.push({ type: 'Initialized', status: 'True' });
    };

    // Act
    const run = await runLocalExecution('disrupt', input, { invoke: localFunctions(f), clock: f.clock, onWait });

    // Assess
    expect(run.status).toBe('SUCCEEDED');
    expect(f.cluster.nodes.get(NODE)?.taints.map((t) => t.key)).toEqual(['karpenter.sh/disrupted']);
    const [launch, terminate] = f.workflows.started;
    expect(launch).toMatchObject({ machine: 'launch', name: NEW, input: { nodeClaimName: NEW } });
    expect(f.cluster.claims.get(NEW)?.annotations['nodewright.io/disruption-id']).toBe(disruptionIdOf('local-disrupt'));
    expect(terminate.machine).toBe('terminate');
    expect(terminate.name).toMatch(/^default-old01-[a-z0-9]{8}$/);
    expect(terminate.input).toEqual({ nodeClaimName: 'default-old01', reason: 'Underutilized' });
  });

  it('should untaint candidates and roll replacements back when they are not ready before the deadline', async () => {
    // Prepare
    const f = setup();

    // Act
    const run = await runLocalExecution('disrupt', input, { invoke: localFunctions(f), clock: f.clock, onWait: () => f.clock.advance(5 * 60_000) });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'DisruptionRolledBack' });
    expect(f.cluster.nodes.get(NODE)?.taints).toEqual([]);
    expect(f.workflows.started.filter((s) => s.machine === 'terminate')).toEqual([
      expect.objectContaining({ input: { nodeClaimName: NEW, reason: 'DisruptionRollback' } }),
    ]);
  });

  it('should roll back when a replacement launch failed and its claim is gone', async () => {
    // Prepare
    const f = setup();
    const onWait = () => {
      f.cluster.claims.delete(NEW);
    };

    // Act
    const run = await runLocalExecution('disrupt', input, { invoke: localFunctions(f), clock: f.clock, onWait });

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
    const run = await runLocalExecution('disrupt', bad, { invoke: localFunctions(f), clock: f.clock });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
    expect(run.cause).toMatch(message);
    expect(f.cluster.writes).toEqual([]);
    expect(f.workflows.started).toEqual([]);
  });

  describe('a manual disrupt cannot hurt an unrelated node', () => {
    const HEALTHY = 'ip-10-0-0-9.eu-west-1.compute.internal';
    const healthyPid = 'aws:///eu-west-1a/i-0abc000000000009';
    function withHealthy(): Fakes {
      const f = setup();
      f.cluster.claims.set(
        'default-healthy',
        nodeClaim('default-healthy', { providerID: healthyPid, nodeName: HEALTHY, conditions: [{ type: 'Initialized', status: 'True' }] }),
      );
      f.cluster.nodes.set(HEALTHY, node(HEALTHY, { providerID: healthyPid, taints: [] }));
      f.cloud.instances.set(healthyPid, {
        instanceId: 'i-0abc000000000009',
        providerID: healthyPid,
        instanceType: 'm5.large',
        zone: 'eu-west-1a',
        capacityType: 'on-demand',
        launchTime: epochMs(0),
        state: 'running',
        tags: {},
      });
      return f;
    }

    it('should name the replacement itself, never adopt an existing claim of the input name, and not terminate it on rollback', async () => {
      // Prepare
      const f = withHealthy();
      const named = { ...input, replacements: [nodeClaim('default-healthy')] };

      // Act
      const run = await runLocalExecution('disrupt', named, { invoke: localFunctions(f), clock: f.clock, onWait: () => f.clock.advance(5 * 60_000) });

      // Assess
      expect(run).toMatchObject({ status: 'FAILED', error: 'DisruptionRolledBack' });
      const terminated = f.workflows.started.filter((s) => s.machine === 'terminate').map((s) => (s.input as { nodeClaimName: string }).nodeClaimName);
      expect(terminated).toEqual([NEW]);
      expect(f.workflows.started.filter((s) => s.machine === 'launch').map((s) => s.name)).toEqual([NEW]);
      expect(f.cluster.claims.get('default-healthy')?.annotations['nodewright.io/disruption-id']).toBeUndefined();
      expect(f.cloud.calls.filter((c) => c.startsWith('delete'))).toEqual([]);
    });

    it('should refuse to launch over a claim this disruption did not create and roll back without touching it', async () => {
      // Prepare: another actor created a claim under the name this disruption gives its replacement
      const f = withHealthy();
      const foreign = nodeClaim(NEW, { providerID: healthyPid, nodeName: HEALTHY, conditions: [{ type: 'Initialized', status: 'True' }] });
      f.cluster.claims.set(NEW, foreign);

      // Act
      const run = await runLocalExecution('disrupt', input, { invoke: localFunctions(f), clock: f.clock });

      // Assess
      expect(run).toMatchObject({ status: 'FAILED', error: 'DisruptionRolledBack' });
      expect(f.cluster.claims.get(NEW)).toEqual(foreign);
      expect(f.workflows.started).toEqual([]);
      expect(f.cluster.nodes.get(NODE)?.taints).toEqual([]);
    });

    it('should refuse a replacement outside its pool (r5.24xlarge spot for an m / on-demand pool) with no side effect', async () => {
      // Prepare
      const f = setup();
      const base = f.cloud.types[0];
      f.cloud.types = [
        { ...base, labels: { ...base.labels, 'karpenter.k8s.aws/instance-category': 'm' } },
        { ...base, name: 'r5.24xlarge', labels: { 'node.kubernetes.io/instance-type': 'r5.24xlarge', 'karpenter.k8s.aws/instance-category': 'r' } },
      ];
      f.cluster.nodePools[0].template.requirements = [
        { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ];
      const big = nodeClaim('default-big01');
      big.spec.requirements = [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['r5.24xlarge'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
      ];
      const onlyType = nodeClaim('default-big02');
      onlyType.spec.requirements = [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['r5.24xlarge'] }];

      // Act
      const spot = await runLocalExecution('disrupt', { ...input, replacements: [big] }, { invoke: localFunctions(f), clock: f.clock });
      const r5 = await runLocalExecution('disrupt', { ...input, replacements: [onlyType] }, { invoke: localFunctions(f), clock: f.clock });

      // Assess
      expect(spot).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
      expect(spot.cause).toMatch(/replacements\[0\]\.spec\.requirements: .*karpenter\.sh\/capacity-type.*spot.* is outside nodepool "default"/);
      expect(r5).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
      expect(r5.cause).toMatch(/instance type\(s\) r5\.24xlarge do not satisfy nodepool "default"'s requirements/);
      expect(f.cluster.writes).toEqual([]);
      expect(f.workflows.started).toEqual([]);
    });

    it("should give a replacement the pool's requirements, taints and an explicit instance-type list", async () => {
      // Prepare
      const f = setup();
      f.cluster.nodePools[0].template.requirements = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }];
      f.cluster.nodePools[0].template.taints = [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }];
      const open = nodeClaim('default-open1');
      open.spec.requirements = [];

      // Act
      await runLocalExecution(
        'disrupt',
        { ...input, replacements: [open] },
        { invoke: localFunctions(f), clock: f.clock, onWait: () => f.clock.advance(5 * 60_000) },
      );

      // Assess
      const claim = f.cluster.claims.get(NEW);
      expect(claim?.spec.requirements).toEqual([
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c5.large', 'm5.large'] },
      ]);
      expect(claim?.spec.taints).toEqual([{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }]);
      expect(f.cluster.writes.filter((w) => w.startsWith('createNodeClaim'))).toEqual([`createNodeClaim ${NEW}`]);
    });

    it.each([
      [
        'a candidate being deleted',
        (f: Fakes) => {
          f.cluster.claims.get('default-old01')!.deletionTimestamp = epochMs(1000);
        },
        { nodeClaimName: 'default-old01' },
        /already being deleted/,
      ],
      [
        "a candidate with another claim's node",
        () => undefined,
        { nodeClaimName: 'default-old01', nodeName: HEALTHY },
        /is not nodeclaim "default-old01"'s node/,
      ],
      [
        'an unmanaged candidate',
        (f: Fakes) => {
          f.cluster.claims.get('default-old01')!.spec.nodeClassRef = { group: 'example.com', kind: 'Other', name: 'x' };
        },
        { nodeClaimName: 'default-old01' },
        /not managed by nodewright/,
      ],
    ])('should refuse %s with no side effect', async (_what, prepare, candidate, message) => {
      // Prepare
      const f = withHealthy();
      prepare(f);

      // Act
      const run = await runLocalExecution('disrupt', { ...input, candidates: [candidate] }, { invoke: localFunctions(f), clock: f.clock });

      // Assess
      expect(run).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError' });
      expect(run.cause).toMatch(message);
      expect(f.cluster.writes).toEqual([]);
      expect(f.cluster.nodes.get(HEALTHY)?.taints).toEqual([]);
    });
  });
});
