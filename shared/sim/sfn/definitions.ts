/** Loading the ASL files of statemachines/ and finding which function each Task invokes. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { WorkflowName } from '../../core/ports';

export const STATE_MACHINES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../statemachines');

export type AslState = Record<string, unknown> & { Type: string };
export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  [k: string]: unknown;
}

export function definitionPath(machine: WorkflowName, dir = STATE_MACHINES_DIR): string {
  return resolve(dir, `${machine}.asl.yml`);
}

/** Parses `statemachines/<machine>.asl.yml` (YAML anchors resolved). */
export function loadDefinition(machine: WorkflowName, dir = STATE_MACHINES_DIR): AslDefinition {
  return parse(readFileSync(definitionPath(machine, dir), 'utf8')) as AslDefinition;
}

export interface TaskBinding {
  stateName: string;
  /** The serverless function key from `Parameters.FunctionName: {Fn::GetAtt: [key, Arn]}`. */
  functionKey: string;
  /** The Task's Retry (the simulator waits its intervals on virtual time). */
  retry: Retrier[];
}

function functionKeyOf(state: AslState): string | undefined {
  const params = state.Parameters as Record<string, unknown> | undefined;
  const fn = params?.FunctionName as Record<string, unknown> | string | undefined;
  if (fn && typeof fn === 'object' && Array.isArray(fn['Fn::GetAtt'])) return String((fn['Fn::GetAtt'] as unknown[])[0]);
  return undefined;
}

/** Every Task state (including those inside Map and Parallel states) with the function it invokes. */
export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
}

/**
 * Seconds Step Functions waits before retry number `attempt` (1-based) of an error named `error`, or undefined
 * when no retrier matches or its attempts are spent (ASL defaults: 1 s, 3 attempts, rate 2).
 */
export function retryDelaySeconds(retriers: readonly Retrier[], error: string, attempt: number): number | undefined {
  const r = retriers.find((x) => x.ErrorEquals.includes(error) || x.ErrorEquals.includes('States.ALL') || (!error.startsWith('States.') && x.ErrorEquals.includes('States.TaskFailed')));
  if (!r || attempt > (r.MaxAttempts ?? 3)) return undefined;
  const delay = (r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** (attempt - 1);
  return r.MaxDelaySeconds !== undefined ? Math.min(delay, r.MaxDelaySeconds) : delay;
}

export function taskBindings(def: { States: Record<string, AslState> }): TaskBinding[] {
  const out: TaskBinding[] = [];
  for (const [stateName, state] of Object.entries(def.States)) {
    if (state.Type === 'Task') {
      const functionKey = functionKeyOf(state);
      if (functionKey) out.push({ stateName, functionKey, retry: (state.Retry as Retrier[] | undefined) ?? [] });
    }
    const nested = (state.ItemProcessor ?? state.Iterator) as { States: Record<string, AslState> } | undefined;
    if (nested) out.push(...taskBindings(nested));
    for (const branch of (state.Branches as { States: Record<string, AslState> }[] | undefined) ?? []) out.push(...taskBindings(branch));
  }
  return out;
}

/** Every state of the given type, nested ones included. */
export function statesOfType(def: { States: Record<string, AslState> }, type: string): string[] {
  const out: string[] = [];
  for (const [name, state] of Object.entries(def.States)) {
    if (state.Type === type) out.push(name);
    const nested = (state.ItemProcessor ?? state.Iterator) as { States: Record<string, AslState> } | undefined;
    if (nested) out.push(...statesOfType(nested, type));
    for (const branch of (state.Branches as { States: Record<string, AslState> }[] | undefined) ?? []) out.push(...statesOfType(branch, type));
  }
  return out;
}

/** Every error name matched by a Retry or Catch, nested states included. */
export function caughtErrorNames(def: { States: Record<string, AslState> }): string[] {
  const names = new Set<string>();
  const visit = (states: Record<string, AslState>) => {
    for (const state of Object.values(states)) {
      for (const rule of [...((state.Retry as { ErrorEquals: string[] }[]) ?? []), ...((state.Catch as { ErrorEquals: string[] }[]) ?? [])]) {
        for (const e of rule.ErrorEquals) names.add(e);
      }
      const nested = (state.ItemProcessor ?? state.Iterator) as { States: Record<string, AslState> } | undefined;
      if (nested) visit(nested.States);
      for (const branch of (state.Branches as { States: Record<string, AslState> }[] | undefined) ?? []) visit(branch.States);
    }
  };
  visit(def.States);
  return [...names].sort();
}
