import { QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { addAuditCommand, auditCommand } from '../../cli/audit';
import { CliUsageError } from '../../cli/plan';
import { createHandler } from '../../functions/disruption/disruption';
import { MemoryStateStore } from '../../shared/adapters/aws/state-store';
import type { AuditRecord } from '../../shared/core/ports';
import { bound, c6g, managed, NOW, pool } from '../core/disruption/builders';
import { context, scheduledEvent, world } from '../functions/disruption/world';
import { epochMs } from '../../shared/core/time';

const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());

function capture() {
  const lines: string[] = [];
  return {
    lines,
    out: (s: string) => {
      lines.push(s);
    },
  };
}

const record = (at: number, o: Partial<AuditRecord> = {}): AuditRecord => ({
  at: epochMs(at),
  kind: 'disruption',
  action: 'chosen',
  reason: 'empty',
  nodeClaims: ['claim-a'],
  nodes: ['a'],
  savingsPerHour: 0.136,
  detail: { method: 'emptiness', why: 'emptiness: delete of 1 node(s)' },
  ...o,
});

describe('nodewright audit', () => {
  it('should show why each move of the disruption function was made, newest first', async () => {
    // Prepare: the disruption function replaces a c6g.2xlarge holding one pod (seed 000)
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: 0 });
    const big = managed('ip-192-168-185-240', { pool: p, type: c6g.x2large });
    const w = world({ pools: [p], nodes: [big], pods: [bound(big, { name: 'inflate-1', cpu: '1' })] });
    await createHandler(w, { pollMs: 10_000 })(scheduledEvent(NOW), context('req-1'));
    const { lines, out } = capture();

    // Act
    const code = await auditCommand({ table: 'unused', region: 'eu-west-1', kind: 'disruption' }, out, { store: w.store, now: () => w.clock.now() });

    // Assess
    expect(code).toBe(0);
    const text = lines.join('\n');
    const started = lines.findIndex((l) => l.includes('  started  '));
    const chosen = lines.findIndex((l) => l.includes('  chosen  '));
    expect(started).toBeGreaterThanOrEqual(0);
    expect(chosen).toBeGreaterThan(started);
    expect(lines[chosen]).toMatch(
      /disruption {2}chosen {2}underutilized {2}\(single-node\) {2}claim-ip-192-168-185-240 \(node ip-192-168-185-240\) {2}saves \$0\.\d{4}\/h/,
    );
    expect(text).toContain(
      'why: disrupting nodeclaim(s) via replace, terminating 1 nodes (1 pods) ip-192-168-185-240/c6g.2xlarge/on-demand and replacing with on-demand node from types c6g.large',
    );
    expect(text).toMatch(/execution: disrupt\/disrupt-underutilized-/);
    expect(text).toMatch(/replacements: on-demand c6g\.large/);
  });

  it('should read the records from the DynamoDB state table', async () => {
    // Prepare
    const now = epochMs(Date.UTC(2026, 10, 22, 12, 0, 0));
    ddb.on(QueryCommand).resolves({
      Items: [
        { pk: 'AUDIT#2026-11-22', sk: 'x#1', kind: 'disruption', expiresAtMs: now + 1e9, record: record(now - 120_000) },
        {
          pk: 'AUDIT#2026-11-22',
          sk: 'x#2',
          kind: 'disruption',
          expiresAtMs: now + 1e9,
          record: record(now - 60_000, { action: 'abandoned', detail: { method: 'emptiness', why: 'validation after 15s: pod default/newcomer arrived' } }),
        },
      ],
    });
    const { lines, out } = capture();

    // Act
    const code = await auditCommand({ table: 'nodewright-dev-state', region: 'eu-west-1', since: '30m', kind: 'disruption' }, out, { now: () => now });

    // Assess
    expect(code).toBe(0);
    const query = ddb.commandCalls(QueryCommand)[0].args[0].input;
    expect(query).toMatchObject({ TableName: 'nodewright-dev-state', ExpressionAttributeValues: { ':pk': 'AUDIT#2026-11-22', ':kind': 'disruption' } });
    expect(lines[0]).toBe('2026-11-22T11:59:00Z  disruption  abandoned  empty  (emptiness)  claim-a (node a)  saves $0.1360/h');
    expect(lines[1]).toBe('    why: validation after 15s: pod default/newcomer arrived');
    expect(lines[2]).toMatch(/^2026-11-22T11:58:00Z {2}disruption {2}chosen/);
  });

  it('should filter by action and node claim and keep the newest records within the limit', async () => {
    // Prepare
    const store = new MemoryStateStore({ now: () => NOW });
    for (let i = 0; i < 5; i++) await store.audit(record(NOW - (10 - i) * 1000, { nodeClaims: [`claim-${i % 2}`], nodes: [`n${i % 2}`] }));
    await store.audit(record(NOW - 500, { action: 'skipped', nodeClaims: ['claim-0'] }));
    const { lines, out } = capture();

    // Act
    await auditCommand({ table: 't', region: 'eu-west-1', action: 'chosen', nodeClaim: 'claim-0', limit: '2', json: true }, out, { store, now: () => NOW });

    // Assess
    const shown = JSON.parse(lines.join('\n')) as AuditRecord[];
    expect(shown.map((r) => [r.at, r.action, r.nodeClaims])).toEqual([
      [NOW - 6000, 'chosen', ['claim-0']],
      [NOW - 8000, 'chosen', ['claim-0']],
    ]);
  });

  it('should say so when there is nothing in the window', async () => {
    // Prepare
    const { lines, out } = capture();

    // Act
    await auditCommand({ table: 't', region: 'eu-west-1', since: '2026-01-01T00:00:00Z' }, out, {
      store: new MemoryStateStore({ now: () => NOW }),
      now: () => NOW,
    });

    // Assess
    expect(lines).toEqual(['no audit records since 2026-01-01T00:00:00Z']);
  });

  it.each([
    [{ since: 'yesterday' }, /--since: "yesterday"/],
    [{ kind: 'launch' }, /--kind: "launch" is not one of provisioning, disruption/],
    [{ limit: '0' }, /--limit: "0" must be a positive whole number/],
    [{ table: '' }, /--table: the name of the nodewright state table is required/],
  ])('should refuse bad flags %o with a clear message and no read', async (bad, message) => {
    // Prepare
    const { out } = capture();

    // Act
    const run = auditCommand({ table: 't', region: 'eu-west-1', ...bad }, out, { now: () => NOW });

    // Assess
    await expect(run).rejects.toThrow(CliUsageError);
    await expect(auditCommand({ table: 't', region: 'eu-west-1', ...bad }, out, { now: () => NOW })).rejects.toThrow(message);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('should parse the flags of `nodewright audit` as registered on the CLI program', async () => {
    // Prepare
    const store = new MemoryStateStore({ now: () => NOW });
    await store.audit(record(NOW - 3 * 3600_000));
    await store.audit(
      record(NOW - 60_000, {
        action: 'started',
        detail: { method: 'emptiness', why: 'disrupting nodeclaim(s) via delete', machine: 'disrupt', execution: 'disrupt-empty-abc' },
      }),
    );
    const { lines, out } = capture();
    let code = -1;
    const program = new Command().exitOverride();
    addAuditCommand(
      program,
      (c) => {
        code = c;
      },
      out,
      { store, now: () => NOW },
    );

    // Act
    await program.parseAsync(['audit', '--table', 'nodewright-dev-state', '--since', '2h', '--kind', 'disruption', '--nodeclaim', 'a'], { from: 'user' });

    // Assess
    expect(code).toBe(0);
    expect(lines.filter((l) => !l.startsWith(' '))).toHaveLength(1);
    expect(lines).toContain('    execution: disrupt/disrupt-empty-abc');
  });

  it('should report what a shadow deployment would have done per day, each repeated decision once', async () => {
    // Prepare: the same 2 pods planned twice 2 minutes apart, then one disruption started twice, on one day.
    const t0 = Date.UTC(2026, 10, 28, 10);
    const launch = (at: number, claim: string) =>
      record(at, {
        kind: 'provisioning',
        action: 'shadow-createNodeClaim',
        nodeClaims: [claim],
        detail: { nodePool: 'default', instanceTypes: ['c6a.large'], pods: 2, podKeys: ['default/web-1/u1', 'default/web-2/u2'] },
      });
    const started = (at: number) => record(at, { action: 'started', reason: 'underutilized', nodeClaims: ['default-abcde'], savingsPerHour: 0.05 });
    const fleet = (at: number, perHour: number) => record(at, { action: 'fleet', detail: { perHour, nodes: 4 } });
    const store = {
      auditLog: async () => [
        fleet(t0, 0.8),
        launch(t0, 'default-aaaaa'),
        launch(t0 + 120_000, 'default-bbbbb'),
        started(t0 + 600_000),
        started(t0 + 900_000),
        fleet(t0 + 900_000, 0.6),
      ],
    };
    const { lines, out } = capture();
    // Act
    const code = await auditCommand({ table: 't', shadow: true, since: '7d' }, out, { store, now: () => epochMs(t0 + 3600_000) });
    // Assess
    expect(code).toBe(0);
    const text = lines.join('\n').split('\n');
    expect(text[0]).toMatch(/^DAY \(UTC\)\s+WOULD LAUNCH\s+FOR PODS\s+FIRST TYPES\s+WOULD DISRUPT\s+NODES\s+SAVING\s+FLEET THAT RAN\s+ITS FLEET$/);
    expect(text[1].split(/\s{2,}/)).toEqual(['2026-11-28', '1', '2', 'c6a.large', '1 underutilized', '1', '$0.0500/h', '$0.7000/h (4 nodes)', '-']);
  });
});
