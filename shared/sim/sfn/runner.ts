/**
 * The one Step Functions runner, for the tests and the simulator: runs an ASL file of statemachines/ with
 * aws-local-stepfunctions, each Task answered by `invoke(functionKey, payload)` — the function key is the
 * Task's `FunctionName` (the simulator invokes the deployed handler, the tests the module's createHandler:
 * handlers.ts). A result is wrapped in `{Payload: …}` as the optimized `lambda:invoke` integration does on
 * AWS, so `OutputPath: $.Payload` works in both places. Time is the run's `clock`: Wait states sleep on it,
 * and so do Retry intervals (IntervalSeconds × BackoffRate^n, MaxDelaySeconds, MaxAttempts, JitterStrategy
 * FULL drawn from the seed) — the simulator's virtual clock, a test's fake clock (local-machine.ts says how).
 */
import { ExecutionError } from 'aws-local-stepfunctions';
import type { Clock, WorkflowName } from '../../core/ports';
import { hashUnit } from '../hash';
import { allStates, loadDefinition, taskBindings, type AslDefinition, type AslState, type TaskBinding } from './definitions';
import { localMachine, waitSeconds } from './local-machine';
import { nextRetryDelayMs } from './retry';

/** Invokes the function of a function key with a (JSON) payload and returns its (JSON) result. */
export type InvokeFunction = (functionKey: string, payload: unknown) => Promise<unknown>;

export interface LocalRunOptions {
  /** Answers every Task; an error it throws is the Task's error (its `name` is what Retry and Catch match). */
  invoke: InvokeFunction;
  /** The time Wait states and Retry intervals are spent on (and `$$.Execution.StartTime`). */
  clock: Clock;
  /** `asl` (default): wait each Retry interval on the clock; `instant`: retry at once (for a test that wants only the attempts). */
  retryIntervals?: 'asl' | 'instant';
  /** Seed of the JitterStrategy FULL draws (a hash of it, the execution, the state, the payload and the attempt). */
  seed?: number;
  /** `$$.Execution.Name` (default `local-<machine>`). */
  executionName?: string;
  /** `$$.Execution.Id` (default a local ARN). */
  executionArn?: string;
  /** Runs this definition instead of statemachines/<machine>.asl.yml. */
  definition?: AslDefinition;
  /** Called when a Wait state starts waiting, before its time passes on the clock. */
  onWait?: (stateName: string, seconds: number) => void;
  /** Called before each attempt of a Task (retries included), with its function key. */
  onTask?: (functionKey: string) => void;
  /** Called with the billed state transitions so far (states entered + retries) as they grow. */
  onTransitions?: (count: number) => void;
}

export interface LocalExecution {
  status: 'SUCCEEDED' | 'FAILED';
  output?: unknown;
  /** Error name (a Fail state's Error, or the uncaught error's name). */
  error?: string;
  cause?: string;
  /** Function keys of the Task attempts in the order they ran (retries included), for assertions. */
  tasks: string[];
  /** Billed state transitions: states entered (Map iterations' included) plus retries. */
  transitions: number;
}

const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null)) as unknown;

type LocalHandler = (input: unknown) => Promise<unknown>;

/** One execution's Task and Wait handlers and what it counts. */
class Run {
  readonly tasks: string[] = [];
  private entered = 0;
  private retries = 0;

  constructor(
    private readonly options: LocalRunOptions,
    private readonly name: string,
  ) {}

  handlers(definition: AslDefinition): Record<string, LocalHandler> {
    const out: Record<string, LocalHandler> = {};
    for (const binding of taskBindings(definition)) out[binding.stateName] = (input) => this.task(binding, input);
    for (const [name, state] of allStates(definition)) {
      if (state.Type === 'Wait') out[name] = (input) => this.wait(name, state, input);
    }
    return out;
  }

  /** A Task visit: attempts until one succeeds or the Retry gives up (then its error goes to Catch). */
  private async task({ stateName, functionKey, retry }: TaskBinding, input: unknown): Promise<unknown> {
    const payload = json((input as { Payload?: unknown } | null)?.Payload);
    const retried: number[] = [];
    for (let attempt = 1; ; attempt++) {
      this.tasks.push(functionKey);
      this.options.onTask?.(functionKey);
      try {
        // JSON both ways: what a real Lambda sees and returns is JSON.
        return { Payload: json(await this.options.invoke(functionKey, json(payload))), StatusCode: 200 };
      } catch (e) {
        const error = e instanceof Error ? e.name : 'Error';
        const draw = () => hashUnit(this.options.seed ?? 0, this.name, stateName, JSON.stringify(payload), attempt);
        const delayMs = nextRetryDelayMs(retry, retried, error, draw);
        if (delayMs === undefined) throw e;
        if (delayMs > 0 && this.options.retryIntervals !== 'instant') await this.options.clock.sleep(delayMs);
        this.retries++;
        this.counted();
      }
    }
  }

  /** A Wait state (a Task for the library): its time passes on the clock, its input goes on. */
  private async wait(stateName: string, state: AslState, input: unknown): Promise<unknown> {
    const seconds = waitSeconds(state, input, this.options.clock.now());
    this.options.onWait?.(stateName, seconds);
    if (seconds > 0) await this.options.clock.sleep(seconds * 1000);
    return input;
  }

  async countEntered(events: AsyncIterable<{ type: string }>): Promise<void> {
    for await (const e of events) {
      if (e.type === 'StateEntered') {
        this.entered++;
        this.counted();
      }
    }
  }

  private counted(): void {
    this.options.onTransitions?.(this.transitions());
  }

  transitions(): number {
    return this.entered + this.retries;
  }
}

/** Runs one execution to its end. */
export async function runLocalExecution(machine: WorkflowName, input: unknown, options: LocalRunOptions): Promise<LocalExecution> {
  const definition = options.definition ?? loadDefinition(machine);
  const name = options.executionName ?? `local-${machine}`;
  const id = options.executionArn ?? `arn:aws:states:local:000000000000:execution:${machine}:${name}`;
  const run = new Run(options, name);
  const execution = localMachine(definition).run(input as never, {
    overrides: { taskResourceLocalHandlers: run.handlers(definition) as never },
    context: { Execution: { Name: name, Id: id, Input: input, StartTime: new Date(options.clock.now()).toISOString() } } as never,
  });
  const counting = run.countEntered(execution.eventLogs);
  try {
    const output = await execution.result;
    await counting;
    return { status: 'SUCCEEDED', output, tasks: run.tasks, transitions: run.transitions() };
  } catch (e) {
    await counting.catch(() => undefined);
    if (!(e instanceof ExecutionError)) throw e;
    const cause = (e as { cause?: { name?: string; message?: string; cause?: string } }).cause;
    return {
      status: 'FAILED',
      error: cause?.name ?? e.name,
      cause: cause?.cause ?? cause?.message ?? e.message,
      tasks: run.tasks,
      transitions: run.transitions(),
    };
  }
}
