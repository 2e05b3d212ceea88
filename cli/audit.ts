/**
 * `nodewright audit --table T --region R [--since 1h] [--kind disruption] [--action chosen,started]
 * [--nodeclaim NAME] [--limit 50] [--json]`: the audit log of the deployed functions, read from the DynamoDB
 * state table, newest first — what was decided, why, the savings, and the execution that carried it out.
 */
import type { Command } from 'commander';
import type { AuditRecord, StateStore } from '../shared/core/ports';
import { DurationParseError, parseDuration } from '../shared/core/model/duration';
import { CliUsageError } from './plan';
import { addSeconds, epochMs, type EpochMs } from '../shared/core/time';

export interface AuditOptions {
  table: string;
  /** The table's region; default: the AWS SDK's (AWS_REGION, profile). */
  region?: string;
  /** A duration back from now ("90m", "1h", "7d") or an ISO-8601 time; default 1h. */
  since?: string;
  kind?: string;
  /** Comma-separated actions to keep, e.g. "chosen,started,abandoned". */
  action?: string;
  nodeClaim?: string;
  /** Newest records shown (default 50). */
  limit?: number | string;
  json?: boolean;
  /** A shadow deployment's report: what it would have launched and disrupted, per day (./audit-shadow.ts). */
  shadow?: boolean;
}

export interface AuditDeps {
  /** Defaults to a DynamoStateStore on `table` in `region`. */
  store?: Pick<StateStore, 'auditLog'>;
  now?: () => EpochMs;
}

const AuditKinds: readonly AuditRecord['kind'][] = ['provisioning', 'disruption', 'interruption', 'termination', 'garbage-collection'];
const DEFAULT_SINCE = '1h';
const DEFAULT_LIMIT = 50;

function sinceMs(since: string | undefined, now: EpochMs): EpochMs {
  const text = (since ?? DEFAULT_SINCE).trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isFinite(ms)) throw new CliUsageError(`--since: "${text}" is not a valid ISO-8601 time`);
    return epochMs(ms);
  }
  try {
    return addSeconds(now, -parseDuration(text));
  } catch (e) {
    if (e instanceof DurationParseError) throw new CliUsageError(`--since: "${text}" is neither a duration (e.g. 30m, 1h, 7d) nor an ISO-8601 time`);
    throw e;
  }
}

function parseLimit(limit: number | string | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  const n = typeof limit === 'number' ? limit : Number(limit);
  if (!Number.isInteger(n) || n < 1) throw new CliUsageError(`--limit: "${String(limit)}" must be a positive whole number`);
  return n;
}

function parseKind(kind: string | undefined): AuditRecord['kind'] | undefined {
  if (kind === undefined) return undefined;
  if (!(AuditKinds as readonly string[]).includes(kind)) throw new CliUsageError(`--kind: "${kind}" is not one of ${AuditKinds.join(', ')}`);
  return kind as AuditRecord['kind'];
}

async function defaultStore(opts: AuditOptions, now: () => EpochMs): Promise<Pick<StateStore, 'auditLog'>> {
  const [{ DynamoDBClient }, { DynamoDBDocumentClient }, { DynamoStateStore }] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('@aws-sdk/lib-dynamodb'),
    import('../shared/adapters/aws/state-store'),
  ]);
  const client = new DynamoDBClient(opts.region ? { region: opts.region } : {});
  return new DynamoStateStore({ client: DynamoDBDocumentClient.from(client), tableName: opts.table, clock: { now } });
}

const money = (n: number) => `$${n.toFixed(4)}/h`;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Node claims with their nodes: "claim-a (node a), claim-b". */
function targets(r: AuditRecord): string {
  const claims = r.nodeClaims ?? [];
  const nodes = r.nodes ?? [];
  if (claims.length === 0) return nodes.join(', ');
  return claims.map((c, i) => (nodes[i] && nodes[i] !== c ? `${c} (node ${nodes[i]})` : c)).join(', ');
}

