/**
 * nodewright's log lines as `simulate` and `sim serve` print them (`--log-format text|json`): the production
 * functions' Powertools log records — Karpenter's messages and field names (`NodeClaim`, `NodePool`, `Node`,
 * `pods`…) — with the simulated time. `json` is one object per line for jq: `level`, `time` (simulated,
 * RFC 3339, when the start is known), `t` (simulated seconds), `message`, then the record's fields.
 */
import type { SimulationEvent } from '../shared/sim';
import { clock } from './report';

export type LogFormat = 'text' | 'json';

const value = (v: unknown): string => (typeof v === 'string' && v !== '' && !/\s/.test(v) ? v : JSON.stringify(v));

export function formatLogLine(e: Pick<SimulationEvent, 't' | 'level' | 'message' | 'fields'>, format: LogFormat, startMs?: number): string {
  if (format === 'json') {
    const time = startMs === undefined ? {} : { time: new Date(startMs + Math.round(e.t * 1000)).toISOString() };
    return JSON.stringify({ level: e.level.toUpperCase(), ...time, t: e.t, message: e.message, ...e.fields });
  }
  const fields = Object.entries(e.fields)
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(' ');
  return `${clock(e.t)}  ${e.level.toUpperCase().padEnd(5)}  ${e.message}${fields ? `  ${fields}` : ''}`;
}

/**
 * The simulator runs the AWS SDK in this process against simulated endpoints; on Node 20 the SDK warns on stderr
 * that it will need Node 22, which would interleave with the log lines. That notice is about the machine running
 * the simulator, not the deployed functions (nodejs22.x), so it is turned off for the simulator commands.
 */
export function quietSimulatedSdk(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
