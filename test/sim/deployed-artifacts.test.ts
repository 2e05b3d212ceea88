import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VirtualClock } from '../../shared/sim/clock';
import { deployedFunctions, loadHandler, REPO_ROOT } from '../../shared/sim/runtime/functions';
import { bindProduction, simulatedEnv } from '../../shared/sim/runtime/production';
import { definitionPath, loadDefinition, taskBindings } from '../../shared/sim/sfn';

interface ServerlessYml {
  functions: string[];
  stepFunctions: { stateMachines: Record<string, { definition: string }> };
}

const serverless = parse(readFileSync(resolve(REPO_ROOT, 'serverless.yml'), 'utf8')) as ServerlessYml;
const fileRef = (ref: string): string => {
  const m = /^\$\{file\(([^)]+)\)\}$/.exec(ref.trim());
  if (!m) throw new Error(`not a \${file(...)} reference: ${ref}`);
  return resolve(REPO_ROOT, m[1]);
};

describe('the simulator runs what serverless.yml deploys', () => {
  it('should read its functions from exactly the files serverless.yml includes, with the same handler paths', () => {
    // Prepare
    const expected: Record<string, string> = {};
    for (const file of serverless.functions.map(fileRef)) {
      const doc = parse(readFileSync(file, 'utf8')) as Record<string, { handler: string }>;
      for (const [key, fn] of Object.entries(doc)) expected[key] = fn.handler;
    }
    // Act
    const simulated = Object.fromEntries(deployedFunctions().map((f) => [f.key, f.handler]));
    // Assess
    expect(simulated).toEqual(expected);
  });

  it("should invoke each function's deployed `handler` export (the module esbuild bundles)", async () => {
    // Prepare
    const functions = deployedFunctions();
    for (const fn of functions) {
      // Act
      const loaded = await loadHandler(fn);
      const mod = (await import(resolve(REPO_ROOT, fn.modulePath))) as Record<string, unknown>;
      // Assess
      expect(loaded).toBe(mod[fn.exportName]);
    }
  }, 60_000);

  it('should run the ASL files serverless.yml deploys, and every Task names a deployed function', () => {
    // Prepare
    const machines = Object.entries(serverless.stepFunctions.stateMachines);
    const keys = new Set(deployedFunctions().map((f) => f.key));
    expect(machines.map(([name]) => name).sort()).toEqual(['disrupt', 'launch', 'terminate']);
    for (const [name, machine] of machines) {
      // Act
      const simulatedPath = definitionPath(name as 'launch');
      // Assess
      expect(simulatedPath).toBe(fileRef(machine.definition));
      for (const { functionKey } of taskBindings(loadDefinition(name as 'launch'))) expect(keys.has(functionKey)).toBe(true);
    }
  });

  it('should bind every deployed function and the state machine ARNs the functions are configured with', async () => {
    // Prepare
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const env = simulatedEnv('nodewright-sim', 'us-east-1');
    // Act
    const binding = await bindProduction(clock, env, () => undefined);
    try {
      // Assess
      expect(binding.functions.map((f) => f.key).sort()).toEqual(
        deployedFunctions()
          .map((f) => f.key)
          .sort(),
      );
      expect(process.env.LAUNCH_STATE_MACHINE_ARN).toBe(env.stateMachineArns.launch);
      expect(binding.functions.find((f) => f.key === 'controller')?.schedules).toEqual([{ everySeconds: 60, input: { source: 'nodewright.schedule' } }]);
      expect(binding.functions.find((f) => f.key === 'provisioner')?.schedules).toEqual([]);
      expect(process.env.FUNCTION_NAME_PREFIX).toBe(env.functionNamePrefix);
      expect(binding.functions.find((f) => f.key === 'interruption')?.sqs).toBe(true);
    } finally {
      binding.restore();
    }
  });
});
