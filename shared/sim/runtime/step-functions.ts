/**
 * Step Functions, simulated: StartExecution runs the real ASL file (statemachines/<machine>.asl.yml) with
 * aws-local-stepfunctions, each Task invoking the deployed handler of its function key. Wait states take
 * virtual time: the runner skips them and the Task that follows first sleeps on the virtual clock for the
 * Wait seconds on the path from the previous Task (the graph of the ASL decides which Waits lie between).
 */
import '../../polyfills';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { WorkflowName } from '../../core/ports';
import type { VirtualClock } from '../clock';
import { loadDefinition, statesOfType, taskBindings, retryDelaySeconds, type AslDefinition, type AslState } from '../sfn/definitions';
import type { ExecutionStarter } from '../aws/services';
import { countTransitions } from './bill';

export interface ExecutionRecord {
  machine: WorkflowName;
  name: string;
  arn: string;
  input: string;
  startedMs: number;
  stoppedMs?: number;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  error?: string;
  cause?: string;
  output?: string;
  tasks: string[];
  /** Billed state transitions so far (states entered + retries; metering.ts). */
  transitions?: number;
}

export type InvokeFunction = (functionKey: string, payload: unknown) => Promise<unknown>;

const transitions = (s: AslState): string[] => {
  const out: string[] = [];
  if (typeof s.Next === 'string') out.push(s.Next);
  if (typeof s.Default === 'string') out.push(s.Default);
  for (const c of (s.Choices as { Next?: string }[] | undefined) ?? []) if (c.Next) out.push(c.Next);
  for (const c of (s.Catch as { Next?: string }[] | undefined) ?? []) if (c.Next) out.push(c.Next);
  return out;
};

/** A simple JSONPath (`$`, `$.a.b`, `$.a[0]`) read from data; undefined when absent or not that simple. */
export function readPath(data: unknown, path: string): unknown {
  if (path === '$') return data;
  if (!path.startsWith('$.')) return undefined;
  let cur: unknown = data;
  for (const part of path.slice(2).split('.')) {
    const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    cur = (cur as Record<string, unknown> | undefined)?.[m[1]];
    for (const idx of m[2].match(/\d+/g) ?? []) cur = (cur as unknown[] | undefined)?.[Number(idx)];
  }
  return cur;
}

/** How long a Wait state waits given its input: Seconds, SecondsPath, Timestamp or TimestampPath. */
export function waitSeconds(state: AslState, input: unknown, nowMs: number): number {
  if (typeof state.Seconds === 'number') return state.Seconds;
  if (typeof state.SecondsPath === 'string') {
    const v = Number(readPath(input, state.SecondsPath));
    return Number.isFinite(v) && v > 0 ? v : 0;
  }
  const ts = typeof state.Timestamp === 'string' ? state.Timestamp : typeof state.TimestampPath === 'string' ? readPath(input, state.TimestampPath) : undefined;
  const at = typeof ts === 'string' ? Date.parse(ts) : NaN;
  return Number.isFinite(at) ? Math.max(0, (at - nowMs) / 1000) : 0;
}

/**
 * Seconds of Wait states on the shortest path from `from` (a Task, or undefined = StartAt) to the Task `to`,
 * through non-Task states; `data` is what flows along the path (the previous Task's output), for SecondsPath.
 */
export function waitSecondsBetween(states: Record<string, AslState>, startAt: string, from: string | undefined, to: string, data: unknown = {}, nowMs = 0): number {
  const starts = from ? transitions(states[from] ?? { Type: 'Task' }) : [startAt];
  const queue: { name: string; wait: number }[] = starts.map((name) => ({ name, wait: 0 }));
  const seen = new Set<string>();
  while (queue.length > 0) {
    const { name, wait } = queue.shift() as { name: string; wait: number };
    const s = states[name];
    if (!s || seen.has(name)) continue;
    seen.add(name);
    const w = wait + (s.Type === 'Wait' ? waitSeconds(s, data, nowMs) : 0);
    if (name === to) return w;
    if (s.Type === 'Task' || s.Type === 'Map' || s.Type === 'Parallel') continue;
    for (const n of transitions(s)) queue.push({ name: n, wait: w });
  }
  return 0;
}

/** A Task's output from its Lambda result as the optimized integration returns it ({Payload}), for simple OutputPath / ResultPath. */
function taskOutput(state: AslState, input: unknown, result: unknown): unknown {
  const raw = { Payload: result, StatusCode: 200 };
  if (typeof state.ResultPath === 'string' && state.ResultPath !== '$') {
    const merged = { ...(typeof input === 'object' && input ? input as Record<string, unknown> : {}) };
    if (/^\$\.[A-Za-z0-9_]+$/.test(state.ResultPath)) merged[state.ResultPath.slice(2)] = raw;
    return typeof state.OutputPath === 'string' ? readPath(merged, state.OutputPath) : merged;
  }
  if (state.ResultPath === null) return input;
  return typeof state.OutputPath === 'string' ? readPath(raw, state.OutputPath) : raw;
}

const compiledCache = new Map<string, { definition: AslDefinition; compiled: StateMachine }>();

/**
 * The machine's ASL file, read and validated once per process and file content (validation by
 * aws-local-stepfunctions is slow; the file is re-read so an edited ASL is never served stale).
 */
function compiledMachine(machine: WorkflowName): { definition: AslDefinition; compiled: StateMachine } {
  const definition = loadDefinition(machine);
  const key = `${machine}:${JSON.stringify(definition)}`;
  let hit = compiledCache.get(key);
  if (!hit) {
    hit = { definition, compiled: new StateMachine(definition as unknown as StateMachineDefinition, { validationOptions: { checkArn: false } }) };
    compiledCache.set(key, hit);
  }
  return hit;
}

