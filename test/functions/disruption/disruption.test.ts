import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/disruption/disruption';
import { parseDisruptInput, parseTerminateInput } from '../../../shared/core/lifecycle';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { Annotation } from '../../../shared/core/model/labels';
import { PodsFingerprintAnnotation } from '../../../shared/core/disruption';
import { ago, bound, c6g, HOUR, managed, NOW, pool } from '../../core/disruption/builders';
import { context, scheduledEvent, world } from './world';

const fast = { pollMs: 10_000, budgetMs: 50_000 };

function emptyNode(o: { budget?: string } = {}) {
  const p = pool({ budgets: [{ nodes: o.budget ?? '100%' }], consolidateAfter: 30 });
  const empty = managed('ip-10-0-1-1', { pool: p, type: c6g.xlarge, lastPodEventTime: ago(600) });
  const busy = managed('ip-10-0-1-2', { pool: p, type: c6g.xlarge });
  return { p, empty, busy, w: world({ pools: [p], nodes: [empty, busy], pods: [bound(busy, { name: 'web-1', cpu: '3' })] }) };
}

describe('disruption function', () => {
  it('should start one disrupt execution for an empty node past consolidateAfter and write the audit of the decision', async () => {
    // Prepare
    const { w } = emptyNode();

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), context('req-1'));

    // Assess
    expect(w.workflows.started).toHaveLength(1);
    const [run] = w.workflows.started;
    expect(run.machine).toBe('disrupt');
    expect(run.input).toMatchObject({ reason: 'Empty', candidates: [{ nodeClaimName: 'claim-ip-10-0-1-1', nodeName: 'ip-10-0-1-1' }], replacements: [] });
    expect(() => parseDisruptInput(run.input)).not.toThrow();
    expect(result).toMatchObject({ skipped: false, passes: 1, abandoned: [] });
    const audit = await w.store.auditLog({ kind: 'disruption', sinceMs: NOW - HOUR * 1000 });
    expect(audit.find((r) => r.action === 'chosen')).toMatchObject({ reason: 'empty', nodeClaims: ['claim-ip-10-0-1-1'] });
    expect(audit.find((r) => r.action === 'started')).toMatchObject({ nodeClaims: ['claim-ip-10-0-1-1'], detail: { machine: 'disrupt', execution: run.name } });
    expect(result.auditRecords).toBe(audit.length);
  });

  it('should wait 15 s and cancel the command when a pod arrives on the node meanwhile', async () => {
    // Prepare
    const { w, empty } = emptyNode();
    w.clock.onSleep = (ms) => {
      if (ms === 15_000 && !w.cluster.pods.some((p) => p.name === 'newcomer')) w.addPod(bound(empty, { name: 'newcomer', cpu: '500m' }));
    };

    // Act
    const result = await createHandler(w, fast)({ reconcile: true }, context('req-1'));

    // Assess
    expect(w.workflows.started).toEqual([]);
    expect(result.abandoned).toHaveLength(1);
    expect(result.abandoned[0].why).toMatch(/newcomer|pod event/);
    expect(w.log.lines.find((l) => l.message === 'abandoning disruption command')?.fields).toMatchObject({ reason: 'empty', nodeclaim: 'claim-ip-10-0-1-1' });
    const audit = await w.store.auditLog({ kind: 'disruption', sinceMs: 0 });
    expect(audit.find((r) => r.action === 'abandoned')).toMatchObject({ nodeClaims: ['claim-ip-10-0-1-1'] });
  });

  it('should write Unconsolidatable events at most every 15 minutes across invocations, as from one long-lived recorder', async () => {
    // Prepare: one busy node nothing cheaper can hold.
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: 30 });
    const busy = managed('ip-10-0-1-2', { pool: p, type: c6g.xlarge, lastPodEventTime: ago(600) });
    const w = world({ pools: [p], nodes: [busy], pods: [bound(busy, { name: 'web-1', cpu: '3' })] });
    const unconsolidatable = () => w.cluster.events.filter((e) => e.includes(' Unconsolidatable: ')).length;

    // Act: two invocations (two Lambda containers) a minute apart, then one 16 minutes later.
    await createHandler(w, { ...fast, budgetMs: 1 })({ reconcile: true }, context('req-1'));
    const first = unconsolidatable();
    w.clock.advance(60_000);
    await createHandler(w, { ...fast, budgetMs: 1 })({ reconcile: true }, context('req-2'));
    const second = unconsolidatable();
    w.clock.advance(16 * 60_000);
    await createHandler(w, { ...fast, budgetMs: 1 })({ reconcile: true }, context('req-3'));

    // Assess: on the Node and its NodeClaim, once, then again after 15 minutes.
    expect(first).toBe(2);
    expect(second).toBe(2);
    expect(unconsolidatable()).toBe(4);
  });

  it('should do nothing while another invocation holds the lease', async () => {
    // Prepare
    const { w } = emptyNode();
    await w.store.acquireLease('disruption', 'req-other', 90);

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), context('req-1'));

    // Assess
    expect(result.skipped).toBe(true);
    expect(w.workflows.started).toEqual([]);
    expect(w.snapshots()).toBe(0);
    expect(await w.store.auditLog({ sinceMs: 0 })).toEqual([]);
  });

  it('should not start a second execution when the same scheduled event is retried', async () => {
    // Prepare
    const { w } = emptyNode();
    const event = scheduledEvent(NOW);
    await createHandler(w, fast)(event, context('req-1'));

    // Act: Lambda retries the event (another request id) before the execution has tainted the node
    await createHandler(w, fast)(event, context('req-2'));

    // Assess
    expect(w.workflows.started).toHaveLength(1);
    expect(w.log.messages()).toContain('disruption command already started (retried invocation)');
  });

  it('should not start another command on a node whose disrupt execution has not tainted it yet', async () => {
    // Prepare
    const { w } = emptyNode();
    await createHandler(w, fast)(scheduledEvent(NOW, 'evt-1'), context('req-1'));

    // Act: the next scheduled run a minute later, the node still untainted
    const next = await createHandler(w, fast)(scheduledEvent(NOW + 60_000, 'evt-2'), context('req-2'));

    // Assess
    expect(w.workflows.started).toHaveLength(1);
    expect(next.abandoned.map((a) => a.why).join()).toMatch(/already part of another disruption command/);
    expect(next.passes).toBe(1);
  });

  it('should expire a claim forcefully with a terminate execution even under a 0% budget', async () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '0%' }], expireAfter: 24 * HOUR });
    const old = managed('ip-10-0-2-1', { pool: p, type: c6g.xlarge, createdAt: ago(25 * HOUR) });
    const w = world({ pools: [p], nodes: [old], pods: [bound(old, { name: 'web-1' })] });

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), context('req-1'));

    // Assess
    expect(w.workflows.started).toHaveLength(1);
    expect(w.workflows.started[0]).toMatchObject({ machine: 'terminate', input: { nodeClaimName: 'claim-ip-10-0-2-1', reason: 'Expired' } });
    expect(() => parseTerminateInput(w.workflows.started[0].input)).not.toThrow();
    expect(w.clock.slept).not.toContain(15_000);
    expect(result.executions[0]).toMatchObject({ reason: 'expired', alreadyStarted: false });
  });

  it("should log Karpenter's line for a replace with reason, command id, nodeclaim and nodepool", async () => {
    // Prepare: seed 000 — one pod left on a c6g.2xlarge
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: 0 });
    const big = managed('ip-192-168-185-240', { pool: p, type: c6g.x2large });
    const w = world({ pools: [p], nodes: [big], pods: [bound(big, { name: 'inflate-1', cpu: '1' })] });

    // Act
    await createHandler(w, fast)(scheduledEvent(NOW), context('req-1'));

    // Assess
    const line = w.log.lines.find((l) => l.message.startsWith('disrupting nodeclaim(s)'));
    expect(line?.message).toMatch(
      /^disrupting nodeclaim\(s\) via replace, terminating 1 nodes \(1 pods\) ip-192-168-185-240\/c6g\.2xlarge\/on-demand and replacing with on-demand node from types c6g\.large/,
    );
    expect(line?.fields).toMatchObject({
      reason: 'underutilized',
      'command-id': w.workflows.started[0].name,
      nodeclaim: 'claim-ip-192-168-185-240',
      nodepool: 'default',
    });
    expect(w.workflows.started[0]).toMatchObject({ machine: 'disrupt', input: { reason: 'Underutilized' } });
    const [replacement] = (w.workflows.started[0].input as { replacements: NodeClaim[] }).replacements;
    expect(replacement.annotations).toMatchObject({ [Annotation.nodePoolHash]: expect.any(String), [Annotation.nodeClassHash]: expect.any(String) });
    expect(() => parseDisruptInput(w.workflows.started[0].input)).not.toThrow();
  });

  it('should replace a node the cloud provider reports drifted without the consolidation wait', async () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const a = managed('ip-10-0-3-1', { pool: p, type: c6g.xlarge });
    const b = managed('ip-10-0-3-2', { pool: p, type: c6g.xlarge });
    const w = world({
      pools: [p],
      nodes: [a, b],
      pods: [bound(a, { name: 'web-1' }), bound(b, { name: 'web-2' })],
      drift: (claim) => {
        if (claim.name === 'claim-ip-10-0-3-2') throw new Error('throttled');
        return claim.name === 'claim-ip-10-0-3-1' ? 'AMIDrift' : undefined;
      },
    });

    // Act
    await createHandler(w, fast)({ reconcile: true }, context('req-1'));

    // Assess
    expect(w.workflows.started).toHaveLength(1);
    expect(w.workflows.started[0].input).toMatchObject({ reason: 'Drifted', candidates: [{ nodeClaimName: 'claim-ip-10-0-3-1' }] });
    expect(w.clock.slept).toEqual([]);
    expect(w.log.lines.find((l) => l.message === 'could not check nodeclaim drift')?.fields).toMatchObject({ nodeclaim: 'claim-ip-10-0-3-2' });
  });

  it("should keep polling every 10 s when there is nothing to do and write the last pass's reasons once", async () => {
    // Prepare: consolidation disabled, one busy node
    const p = pool({ consolidateAfter: null });
    const a = managed('ip-10-0-4-1', { pool: p, type: c6g.xlarge });
    const w = world({ pools: [p], nodes: [a], pods: [bound(a, { name: 'web-1' })] });

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), context('req-1'));

    // Assess
    expect(result.passes).toBe(5);
    expect(w.workflows.started).toEqual([]);
    // The reasons of the last pass once, beside the fleet's cost sample (one per 15 minutes).
    const audit = await w.store.auditLog({ sinceMs: 0 });
    expect(audit.filter((r) => r.action === 'fleet')).toEqual([
      expect.objectContaining({ kind: 'disruption', detail: { perHour: expect.any(Number), nodes: 1 } }),
    ]);
    const reasons = audit.filter((r) => r.action !== 'fleet');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatchObject({ action: 'skipped', nodeClaims: ['claim-ip-10-0-4-1'], detail: { why: 'consolidateAfter is Never' } });
  });

  it('should start no pass that could run into the function timeout: the budget ends a last pass plus a 15 s margin before it', async () => {
    // Prepare: nothing to do, so it polls until its budget; 60 s left → 60 − (15 + 10 + 10) − 15 = 10 s of passes
    const p = pool({ consolidateAfter: null });
    const a = managed('ip-10-0-4-1', { pool: p, type: c6g.xlarge });
    const w = world({ pools: [p], nodes: [a], pods: [bound(a, { name: 'web-1' })] });
    const ctx = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 60_000 } as never;

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), ctx);

    // Assess: one pass at 0 s, none at 10 s (its worst case would end 5 s before the timeout)
    expect(result.passes).toBe(1);
    expect(w.clock.slept).toEqual([]);
  });

  it('should start no second pass when the first one took so long that another could run into the timeout', async () => {
    // Prepare: a large cluster's read takes 30 s; 120 s left → the 50 s budget allows a pass at 40 s, but after a 30 s
    // pass another could take 30 s plus a last pass's searches and wait (35 s): 30 + 10 + 30 + 35 + 15 s margin ≥ 120 s
    const p = pool({ consolidateAfter: null });
    const a = managed('ip-10-0-4-1', { pool: p, type: c6g.xlarge });
    const w = world({ pools: [p], nodes: [a], pods: [bound(a, { name: 'web-1' })] });
    const read = w.cluster.snapshot.bind(w.cluster);
    w.cluster.snapshot = async () => {
      w.clock.advance(30_000);
      return read();
    };
    const ctx = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 120_000 } as never;

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), ctx);

    // Assess
    expect(result.passes).toBe(1);
  });

  it('should fail the invocation and free the node when the execution cannot be started', async () => {
    // Prepare
    const { w } = emptyNode();
    const start = w.workflows.start.bind(w.workflows);
    w.workflows.start = async () => {
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    };
    const failed = createHandler(w, fast)(scheduledEvent(NOW, 'evt-1'), context('req-1'));
    await expect(failed).rejects.toThrow('Rate exceeded');
    w.workflows.start = start;

    // Act: the next scheduled run
    const next = await createHandler(w, fast)(scheduledEvent(NOW + 60_000, 'evt-2'), context('req-2'));

    // Assess
    expect(next.skipped).toBe(false);
    expect(w.workflows.started).toHaveLength(1);
  });

  it('should not consolidate an empty node annotated do-not-consolidate, and log one deprecation warning per old key per invocation', async () => {
    // Prepare: several polling passes see the same old keys
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: 30 });
    const a = managed('ip-10-0-5-1', { pool: p, type: c6g.xlarge, lastPodEventTime: ago(600), nodeAnnotations: { [Annotation.doNotConsolidate]: 'true' } });
    const b = managed('ip-10-0-5-2', { pool: p, type: c6g.xlarge });
    const w = world({ pools: [p], nodes: [a, b], pods: [bound(b, { name: 'job-1', cpu: '3', annotations: { [Annotation.doNotEvict]: 'true' } })] });

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), context('req-1'));

    // Assess
    expect(result.passes).toBeGreaterThan(1);
    expect(w.workflows.started).toEqual([]);
    const warnings = w.log.lines.filter((l) => /is deprecated/.test(l.message)).map((l) => l.message);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(/karpenter\.sh\/do-not-evict is deprecated[\s\S]*karpenter\.sh\/do-not-consolidate is deprecated/);
  });

  it('should write pod events before first sightings and leave what a few seconds cannot write to the next pass (a fleet without fingerprints)', async () => {
    // Prepare: 60 claims never fingerprinted, one whose pods changed since its fingerprint; each write takes 250 ms
    const p = pool({ consolidateAfter: null });
    const fresh = Array.from({ length: 60 }, (_, i) => managed(`ip-10-0-6-${i}`, { pool: p, type: c6g.xlarge }));
    const changed = managed('ip-10-0-7-1', { pool: p, type: c6g.xlarge, claimAnnotations: { [PodsFingerprintAnnotation]: 'stale' } });
    const nodes = [...fresh, changed];
    const w = world({ pools: [p], nodes, pods: nodes.map((m, i) => bound(m, { name: `web-${i}` })) });
    const patch = w.cluster.patchNodeClaimMetadata.bind(w.cluster);
    w.cluster.patchNodeClaimMetadata = async (...args) => {
      w.clock.advance(250);
      return patch(...args);
    };
    const metadataWrites = () => w.cluster.writes.filter((x) => x.startsWith('patchNodeClaimMetadata'));

    // Act
    await createHandler(w, fast)({ reconcile: true }, context('req-1'));
    const first = metadataWrites().length;
    await createHandler(w, fast)({ reconcile: true }, context('req-2'));

    // Assess: the pod event first, with its time; about 5 s of writes per pass; the second pass goes on
    expect(metadataWrites()[0]).toBe('patchNodeClaimMetadata claim-ip-10-0-7-1');
    expect(w.cluster.claims.get('claim-ip-10-0-7-1')?.status.lastPodEventTime).toBe(NOW);
    expect(first).toBeGreaterThan(10);
    expect(first).toBeLessThan(40);
    expect(metadataWrites().length).toBeGreaterThan(first);
    expect(new Set(metadataWrites()).size).toBe(metadataWrites().length);
  });

  it("should leave the pass to the next call when the controller's call must end sooner than a pass could take", async () => {
    // Prepare: an empty node that would be consolidated; the call must end in 20 s (a pass may take 35 s)
    const { w } = emptyNode();

    // Act
    const soon = await createHandler(w, fast)({ reconcile: true, deadlineMs: NOW + 20_000 }, context('req-1'));
    const later = await createHandler(w, fast)({ reconcile: true, deadlineMs: NOW + 80_000 }, context('req-2'));

    // Assess
    expect(soon).toMatchObject({ skipped: false, passes: 0 });
    expect(later.passes).toBe(1);
    expect(w.workflows.started).toHaveLength(1);
  });

  it('should drop a consolidation command it has no time left to validate rather than run into its timeout', async () => {
    // Prepare: an empty node; 60 s left and a 30 s read of the cluster (deadline 45 s: no room for 15 s + a re-check)
    const { w } = emptyNode();
    const read = w.cluster.snapshot.bind(w.cluster);
    w.cluster.snapshot = async () => {
      w.clock.advance(30_000);
      return read();
    };
    const ctx = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 60_000 } as never;

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), ctx);

    // Assess
    expect(w.workflows.started).toEqual([]);
    expect(w.clock.slept).not.toContain(15_000);
    expect(result.abandoned).toEqual([{ method: 'emptiness', nodeClaims: ['claim-ip-10-0-1-1'], why: expect.stringMatching(/no time left/) }]);
  });

  it('should decide nothing after a read that took more than half its time (a new container listing a large cluster), and end there', async () => {
    // Prepare: an empty node; 90 s left and a 50 s first read of the cluster
    const { w } = emptyNode();
    const read = w.cluster.snapshot.bind(w.cluster);
    w.cluster.snapshot = async () => {
      w.clock.advance(50_000);
      return read();
    };
    const ctx = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 90_000 } as never;
    const start = w.clock.now();

    // Act
    const result = await createHandler(w, fast)(scheduledEvent(NOW), ctx);

    // Assess: no command, no validation wait, no second pass; the next call decides from the warm copy
    expect(result.passes).toBe(1);
    expect(w.workflows.started).toEqual([]);
    expect(w.clock.now() - start).toBeLessThan(55_000);
    expect(w.log.messages()).toContain('reading the cluster took this call too long to decide; the next call decides from the copy it keeps');
  });
});
