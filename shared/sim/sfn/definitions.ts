/** Loading the ASL files of statemachines/ and finding which function each Task invokes. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { WorkflowName } from '../../core/ports';
import type { Retrier } from './retry';

const STATE_MACHINES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../statemachines');

export type AslState = Record<string, unknown> & { Type: string };
export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  [k: string]: unknown;
}

export function definitionPath(machine: WorkflowName, dir = STATE_MACHINES_DIR): string {
  return resolve(dir, `${machine}.asl.yml`);
}

/**
 * The Serverless variable the Task states name their Resource by (`custom.lambdaInvoke`, infra/partition.cjs), and
 * what a deploy to a commercial region resolves it to: the simulated region's partition.
 */
const LAMBDA_INVOKE_VARIABLE = '${self:custom.lambdaInvoke}';
const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';

/** Parses `statemachines/<machine>.asl.yml` (YAML anchors resolved) as a deploy resolves it. */
export function loadDefinition(machine: WorkflowName, dir = STATE_MACHINES_DIR): AslDefinition {
  return parse(readFileSync(definitionPath(machine, dir), 'utf8').replaceAll(LAMBDA_INVOKE_VARIABLE, LAMBDA_INVOKE)) as AslDefinition;
}

export interface TaskBinding {
  stateName: string;
  /** The serverless function key from `Parameters.FunctionName: {Fn::GetAtt: [key, Arn]}`. */
  functionKey: string;
  /** The Task's Retry (the runner waits its intervals on the run's clock). */
  retry: Retrier[];
}

function functionKeyOf(state: AslState): string | undefined {
  const params = state.Parameters as Record<string, unknown> | undefined;
  const fn = params?.FunctionName as Record<string, unknown> | string | undefined;
  if (fn && typeof fn === 'object' && Array.isArray(fn['Fn::GetAtt'])) return String((fn['Fn::GetAtt'] as unknown[])[0]);
  return undefined;
}

/** Every Task state (including those inside Map and Parallel states) with the function it invokes. */
export function taskBindings(def: { States: Record<string, AslState> }): TaskBinding[] {
  return allStates(def).flatMap(([stateName, state]) => {
    const functionKey = state.Type === 'Task' ? functionKeyOf(state) : undefined;
    return functionKey ? [{ stateName, functionKey, retry: (state.Retry as Retrier[] | undefined) ?? [] }] : [];
  });
}

/** Every state with its name, nested ones (Map and Parallel states') included. */
export function allStates(def: { States: Record<string, AslState> }): [string, AslState][] {
  const out: [string, AslState][] = [];
  for (const [name, state] of Object.entries(def.States)) {
    out.push([name, state]);
    const nested = (state.ItemProcessor ?? state.Iterator) as { States: Record<string, AslState> } | undefined;
    if (nested) out.push(...allStates(nested));
    for (const branch of (state.Branches as { States: Record<string, AslState> }[] | undefined) ?? []) out.push(...allStates(branch));
  }
  return out;
}

/** Every error name matched by a Retry or Catch, nested states included. */
export function caughtErrorNames(def: { States: Record<string, AslState> }): string[] {
  const names = new Set<string>();
  for (const [, state] of allStates(def)) {
    for (const rule of [...((state.Retry as { ErrorEquals: string[] }[]) ?? []), ...((state.Catch as { ErrorEquals: string[] }[]) ?? [])]) {
      for (const e of rule.ErrorEquals) names.add(e);
    }
  }
  return [...names].sort();
}
