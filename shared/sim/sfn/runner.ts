/**
 * Runs the real ASL files locally with aws-local-stepfunctions, each Task answered by the real handler of its
 * function key (createHandler(deps) output). A handler's return value is wrapped in `{Payload: …}` as the
 * optimized `lambda:invoke` integration does on AWS, so `OutputPath: $.Payload` works in both places.
 */
import '../../polyfills';
import { ExecutionError, StateMachine, type RunOptions, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { WorkflowName } from '../../core/ports';
import { loadDefinition, statesOfType, taskBindings, type AslDefinition } from './definitions';

export type LocalHandler = (payload: unknown) => Promise<unknown>;

export interface LocalRunOptions {
  /** Handlers by function key; a Task whose function has no handler fails with LocalHandlerMissingError. */
  handlers: Record<string, LocalHandler>;
  /** `$$.Execution.Name`. */
  executionName?: string;
  /** Milliseconds each Wait state pauses (default 0: skip waits). */
  waitMs?: number;
  /** Milliseconds before each retry (default 0). */
  retryMs?: number;
  /** Called when a Wait state is entered (e.g. to advance a fake clock by its Seconds). */
  onWait?: (stateName: string, seconds: number) => void;
  definition?: AslDefinition;
}

export interface LocalExecution {
  status: 'SUCCEEDED' | 'FAILED';
  output?: unknown;
  /** Error name (a Fail state's Error, or the uncaught error's name). */
  error?: string;
  cause?: string;
  /** Task states in the order they ran (function keys), for assertions. */
  tasks: string[];
}

export class LocalHandlerMissingError extends Error {
  override readonly name = 'LocalHandlerMissingError' as const;
}

const cache = new Map<WorkflowName, StateMachine>();

/** Building a StateMachine validates the definition (slow): the repo's own files are compiled once per process. */
function compiled(machine: WorkflowName, definition: AslDefinition, cacheable: boolean): StateMachine {
  const hit = cacheable ? cache.get(machine) : undefined;
  if (hit) return hit;
  const built = new StateMachine(definition as unknown as StateMachineDefinition, { validationOptions: { checkArn: false } });
  if (cacheable) cache.set(machine, built);
  return built;
}

export async function runLocalExecution(machine: WorkflowName, input: unknown, options: LocalRunOptions): Promise<LocalExecution> {
  const definition = options.definition ?? loadDefinition(machine);
  const tasks: string[] = [];
  const taskResourceLocalHandlers: NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']> = {};
  const retryIntervalOverrides: Record<string, number> = {};
  for (const { stateName, functionKey } of taskBindings(definition)) {
    retryIntervalOverrides[stateName] = options.retryMs ?? 0;
    taskResourceLocalHandlers[stateName] = async (effective) => {
      tasks.push(functionKey);
      const handler = options.handlers[functionKey];
      if (!handler) throw new LocalHandlerMissingError(`no local handler for function "${functionKey}" (state ${stateName})`);
      const payload = (effective as { Payload?: unknown } | null)?.Payload;
      // JSON round trip: what a real Lambda sees and returns is JSON.
      const result = await handler(JSON.parse(JSON.stringify(payload ?? null)));
      return { Payload: JSON.parse(JSON.stringify(result ?? null)), StatusCode: 200 };
    };
  }
  const waitTimeOverrides: Record<string, number> = {};
  for (const name of statesOfType(definition, 'Wait')) {
    waitTimeOverrides[name] = options.waitMs ?? 0;
  }
  const machineDef = compiled(machine, definition, options.definition === undefined);
  const executionName = options.executionName ?? `local-${machine}`;
  const run = machineDef.run(input as never, {
    overrides: { taskResourceLocalHandlers, waitTimeOverrides, retryIntervalOverrides },
    context: { Execution: { Name: executionName, Id: `arn:aws:states:local:000000000000:execution:${machine}:${executionName}`, Input: input, StartTime: new Date(0).toISOString() } } as never,
  });
  const waits = options.onWait ? observeWaits(run.eventLogs, definition, options.onWait) : Promise.resolve();
  try {
    const output = await run.result;
    await waits;
    return { status: 'SUCCEEDED', output, tasks };
  } catch (e) {
    await waits.catch(() => undefined);
    if (e instanceof ExecutionError) {
      const cause = (e as { cause?: { name?: string; message?: string; cause?: string } }).cause;
      return { status: 'FAILED', error: cause?.name ?? e.name, cause: cause?.cause ?? cause?.message ?? e.message, tasks };
    }
    throw e;
  }
}

/** Seconds a Wait state would pause: `Seconds`, or a simple `SecondsPath` (`$.field`) read from the state's input. */
function waitSeconds(state: Record<string, unknown>, input: unknown): number {
  if (typeof state.Seconds === 'number') return state.Seconds;
  const path = typeof state.SecondsPath === 'string' ? /^\$\.(\w+)$/.exec(state.SecondsPath) : null;
  const value = path && input && typeof input === 'object' ? (input as Record<string, unknown>)[path[1]] : undefined;
  return typeof value === 'number' ? value : 0;
}

async function observeWaits(logs: AsyncGenerator<{ type: string; state?: { name: string; input?: unknown } }>, def: AslDefinition, onWait: (name: string, seconds: number) => void) {
  const waits = new Set(statesOfType(def, 'Wait'));
  for await (const event of logs) {
    if (event.type === 'StateEntered' && event.state && waits.has(event.state.name)) {
      onWait(event.state.name, waitSeconds(def.States[event.state.name] ?? {}, event.state.input));
    }
  }
}
