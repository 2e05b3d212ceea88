/**
 * `nodewright doctor [--sim]`: the checks of ./checks.ts against a real account (the default credential chain),
 * or against the simulator's account and cluster (`--sim`: the walkthrough's objects on the production
 * adapters), printed one line each; exit 1 when one FAILs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { PricingClient } from '@aws-sdk/client-pricing';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { awsClientConfig } from '../../shared/adapters/aws/client-config';
import { priceListEndpointRegion } from '../../shared/adapters/aws/pricing/price-list';
import { systemClock } from '../../shared/adapters/clock';
import { defaultQueueName } from '../../shared/adapters/config';
import { clusterAccess } from '../../shared/adapters/cluster-access';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/cluster-client';
import { CliUsageError } from '../plan';
import type { CheckResult, DoctorTarget } from './checks';
import {
  checkAccessEntries,
  checkCluster,
  checkConcurrency,
  checkDiscovery,
  checkKarpenterQueue,
  checkKubernetes,
  checkNodeClassRoles,
  checkNodeRole,
  checkPrices,
  checkQueue,
} from './checks';

export interface DoctorOptions {
  cluster?: string;
  region?: string;
  stage: string;
  nodeRole?: string;
  nodeInstanceProfile?: string;
  queue?: string;
  sim?: boolean;
  output: 'table' | 'json';
}

/** The functions as deployed with the default parameters: how many, and the concurrency they reserve. */
interface Deployment {
  functions: number;
  reserved: number;
}

async function runChecks(t: DoctorTarget, deployment: Deployment): Promise<CheckResult[]> {
  const cfg = awsClientConfig(t.region);
  const eks = new EKSClient(cfg);
  const { version, ...cluster } = await checkCluster(eks, t);
  const results: CheckResult[] = [cluster, await checkAccessEntries(eks, t, deployment.functions)];
  const kube = await checkKubernetes(async () => {
    const { kc } = await clusterAccess(t.clusterName, t.region, systemClock);
    return new KubeClusterClient(kc);
  });
  results.push(kube.result);
  results.push(...(await checkDiscovery({ ec2: new EC2Client(cfg), ssm: new SSMClient(cfg) }, version ?? '1.31', kube.snapshot)));
  results.push(await checkNodeRole(new IAMClient(cfg), t));
  results.push(...checkNodeClassRoles(kube.snapshot, t));
  results.push(await checkPrices(new PricingClient(awsClientConfig(priceListEndpointRegion(t.region))), t));
  const sqs = new SQSClient(cfg);
  results.push(await checkQueue(sqs, t));
  results.push(await checkKarpenterQueue(sqs, t));
  results.push(await checkConcurrency(new LambdaClient(cfg), t, deployment.reserved));
  return results;
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

export async function doctorCommand(opts: DoctorOptions, out: (s: string) => void): Promise<number> {
  let results: CheckResult[];
  if (opts.sim) {
    results = await simulated(opts);
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
