/**
 * The ASL as the runner hands it to aws-local-stepfunctions. The library sleeps Wait states, Retry intervals
 * and Task timeouts on real time (setTimeout); the runner spends that time on its own clock instead, so the
 * definition is rewritten for the library: each Wait state becomes a Task the runner answers (it sleeps the
 * Wait's time on the clock and passes its input on), each Task loses its Retry (the runner retries around the
 * handler: retry.ts) and gets a real-time timeout no run reaches (Step Functions' default is 99,999,999 s; the
 * library's own default, 60 s of real time, means nothing on a virtual clock). What the rewrite cannot express
 * faithfully is refused rather than run differently.
 */
import '../../polyfills';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { AslDefinition, AslState } from './definitions';

export class AslNotRunnableLocallyError extends Error {
  override readonly name = 'AslNotRunnableLocallyError' as const;
}

/** The Resource of the Tasks that stand for Wait states (never invoked: the runner answers them). */
const LOCAL_WAIT_RESOURCE = 'arn:aws:lambda:local:000000000000:function:wait';

/** The longest timer Node arms, in whole seconds. */
const NO_TIMEOUT_SECONDS = Math.floor(0x7fff_ffff / 1000);

const WAIT_FIELDS = ['Seconds', 'SecondsPath', 'Timestamp', 'TimestampPath'];
const TIMEOUT_FIELDS = ['TimeoutSeconds', 'TimeoutSecondsPath', 'HeartbeatSeconds', 'HeartbeatSecondsPath'];

function localState(name: string, state: AslState): AslState {
  if (state.Type === 'Wait') {
    const rest = Object.fromEntries(Object.entries(state).filter(([k]) => !WAIT_FIELDS.includes(k)));
    return { ...rest, Type: 'Task', Resource: LOCAL_WAIT_RESOURCE, TimeoutSeconds: NO_TIMEOUT_SECONDS };
  }
  if (state.Type === 'Task') {
    const timeout = TIMEOUT_FIELDS.find((k) => k in state);
    if (timeout) throw new AslNotRunnableLocallyError(`state ${name}: ${timeout} is not modelled by the local runner (it would run on real time)`);
    const rest = Object.fromEntries(Object.entries(state).filter(([k]) => k !== 'Retry'));
    return { ...rest, Type: 'Task', TimeoutSeconds: NO_TIMEOUT_SECONDS };
  }
  if ((state.Type === 'Map' || state.Type === 'Parallel') && state.Retry) {
    throw new AslNotRunnableLocallyError(`state ${name}: Retry on a ${state.Type} state is not modelled by the local runner (it would wait on real time)`);
  }
  const out: AslState = { ...state };
  for (const key of ['ItemProcessor', 'Iterator'] as const) {
    const nested = state[key] as { States: Record<string, AslState> } | undefined;
    if (nested) out[key] = { ...nested, States: localStates(nested.States) };
  }
  const branches = state.Branches as { States: Record<string, AslState> }[] | undefined;
  if (branches) out.Branches = branches.map((b) => ({ ...b, States: localStates(b.States) }));
  return out;
}

function localStates(states: Record<string, AslState>): Record<string, AslState> {
  return Object.fromEntries(Object.entries(states).map(([name, s]) => [name, localState(name, s)]));
}

/** The definition the library runs (see the file comment). */
function localDefinition(definition: AslDefinition): AslDefinition {
  return { ...definition, States: localStates(definition.States) };
}

const compiled = new Map<string, StateMachine>();

/**
 * The library's StateMachine for a definition, built once per process and content (building validates the
 * definition, which is slow; keyed by content, an edited ASL file is never served stale).
 */
export function localMachine(definition: AslDefinition): StateMachine {
  const key = JSON.stringify(definition);
  let hit = compiled.get(key);
  if (!hit) {
    hit = new StateMachine(localDefinition(definition) as unknown as StateMachineDefinition, { validationOptions: { checkArn: false } });
    compiled.set(key, hit);
  }
  return hit;
}

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

/** How long a Wait state waits given its input (after InputPath): Seconds, SecondsPath, Timestamp or TimestampPath. */
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
