import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as errors from '../../shared/core/errors';
import { caughtErrorNames, loadDefinition, taskBindings } from '../../shared/sim/sfn';
import type { WorkflowName } from '../../shared/core/ports';

const ROOT = resolve(__dirname, '../..');
const MACHINES: WorkflowName[] = ['launch', 'terminate', 'disrupt'];
const AREAS = ['controller', 'provisioner', 'launch', 'terminate', 'disrupt', 'disruption', 'interruption', 'garbage-collection'];

/** Function key → handler ("path/file.export") across every infra/functions/<area>.yml that exists. */
function declaredFunctions(): Map<string, string> {
  const out = new Map<string, string>();
  for (const area of AREAS) {
    const file = resolve(ROOT, `infra/functions/${area}.yml`);
    if (!existsSync(file)) continue;
    const doc = (parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, { handler: string }>;
    for (const [key, fn] of Object.entries(doc)) out.set(key, fn.handler);
  }
  return out;
}

/** Tasks a machine borrows from another machine or a trigger: the folder they live in. */
const SHARED_TASKS: Record<string, string> = { terminateInstance: 'terminate', finalizeNodeClaim: 'terminate', provisioner: 'provisioner' };

const pascal = (key: string) => key[0].toUpperCase() + key.slice(1);
const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe.each(MACHINES)('the %s state machine contract', (machine) => {
  const definition = loadDefinition(machine);

  it('should be a valid JSONPath state machine', () => {
    // Prepare
    const withoutIntrinsics = JSON.parse(JSON.stringify(definition, (k, v) => (k === 'FunctionName' ? 'arn:aws:lambda:eu-west-1:000000000000:function:x' : v)));

    // Act
    const result = aslValidator(withoutIntrinsics);

    // Assess
    expect(result.isValid, result.errorsText('\n')).toBe(true);
    expect(JSON.stringify(definition)).not.toMatch(/JSONata|\{%/);
  });

  it('should invoke, from each Task, a declared function whose file has the same name and exports handler', async () => {
    // Prepare
    const declared = declaredFunctions();

    // Act
    const bindings = taskBindings(definition);

    // Assess
    expect(bindings.length).toBeGreaterThan(0);
    for (const { stateName, functionKey } of bindings) {
      expect(stateName, `state ${stateName} should be named after its function`).toBe(pascal(functionKey));
      const handler = declared.get(functionKey);
      expect(handler, `function ${functionKey} should be declared in infra/functions/*.yml`).toBeDefined();
      const [file, exported] = [handler!.slice(0, handler!.lastIndexOf('.')), handler!.slice(handler!.lastIndexOf('.') + 1)];
      expect(exported).toBe('handler');
      expect(file.endsWith(`/${kebab(functionKey)}`), `${file} should be named ${kebab(functionKey)}.ts`).toBe(true);
      // The folder is the machine's; launch reuses terminate's TerminateInstance and FinalizeNodeClaim, and the provisioner.
      const folder = SHARED_TASKS[functionKey] ?? machine;
      expect(file.startsWith(`functions/${folder}/`), `${file} should be in functions/${folder}/`).toBe(true);
      const mod = (await import(resolve(ROOT, `${file}.ts`))) as Record<string, unknown>;
      expect(typeof mod.handler, `${file}.ts should export handler`).toBe('function');
      expect(typeof mod.createHandler, `${file}.ts should export createHandler`).toBe('function');
    }
  });

  it('should only catch or retry error names exported by shared/core/errors.ts (or States./Lambda./Sandbox. names)', () => {
    // Prepare
    // Each error class's literal `name` (what Step Functions matches), read from an instance.
    const exported = new Set(
      Object.values(errors as Record<string, unknown>)
        .filter((v) => typeof v === 'function' && /Error$/.test((v as { name: string }).name))
        .map((cls) => {
          try {
            return new (cls as new (...args: unknown[]) => Error)('x', 'x', 0, 'x', 'x').name;
          } catch {
            return (cls as { name: string }).name;
          }
        }),
    );

    // Act
    // Sandbox.Timedout is what a Lambda task reports when the function runs past its timeout.
    const names = caughtErrorNames(definition).filter((n) => !n.startsWith('States.') && !n.startsWith('Lambda.') && n !== 'Sandbox.Timedout');

    // Assess
    for (const name of names) expect(exported, `${name} is caught in ${machine}.asl.yml`).toContain(name);
  });

  it('should give every loop a deadline: each Wait state is reachable only after a Task that checks one', () => {
    // Prepare
    const waits = Object.entries(definition.States).filter(([, s]) => s.Type === 'Wait');

    // Act
    const loopsBack = waits.map(([name, s]) => ({ name, next: s.Next as string }));

    // Assess
    for (const { name, next } of loopsBack) {
      const target = definition.States[next];
      expect(target.Type, `${name} should lead to a Task that enforces the deadline`).toBe('Task');
      const handlesDeadline =
        JSON.stringify(target).includes('DeadlineExceededError') ||
        JSON.stringify(target.Parameters).includes('deadlineMs') ||
        ['EvictPods', 'CheckReplacementsReady'].includes(next);
      expect(handlesDeadline, `${next} should carry or enforce a deadline`).toBe(true);
    }
  });
});