export class SimulatedStepFunctions implements ExecutionStarter {
  readonly executions: ExecutionRecord[] = [];
  private readonly byArn = new Map<string, ExecutionRecord>();
  private readonly machines = new Map<WorkflowName, { definition: AslDefinition; compiled: StateMachine }>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly arns: Record<WorkflowName, string>,
    private readonly invoke: InvokeFunction,
    private readonly onFinished?: (e: ExecutionRecord) => void,
  ) {}

  private machineOf(arn: string): WorkflowName | undefined {
    return (Object.entries(this.arns) as [WorkflowName, string][]).find(([, a]) => a === arn)?.[0];
  }

  private load(machine: WorkflowName) {
    let m = this.machines.get(machine);
    if (!m) {
      m = compiledMachine(machine);
      this.machines.set(machine, m);
    }
    return m;
  }

  start(stateMachineArn: string, name: string, input: string) {
    const machine = this.machineOf(stateMachineArn);
    if (!machine) throw Object.assign(new Error(`State Machine Does Not Exist: '${stateMachineArn}'`), { name: 'StateMachineDoesNotExist' });
    const arn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.byArn.get(arn);
    if (existing) return { executionArn: arn, startDate: new Date(existing.startedMs), existing: true, sameInput: existing.status === 'RUNNING' && existing.input === input };
    const record: ExecutionRecord = { machine, name, arn, input, startedMs: this.clock.now(), status: 'RUNNING', tasks: [] };
    this.executions.push(record);
    this.byArn.set(arn, record);
    void this.clock.track(`sfn:${machine}:${name}`, () => this.run(record));
    return { executionArn: arn, startDate: new Date(record.startedMs), existing: false, sameInput: true };
  }

  describe(executionArn: string) {
    const e = this.byArn.get(executionArn);
    if (!e) return undefined;
    return { status: e.status, startDate: new Date(e.startedMs), ...(e.stoppedMs !== undefined ? { stopDate: new Date(e.stoppedMs) } : {}), input: e.input, ...(e.output !== undefined ? { output: e.output } : {}) };
  }

  running(): ExecutionRecord[] {
    return this.executions.filter((e) => e.status === 'RUNNING');
  }

  private async run(record: ExecutionRecord): Promise<void> {
    const { definition, compiled } = this.load(record.machine);
    const topLevel = new Set(Object.keys(definition.States));
    let previousTask: string | undefined;
    let previousOutput: unknown = JSON.parse(record.input);
    const taskResourceLocalHandlers: Record<string, (input: unknown) => Promise<unknown>> = {};
    const retryIntervalOverrides: Record<string, number> = {};
    // The library's retry timers run on real time: set to 0, and the interval is waited here, on virtual time,
    // before the retried attempt — so a fault that lasts 30 s outlives the first retries, as in Step Functions.
    const failures = new Map<string, { error: string; attempts: number }>();
    for (const { stateName, functionKey, retry } of taskBindings(definition)) {
      retryIntervalOverrides[stateName] = 0;
      taskResourceLocalHandlers[stateName] = async (effective) => {
        const failed = failures.get(stateName);
        const backoff = failed ? retryDelaySeconds(retry, failed.error, failed.attempts) : undefined;
        if (backoff) await this.clock.sleep(backoff * 1000);
        try {
          return await attempt(effective);
        } catch (e) {
          const error = e instanceof Error ? e.name : 'Error';
          failures.set(stateName, { error, attempts: failed?.error === error ? failed.attempts + 1 : 1 });
          throw e;
        }
      };
      const attempt = async (effective: unknown) => {
        failures.delete(stateName);
        const top = topLevel.has(stateName);
        if (top) {
          const wait = waitSecondsBetween(definition.States, definition.StartAt, previousTask, stateName, previousOutput, this.clock.now());
          previousTask = stateName;
          if (wait > 0) await this.clock.sleep(wait * 1000);
        }
        record.tasks.push(functionKey);
        const payload = (effective as { Payload?: unknown } | null)?.Payload;
        const result = JSON.parse(JSON.stringify((await this.invoke(functionKey, JSON.parse(JSON.stringify(payload ?? null)))) ?? null)) as unknown;
        if (top) previousOutput = taskOutput(definition.States[stateName], previousOutput, result);
        return { Payload: result, StatusCode: 200 };
      };
    }
    const waitTimeOverrides = Object.fromEntries(statesOfType(definition, 'Wait').map((n) => [n, 0]));
    const execution = compiled.run(JSON.parse(record.input) as never, {
      overrides: { taskResourceLocalHandlers: taskResourceLocalHandlers as never, waitTimeOverrides, retryIntervalOverrides },
      context: { Execution: { Name: record.name, Id: record.arn, Input: JSON.parse(record.input), StartTime: new Date(record.startedMs).toISOString() } } as never,
    });
    void countTransitions(execution.eventLogs, (n) => { record.transitions = n; });
    try {
      const output = await execution.result;
      record.status = 'SUCCEEDED';
      record.output = JSON.stringify(output ?? null);
    } catch (e) {
      const cause = (e as { cause?: { name?: string; message?: string; cause?: string } }).cause;
      record.status = 'FAILED';
      record.error = cause?.name ?? (e as Error).name;
      record.cause = cause?.cause ?? cause?.message ?? (e as Error).message;
    }
    record.stoppedMs = this.clock.now();
    this.onFinished?.(record);
  }
}