/** The lines of one record: a header, the why, and what was started or considered. */
function formatRecord(r: AuditRecord): string[] {
  const d = (r.detail ?? {}) as Record<string, unknown>;
  const method = typeof d.method === 'string' ? d.method : undefined;
  const head = [iso(r.at), r.kind, r.action, r.reason, method && method !== r.reason ? `(${method})` : undefined, targets(r) || undefined].filter(
    (x): x is string => x !== undefined && x !== '',
  );
  const lines = [head.join('  ') + (r.savingsPerHour !== undefined && r.savingsPerHour !== 0 ? `  saves ${money(r.savingsPerHour)}` : '')];
  if (typeof d.why === 'string') lines.push(`    why: ${d.why}`);
  if (typeof d.execution === 'string') lines.push(`    execution: ${typeof d.machine === 'string' ? `${d.machine}/` : ''}${d.execution}`);
  if (Array.isArray(d.replacements) && d.replacements.length > 0) {
    const rs = d.replacements.map((x) => {
      if (typeof x === 'string') return x;
      const o = x as { capacityType?: string; instanceTypes?: string[]; price?: number };
      return `${o.capacityType ?? '?'} ${(o.instanceTypes ?? []).slice(0, 3).join('|')}${o.price !== undefined ? ` at ${money(o.price)}` : ''}`;
    });
    lines.push(`    replacements: ${rs.join('; ')}`);
  }
  if (typeof d.disruptionId === 'string') lines.push(`    disruption: ${d.disruptionId}`);
  return lines;
}

/** Prints the audit log newest first; returns the exit code (bad flags throw CliUsageError, exit 2). */
export async function auditCommand(opts: AuditOptions, out: (s: string) => void, deps: AuditDeps = {}): Promise<number> {
  if (!deps.store && !opts.table)
    throw new CliUsageError('--table: the name of the nodewright state table is required (the STATE_TABLE_NAME of the deployed functions)');
  const now = deps.now ?? (() => epochMs(Date.now()));
  const query = { sinceMs: sinceMs(opts.since, now()), kind: parseKind(opts.kind) };
  const limit = parseLimit(opts.limit);
  const actions = opts.action
    ? new Set(
        opts.action
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean),
      )
    : undefined;
  const store = deps.store ?? (await defaultStore(opts, now));
  if (opts.shadow) {
    const { renderShadowReport, shadowReport } = await import('./audit-shadow');
    const days = shadowReport(await store.auditLog({ sinceMs: query.sinceMs }));
    out(opts.json ? JSON.stringify(days, null, 2) : renderShadowReport(days).join('\n'));
    return 0;
  }
  const records = (await store.auditLog(query))
    .filter(
      (r) =>
        (!actions || actions.has(r.action)) && (!opts.nodeClaim || (r.nodeClaims ?? []).includes(opts.nodeClaim) || (r.nodes ?? []).includes(opts.nodeClaim)),
    )
    .sort((a, b) => b.at - a.at)
    .slice(0, limit);
  if (opts.json) {
    out(JSON.stringify(records, null, 2));
    return 0;
  }
  if (records.length === 0) {
    out(`no audit records since ${iso(query.sinceMs)}${query.kind ? ` of kind ${query.kind}` : ''}`);
    return 0;
  }
  for (const r of records) for (const line of formatRecord(r)) out(line);
  return 0;
}

/** Registers `nodewright audit` on the CLI program; `setCode` receives the exit code. */
export function addAuditCommand(program: Command, setCode: (code: number) => void, out: (s: string) => void, deps: AuditDeps = {}): Command {
  return program
    .command('audit')
    .description('Show what the deployed functions decided and why (disruption moves, launches …), newest first, from the state table.')
    .requiredOption('--table <name>', 'the nodewright state table (STATE_TABLE_NAME of the functions, e.g. nodewright-dev-state)')
    .option('--region <region>', 'AWS region of the table (default: AWS_REGION / profile)')
    .option('--since <when>', 'a duration back from now (30m, 1h, 7d) or an ISO-8601 time', DEFAULT_SINCE)
    .option('--kind <kind>', `only records of this kind: ${AuditKinds.join(', ')}`)
    .option('--action <actions>', 'only these actions, comma-separated (e.g. chosen,started,abandoned,rejected)')
    .option('--nodeclaim <name>', 'only records about this NodeClaim or node')
    .option('--limit <n>', 'newest records shown', String(DEFAULT_LIMIT))
    .option('--json', 'print the records as JSON')
    .option('--shadow', 'a shadow deployment (shadow=true): what it would have launched and disrupted, per day')
    .action(async (o: Omit<AuditOptions, 'nodeClaim'> & { nodeclaim?: string }) => {
      const { nodeclaim, ...rest } = o;
      setCode(await auditCommand({ ...rest, ...(nodeclaim ? { nodeClaim: nodeclaim } : {}) }, out, deps));
    });
}
