/** Environment of the Lambda functions, validated once (zod) with a message naming each bad variable. */
import * as z from '../core/zod';
import type { TopologySpreadConstraint } from '../core/model/kube';
import { parseSchedulerConfig } from '../core/model/scheduler-config';

const arn = (what: string) =>
  z.string().check(z.regex(/^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]+$/, `must be the ARN of the ${what} state machine`));

const ConfigSchema = z.object({
  CLUSTER_NAME: z.string().check(z.minLength(1), z.maxLength(100)),
  AWS_REGION: z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as eu-west-1')),
  STATE_TABLE_NAME: z.string().check(z.minLength(3), z.maxLength(255)),
  LAUNCH_STATE_MACHINE_ARN: arn('launch'),
  TERMINATE_STATE_MACHINE_ARN: arn('terminate'),
  DISRUPT_STATE_MACHINE_ARN: arn('disrupt'),
  INTERRUPTION_QUEUE_URL: z.optional(z.string().check(z.url())),
  NODE_ROLE_NAME: z.optional(z.string().check(z.minLength(1))),
  /** Instance profile for node classes that name a `role` but no `instanceProfile`. */
  // Empty (the deploy default) = manage instance profiles from EC2NodeClass roles.
  NODE_INSTANCE_PROFILE_NAME: z.optional(z.string()),
  /** Karpenter's metrics to CloudWatch (EMF): `cloudwatch`, or `off` (default; each series is a billed custom metric). */
  KARPENTER_METRICS: z.optional(z.enum(['cloudwatch', 'off'])),
  /** `<service>-<stage>-`: the controller invokes `<prefix>provisioner` and `<prefix>disruption`. */
  FUNCTION_NAME_PREFIX: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,40}$/, "must be the deployed functions' name prefix, e.g. nodewright-dev-"))),
  /** Shadow mode (deploy parameter `shadow`): read and decide, act on nothing (shared/adapters/shadow.ts). */
  NODEWRIGHT_SHADOW: z.optional(z.enum(['true', 'false'])),
  /** Karpenter's SCHEDULER_CONFIG: kube-scheduler's podTopologySpread.defaultConstraints to mirror (empty: none). */
  SCHEDULER_CONFIG: z.optional(z.string()),
});

export interface Config {
  clusterName: string;
  region: string;
  stateTableName: string;
  stateMachineArns: { launch: string; terminate: string; disrupt: string };
  interruptionQueueUrl?: string;
  nodeRoleName?: string;
  nodeInstanceProfileName?: string;
  functionNamePrefix: string;
  /** Whether Karpenter's metrics go to CloudWatch (docs/metrics.md). */
  karpenterMetrics: 'cloudwatch' | 'off';
  /** Shadow mode: every function reads and decides; nothing is written but nodewright's own state. */
  shadow: boolean;
  /** kube-scheduler's default topology spread constraints (SCHEDULER_CONFIG), empty when none. */
  defaultSpread: TopologySpreadConstraint[];
}

class ConfigInvalidError extends Error {
  override readonly name = 'ConfigInvalidError' as const;
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigInvalidError(`nodewright function environment is invalid: ${problems}`);
  }
  const e = parsed.data;
  return {
    clusterName: e.CLUSTER_NAME,
    region: e.AWS_REGION,
    stateTableName: e.STATE_TABLE_NAME,
    stateMachineArns: { launch: e.LAUNCH_STATE_MACHINE_ARN, terminate: e.TERMINATE_STATE_MACHINE_ARN, disrupt: e.DISRUPT_STATE_MACHINE_ARN },
    ...(e.INTERRUPTION_QUEUE_URL ? { interruptionQueueUrl: e.INTERRUPTION_QUEUE_URL } : {}),
    ...(e.NODE_ROLE_NAME ? { nodeRoleName: e.NODE_ROLE_NAME } : {}),
    ...(e.NODE_INSTANCE_PROFILE_NAME ? { nodeInstanceProfileName: e.NODE_INSTANCE_PROFILE_NAME } : {}),
    functionNamePrefix: e.FUNCTION_NAME_PREFIX ?? 'nodewright-dev-',
    karpenterMetrics: e.KARPENTER_METRICS ?? 'off',
    shadow: e.NODEWRIGHT_SHADOW === 'true',
    defaultSpread: (() => {
      try {
        return parseSchedulerConfig(e.SCHEDULER_CONFIG);
      } catch (err) {
        throw new ConfigInvalidError(`nodewright function environment is invalid: SCHEDULER_CONFIG: ${(err as Error).message}`);
      }
    })(),
  };
}

let cached: Config | undefined;

/** The process's configuration, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Forgets the parsed configuration, so the next `config()` reads the environment again (the simulator, between runs). */
export function resetConfig(): void {
  cached = undefined;
}

/** serverless.yml's default `interruptionQueueName`: not the cluster's name, which Karpenter's getting-started queue takes. */
export const defaultQueueName = (clusterName: string): string => `nodewright-${clusterName}`;
