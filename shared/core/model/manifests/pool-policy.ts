/**
 * nodewright's NodePool annotations for time: `nodewright.io/disruption-rate` (voluntary disruptions at most this fast —
 * Karpenter's budgets cap how many at once, not how fast) and `nodewright.io/schedules` (limits and consolidation on a
 * UTC cron schedule, e.g. a pool that takes no new node at night). A Karpenter controller ignores both.
 */
import { CronExpressionParser } from 'cron-parser';
import { parse } from 'yaml';
import * as z from '../../zod';
import { parseDuration, parseDurationOrNever } from '../duration';
import type { NodePool, PoolSchedule } from '../karpenter';
import { Annotation } from '../labels';
import { epochMs } from '../../time';
import { fail, resources, withPath, type ManifestContext } from './context';
import { durationOrNever, duration, nonNegativeQuantity, parseOrThrow } from './zod-helpers';

const RATE_RE = /^\s*((100|[0-9]{1,2})%|[0-9]+)\s*\/\s*(([0-9]+(s|m|h))+)\s*$/;
const SCHEDULE_RE = /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$/;

const scheduleSchema = z.array(
  z
    .object({
      schedule: z
        .string({ error: 'schedule is required' })
        .check(z.regex(SCHEDULE_RE, 'schedule must be a 5-field cron expression (UTC) or a macro such as @daily')),
      duration: duration('duration'),
      limits: z.optional(z.record(z.string(), nonNegativeQuantity)),
      consolidationPolicy: z.optional(z.enum(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'])),
      consolidateAfter: z.optional(durationOrNever('consolidateAfter')),
    })
    .check(
      z.refine(
        (s) => s.limits !== undefined || s.consolidationPolicy !== undefined || s.consolidateAfter !== undefined,
        'a schedule must override limits, consolidationPolicy or consolidateAfter',
      ),
    ),
);

/** Reads both annotations (and the rate's ledger) into the pool; a bad value fails the pool, naming the annotation. */
export function readPoolPolicy(pool: NodePool, annotations: Readonly<Record<string, unknown>>, ctx?: ManifestContext): void {
  const rate = annotations[Annotation.disruptionRate];
  if (rate !== undefined) {
    const m = typeof rate === 'string' ? RATE_RE.exec(rate) : null;
    if (!m)
      fail(
        ctx,
        `metadata.annotations["${Annotation.disruptionRate}"]`,
        `must be <nodes or percent>/<window>, e.g. "20%/1h" or "3/30m"; got ${JSON.stringify(rate)}`,
      );
    pool.disruption.rate = { nodes: m[1], windowSeconds: parseDuration(m[3]) };
    const ledger = String(annotations[Annotation.disruptionRateLedger] ?? '')
      .split(',')
      .map((x) => Number(x.trim()))
      .filter((x) => Number.isFinite(x) && x > 0)
      .map((x) => epochMs(x * 1000));
    if (ledger.length) pool.disruption.rateLedger = ledger.sort((a, b) => a - b);
  }
  const raw = annotations[Annotation.schedules];
  if (raw === undefined) return;
  const where = `metadata.annotations["${Annotation.schedules}"]`;
  let value: unknown;
  try {
    value = typeof raw === 'string' ? parse(raw) : raw;
  } catch (e) {
    fail(ctx, where, `is not YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = withPath(
    () => parseOrThrow(scheduleSchema, value, ctx),
    (path) => `${where}${path.startsWith('[') ? '' : '.'}${path}`,
  );
  parsed.forEach((s, i) => {
    try {
      CronExpressionParser.parse(s.schedule, { tz: 'UTC', currentDate: new Date(0) });
    } catch (e) {
      fail(ctx, `${where}[${i}].schedule`, `is not a valid cron expression: ${(e as Error).message}`);
    }
  });
  pool.schedules = parsed.map((s, i): PoolSchedule => {
    const out: PoolSchedule = { schedule: s.schedule, duration: parseDuration(s.duration) };
    if (s.limits) out.limits = resources(s.limits, ctx, `${where}[${i}].limits`);
    if (s.consolidationPolicy) out.consolidationPolicy = s.consolidationPolicy;
    if (s.consolidateAfter !== undefined) out.consolidateAfter = parseDurationOrNever(s.consolidateAfter, 0);
    return out;
  });
}
