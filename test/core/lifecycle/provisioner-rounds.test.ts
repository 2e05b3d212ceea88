import { describe, expect, it } from 'vitest';
import { runProvisioner } from '../../../shared/core/lifecycle';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import type { Pod } from '../../../shared/core/model/kube';
import { epochMs } from '../../../shared/core/time';
import { fakes, perPodPlanner, pod, type Fakes } from '../../fakes/lifecycle';

const pending = (name: string): Pod => pod(name, { phase: 'Pending', unschedulable: true, nodeName: undefined });

/** Each create waits `ms` (on the fake clock) and yields, recording how many creates are in flight at once. */
function slowCreates(f: Fakes, ms: number) {
  const seen = { inFlight: 0, max: 0 };
  const create = f.cluster.createNodeClaim.bind(f.cluster);
  f.cluster.createNodeClaim = async (claim: NodeClaim) => {
    seen.inFlight++;
    seen.max = Math.max(seen.max, seen.inFlight);
    await new Promise((r) => setTimeout(r, 0));
    f.clock.advance(ms);
    seen.inFlight--;
    return create(claim);
  };
  return seen;
}

describe('provisioner rounds that finish', () => {
  it('should create a round’s claims and start their launches several at a time, within the concurrency limit', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = Array.from({ length: 40 }, (_, i) => pending(`web-${i}`));
    const seen = slowCreates(f, 15);

    // Act
    const result = await runProvisioner(f, perPodPlanner, { holder: 'req-1', once: true, batched: true, concurrency: 8 });

    // Assess
    expect(result.nodeClaims).toHaveLength(40);
    expect(f.workflows.started).toHaveLength(40);
    expect(seen.max).toBe(8);
  });

  it('should stop creating claims at its deadline and leave the rest, unnominated, to the next round', async () => {
    // Prepare: an API server answering each create in 2 s, 10 s left before the deadline
    const f = fakes();
    f.cluster.pods = Array.from({ length: 40 }, (_, i) => pending(`web-${i}`));
    slowCreates(f, 2_000);
    const deadlineMs = epochMs(f.clock.now() + 10_000);

    // Act
    const first = await runProvisioner(f, perPodPlanner, { holder: 'req-1', once: true, batched: true, concurrency: 4, deadlineMs });

    // Assess
    expect(first.nodeClaims.length).toBeGreaterThan(0);
    expect(first.nodeClaims.length).toBeLessThan(40);
    expect(first.deferred).toBe(40 - first.nodeClaims.length);
    expect(f.cluster.events.filter((e) => e.includes('Nominated'))).toHaveLength(first.nodeClaims.length);
    expect(f.log.messages()).toContain('round left nodeclaim(s) to the next round');
  });

  it('should still start its first wave of claims when its reads took it past the deadline', async () => {
    // Prepare: the deadline passed before the round could create anything
    const f = fakes();
    f.cluster.pods = Array.from({ length: 10 }, (_, i) => pending(`web-${i}`));
    const deadlineMs = epochMs(f.clock.now() - 1);

    // Act
    const round = await runProvisioner(f, perPodPlanner, { holder: 'req-1', once: true, batched: true, concurrency: 4, deadlineMs });

    // Assess: one wave (4 claims) is created and launched, the rest is the next round's
    expect(round.nodeClaims).toHaveLength(4);
    expect(f.workflows.started).toHaveLength(4);
    expect(round.deferred).toBe(6);
  });

  it('should go on with the other claims when one create fails, and plan its pods again', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = Array.from({ length: 5 }, (_, i) => pending(`web-${i}`));
    const create = f.cluster.createNodeClaim.bind(f.cluster);
    let calls = 0;
    f.cluster.createNodeClaim = async (claim: NodeClaim) => {
      if (++calls === 2) throw new Error('etcdserver: request timed out');
      return create(claim);
    };

    // Act
    const result = await runProvisioner(f, perPodPlanner, { holder: 'req-1', once: true, batched: true });

    // Assess
    expect(result.nodeClaims).toHaveLength(4);
    expect(result.deferred).toBe(1);
    expect(f.workflows.started).toHaveLength(4);
    expect(f.log.lines.find((l) => l.message.startsWith('could not create nodeclaim'))?.fields).toMatchObject({ error: 'etcdserver: request timed out' });
  });
});
