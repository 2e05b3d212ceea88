/**
 * The shipped scenario examples/scenarios/chaos.yaml: API server 500s, requests it never answers (hang) or
 * answers with 504 after 60 s (the clients' 10 s request timeout fires first), DescribeCluster throttled while
 * cold containers start, EC2 requests hanging until the SDK's request timeout, EC2 / Step Functions / DynamoDB
 * writes applied but their answers lost (the SDK's retry repeats them), EC2 throttling, a LaunchNodeClaim that
 * times out after CreateFleet, a crashing provisioner, DynamoDB throttling and Step Functions errors, each
 * while pods wait. Target (issue #9): no pod waits more than 2 minutes beyond its fault's end, nothing lost,
 * tainted, orphaned or leaked; a spot interruption delivered twice acts once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult, SimulationRun } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario chaos', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('chaos');
  }, 300_000);

  it('should inject every fault kind of the scenario', () => {
    // Listed in the order each first bit; the three at 48m overlap, so only the set is fixed.
    expect(r.faults?.map((f) => `${f.target}:${f.kind}`).sort()).toEqual(
      [
        'kube-api:error',
        'ec2:throttle',
        'lambda:launchNodeClaim:timeout',
        'lambda:provisioner:crash',
        'dynamodb:throttle',
        'sfn:error',
        'sqs:duplicate',
        'kube-api:hang',
        'kube-api:timeout',
        'eks:throttle',
        'ec2:hang',
        'dynamodb:timeout',
        'ec2:timeout',
        'sfn:timeout',
      ].sort(),
    );
  });

  it('should act once on an interruption delivered twice under two message ids', () => {
    expect(r.disruptions.filter((d) => d.reason === 'interrupted')).toHaveLength(1);
    expect(r.nodes.filter((n) => n.interruptedAt !== undefined).every((n) => n.terminatedAt! - n.interruptedAt! < 120)).toBe(true);
  });

  it('should recover from each within 2 minutes of its end, losing and leaking nothing', () => {
    expectClean(r);
    expect(r.violations.podsLost).toBe(0);
    expect(r.final.pendingPods).toBe(0);
    expect((r as SimulationRun).invocationErrors).toEqual([]);
    // The longest fault lasts 60 s: a pod asked for capacity at most 60 s + 2 min after it appeared,
    // and ran at most a node's boot (≈ 46 s) later.
    expect(r.pods.maxLaunchLatencySeconds).toBeLessThanOrEqual(60 + 120);
    expect(r.pods.maxPendingSeconds).toBeLessThanOrEqual(60 + 120 + 46);
  });
});
