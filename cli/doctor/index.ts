/**
 * `nodewright doctor [--sim]`: the checks of shared/adapters/doctor against a real account (the default credential chain),
 * or against the simulator's account and cluster (`--sim`: the walkthrough's objects on the production
 * adapters), printed one line each; exit 1 when one FAILs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultQueueName } from '../../shared/adapters/config';
import { CliUsageError } from '../plan';
import type { CheckResult, DoctorTarget } from '../../shared/adapters/doctor/checks';
import { runChecks, type Deployment } from '../../shared/adapters/doctor/run';

export interface DoctorOptions {
  cluster?: string;
  region?: string;
  stage: string;
  nodeRole?: string;
  nodeInstanceProfile?: string;
  queue?: string;
  sim?: boolean;
  /** Invoke the stack's doctor function instead of checking from here. */
  inStack?: boolean;
  output: 'table' | 'json';
}

async function simulated(opts: DoctorOptions): Promise<CheckResult[]> {
  const { parseScenario, worldForScenario } = await import('../../shared/sim');
  const { applyObjects } = await import('../../shared/sim/scenario/events');
  const { REPO_ROOT } = await import('../../shared/sim/runtime/functions');
  const scenario = parseScenario(readFileSync(resolve(REPO_ROOT, 'examples/scenarios/walkthrough.yaml'), 'utf8'), 'walkthrough.yaml');
  const world = await worldForScenario(scenario);
  try {
    applyObjects(world, scenario.objects);
    const roles = scenario.objects
      .filter((o) => o.kind === 'EC2NodeClass')
      .map((o) => String((o.spec as { role?: string } | undefined)?.role ?? ''))
      .filter(Boolean);
    for (const r of roles) world.ec2.roles.add(r);
    if (opts.inStack) {
      const { invokeFunction } = await import('../../shared/sim');
      return parseDoctorAnswer(await invokeFunction(world, 'doctor', {}), 'the simulated stack');
    }
    const t: DoctorTarget = {
      clusterName: scenario.clusterName,
      region: scenario.region,
      stage: 'sim',
      nodeRoleName: opts.nodeRole ?? roles[0] ?? '',
      queueName: defaultQueueName(scenario.clusterName),
    };
    return await runChecks(t, deploymentOf(world.production.functions));
  } finally {
    await world.close();
  }
}

const deploymentOf = (fns: readonly { reservedConcurrency?: number }[]): Deployment => ({
  functions: fns.length,
  reserved: fns.reduce((n, f) => n + (f.reservedConcurrency ?? 0), 0),
});

/** The doctor function's answer: `{results, ok}`; anything else is said as what it is. */
function parseDoctorAnswer(answer: unknown, where: string): CheckResult[] {
  const results = (answer as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) throw new Error(`the doctor function of ${where} answered ${JSON.stringify(answer)?.slice(0, 300)}, not checks`);
  return results as CheckResult[];
}

/** `--in-stack`: invokes `nodewright-<stage>-doctor` with the operator's credentials (lambda:InvokeFunction). */
async function inStack(opts: DoctorOptions): Promise<CheckResult[]> {
  if (!opts.region) throw new CliUsageError("doctor --in-stack: --region is required (the stack's region)");
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  const name = `nodewright-${opts.stage}-doctor`;
  const r = await new LambdaClient({ region: opts.region }).send(new InvokeCommand({ FunctionName: name, Payload: new TextEncoder().encode('{}') }));
  const text = r.Payload ? new TextDecoder().decode(r.Payload) : '';
  if (r.FunctionError) throw new Error(`${name} failed (${r.FunctionError}): ${text.slice(0, 300)}`);
  return parseDoctorAnswer(JSON.parse(text || 'null'), name);
}

export async function doctorCommand(opts: DoctorOptions, out: (s: string) => void): Promise<number> {
  let results: CheckResult[];
  if (opts.sim) {
    results = await simulated(opts);
  } else if (opts.inStack) {
    results = await inStack(opts);
  } else {
    if (!opts.cluster || !opts.region) throw new CliUsageError('doctor: --cluster and --region are required (or --sim)');
    const { deployedFunctions } = await import('../../shared/sim/runtime/functions');
    results = await runChecks(
      {
        clusterName: opts.cluster,
        region: opts.region,
        stage: opts.stage,
        nodeRoleName: opts.nodeRole ?? `KarpenterNodeRole-${opts.cluster}`,
        queueName: opts.queue ?? defaultQueueName(opts.cluster),
        ...(opts.nodeInstanceProfile ? { nodeInstanceProfileName: opts.nodeInstanceProfile } : {}),
      },
      deploymentOf(deployedFunctions()),
    );
  }
  if (opts.output === 'json') out(JSON.stringify({ results, ok: !results.some((r) => r.status === 'FAIL') }, null, 2));
  else for (const r of results) out(`${r.status.padEnd(4)}  ${r.check.padEnd(22)}  ${r.detail}${r.fix && r.status !== 'PASS' ? `\n      → ${r.fix}` : ''}`);
  return results.some((r) => r.status === 'FAIL') ? 1 : 0;
}
