/**
 * `nodewright doctor`: checks a real account (or the simulated one) before and after a deploy. Each check takes
 * the SDK clients it needs and answers PASS / WARN / FAIL with what it saw and, when not PASS, what to do.
 * Nothing is written: every call is a read.
 */
import { nodeClassRoleName } from '../../core/model/karpenter';
import { DescribeClusterCommand, ListAccessEntriesCommand, type EKSClient } from '@aws-sdk/client-eks';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { GetInstanceProfileCommand, GetRoleCommand, type IAMClient } from '@aws-sdk/client-iam';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { GetProductsCommand, type PricingClient } from '@aws-sdk/client-pricing';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { NodeClassResolver } from '../aws/ec2/node-class-resolver';
import type { ClusterClient, ClusterSnapshot } from '../../core/ports';
import { errorText } from '../aws/errors';

type CheckStatus = 'PASS' | 'WARN' | 'FAIL';
export interface CheckResult {
  check: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}
/** The cluster check also gives the Kubernetes version (the AMI aliases of the discovery check need it) and its authentication mode. */
export type ClusterCheck = CheckResult & { version?: string; authenticationMode?: string };

export interface DoctorTarget {
  clusterName: string;
  region: string;
  /** The deployed stage: the stack is `nodewright-<stage>` and its roles are named after it. */
  stage: string;
  nodeRoleName: string;
  nodeInstanceProfileName?: string;
  queueName: string;
}

export async function checkCluster(eks: EKSClient, t: DoctorTarget): Promise<ClusterCheck> {
  try {
    const c = (await eks.send(new DescribeClusterCommand({ name: t.clusterName }))).cluster;
    const mode = c?.accessConfig?.authenticationMode;
    if (c?.status !== 'ACTIVE')
      return { check: 'cluster', status: 'FAIL', detail: `${t.clusterName} is ${c?.status ?? 'unknown'}`, fix: 'wait until the cluster is ACTIVE' };
    if (mode === 'CONFIG_MAP')
      return {
        ...(c.version ? { version: c.version } : {}),
        authenticationMode: mode,
        check: 'cluster',
        status: 'WARN',
        detail: `${t.clusterName} is ACTIVE; authentication mode CONFIG_MAP (no access entries)`,
        fix: 'deploy with --param="accessEntries=false" and map the function roles in aws-auth (docs/deploy.md step 5), or switch to API_AND_CONFIG_MAP',
      };
    return {
      check: 'cluster',
      status: 'PASS',
      detail: `${t.clusterName} is ACTIVE, Kubernetes ${c.version}, authentication mode ${mode ?? 'API_AND_CONFIG_MAP'}`,
      ...(c.version ? { version: c.version } : {}),
      ...(mode ? { authenticationMode: mode } : {}),
    };
  } catch (e) {
    return {
      check: 'cluster',
      status: 'FAIL',
      detail: `DescribeCluster ${t.clusterName} in ${t.region}: ${errorText(e)}`,
      fix: 'check --cluster and --region, and that this identity may call eks:DescribeCluster',
    };
  }
}

/** Every access entry's principal ARN (ListAccessEntries, paged). */
export async function listAccessEntries(eks: EKSClient, clusterName: string): Promise<string[]> {
  const arns: string[] = [];
  let next: string | undefined;
  do {
    const page = await eks.send(new ListAccessEntriesCommand({ clusterName, ...(next ? { nextToken: next } : {}) }));
    arns.push(...(page.accessEntries ?? []));
    next = page.nextToken;
  } while (next);
  return arns;
}

/** The functions' roles are `nodewright-<stage>-<Function>Role-<suffix>` (CloudFormation names them). */
export async function checkAccessEntries(eks: EKSClient, t: DoctorTarget, expectedRoles: number): Promise<CheckResult> {
  try {
    const arns = await listAccessEntries(eks, t.clusterName);
    const ours = arns.filter((a) => a.includes(`:role/nodewright-${t.stage}-`));
    if (ours.length === 0)
      return {
        check: 'access-entries',
        status: 'FAIL',
        detail: `no access entry for a nodewright-${t.stage}-* role (${arns.length} entries in all)`,
        fix: 'deploy (the stack creates them unless accessEntries=false), or create them by hand (docs/deploy.md step 5)',
      };
    if (ours.length < expectedRoles)
      return {
        check: 'access-entries',
        status: 'WARN',
        detail: `${ours.length} of ${expectedRoles} function roles have an access entry`,
        fix: 'deploy again (the stack creates them unless accessEntries=false), or rerun the access-entry loop of docs/deploy.md step 5',
      };
    return { check: 'access-entries', status: 'PASS', detail: `${ours.length} function roles have an access entry` };
  } catch (e) {
    return {
      check: 'access-entries',
      status: 'WARN',
      detail: `ListAccessEntries: ${errorText(e)}`,
      fix: 'the cluster may use aws-auth only; check its mapRoles',
    };
  }
}

/** Reaches the API with an EKS token and reads what every function reads (RBAC of infra/kubernetes/rbac.yaml). */
export async function checkKubernetes(cluster: () => Promise<ClusterClient>): Promise<{ result: CheckResult; snapshot?: ClusterSnapshot }> {
  try {
    const snapshot = await (await cluster()).snapshot();
    return {
      result: {
        check: 'kubernetes-api',
        status: 'PASS',
        detail: `reached the API server: ${snapshot.nodePools.length} NodePools, ${snapshot.nodeClasses.length} EC2NodeClasses, ${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods`,
      },
      snapshot,
    };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return {
      result: {
        check: 'kubernetes-api',
        status: 'FAIL',
        detail: `reading the cluster: ${errorText(e)}`,
        fix:
          code === 403
            ? 'apply infra/kubernetes/rbac.yaml and bind the group (docs/deploy.md step 5)'
            : code === 401
              ? 'this identity has no access entry'
              : 'a private endpoint needs the functions in the VPC (docs/deploy.md "Functions in the VPC")',
      },
    };
  }
}

export async function checkDiscovery(
  clients: { ec2: EC2Client; ssm: SSMClient },
  version: string,
  snapshot: ClusterSnapshot | undefined,
): Promise<CheckResult[]> {
  if (!snapshot) return [{ check: 'discovery', status: 'WARN', detail: 'skipped: the cluster could not be read' }];
  if (snapshot.nodeClasses.length === 0)
    return [{ check: 'discovery', status: 'WARN', detail: 'no EC2NodeClass in the cluster yet', fix: 'apply your NodePool and EC2NodeClass' }];
  const resolver = new NodeClassResolver({ ...clients, now: () => Date.now(), k8sVersion: async () => version });
  const out: CheckResult[] = [];
  for (const nc of snapshot.nodeClasses) {
    try {
      const r = await resolver.resolve(nc);
      out.push({
        check: `discovery ${nc.name}`,
        status: 'PASS',
        detail: `${r.subnets.length} subnets (${[...new Set(r.subnets.map((s) => s.zone))].join(', ')}), ${r.securityGroups.length} security groups, ${r.amis.length} AMIs`,
      });
    } catch (e) {
      out.push({
        check: `discovery ${nc.name}`,
        status: 'FAIL',
        detail: errorText(e),
        fix: 'tag the subnets and security groups the selector terms name (docs/deploy.md step 3)',
      });
    }
  }
  return out;
}

export async function checkNodeRole(iam: IAMClient, t: DoctorTarget): Promise<CheckResult> {
  try {
    await iam.send(new GetRoleCommand({ RoleName: t.nodeRoleName }));
    if (t.nodeInstanceProfileName) {
      const p = (await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: t.nodeInstanceProfileName }))).InstanceProfile;
      if (!p?.Roles?.some((r) => r.RoleName === t.nodeRoleName))
        return {
          check: 'node-role',
          status: 'FAIL',
          detail: `instance profile ${t.nodeInstanceProfileName} does not hold ${t.nodeRoleName}`,
          fix: 'aws iam add-role-to-instance-profile',
        };
    }
    return {
      check: 'node-role',
      status: 'PASS',
      detail: `role ${t.nodeRoleName} exists${t.nodeInstanceProfileName ? `, instance profile ${t.nodeInstanceProfileName} holds it` : '; instance profiles are managed from EC2NodeClass roles'}`,
    };
  } catch (e) {
    return {
      check: 'node-role',
      status: 'FAIL',
      detail: `${t.nodeRoleName}: ${errorText(e)}`,
      fix: 'create the node role (docs/deploy.md step 1) or pass --node-role',
    };
  }
}

export async function checkPrices(pricing: PricingClient, t: DoctorTarget): Promise<CheckResult> {
  try {
    const out = await pricing.send(
      new GetProductsCommand({
        ServiceCode: 'AmazonEC2',
        MaxResults: 1,
        Filters: [
          { Type: 'TERM_MATCH', Field: 'regionCode', Value: t.region },
          { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
        ],
      }),
    );
    if (!out.PriceList?.length)
      return {
        check: 'prices',
        status: 'WARN',
        detail: `the Price List API has no EC2 prices for ${t.region}`,
        fix: 'nodewright will use the bundled us-east-1 prices as estimates',
      };
    return { check: 'prices', status: 'PASS', detail: `the Price List API answers for ${t.region}` };
  } catch (e) {
    return {
      check: 'prices',
      status: 'WARN',
      detail: `GetProducts: ${errorText(e)}`,
      fix: 'without it nodewright plans with the bundled us-east-1 prices, marked as estimates',
    };
  }
}

export async function checkQueue(sqs: SQSClient, t: DoctorTarget): Promise<CheckResult> {
  try {
    const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: t.queueName }))).QueueUrl;
    const attrs =
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['Policy', 'ApproximateNumberOfMessages'] }))).Attributes ?? {};
    if (!/events\.amazonaws\.com/.test(attrs.Policy ?? ''))
      return {
        check: 'interruption-queue',
        status: 'FAIL',
        detail: `${t.queueName} exists but its policy does not let EventBridge send to it`,
        fix: 'redeploy the stack (infra/resources/interruption.yml sets the policy)',
      };
    return {
      check: 'interruption-queue',
      status: 'PASS',
      detail: `${t.queueName} receives EventBridge events (${attrs.ApproximateNumberOfMessages ?? '0'} waiting)`,
    };
  } catch (e) {
    return {
      check: 'interruption-queue',
      status: 'FAIL',
      detail: `${t.queueName}: ${errorText(e)}`,
      fix: 'deploy the stack, or pass --queue with interruptionQueueName',
    };
  }
}

/**
 * Reserved concurrency (deploy parameter `reserveConcurrency`, default true) before the first deploy: Lambda keeps
 * min(100, the account's limit) unreserved, so an account whose limit is 10 cannot reserve any and the stack would
 * fail to create. Once deployed (the controller exists), whatever was deployed passes.
 */
export async function checkConcurrency(lambda: LambdaClient, t: DoctorTarget, reserved: number): Promise<CheckResult> {
  try {
    const deployed = await lambda
      .send(new GetFunctionConcurrencyCommand({ FunctionName: `nodewright-${t.stage}-controller` }))
      .then((r) => ({ reserved: r.ReservedConcurrentExecutions }))
      .catch((e: unknown) => {
        if ((e as { name?: string }).name === 'ResourceNotFoundException') return undefined;
        throw e;
      });
    const limit = (await lambda.send(new GetAccountSettingsCommand({}))).AccountLimit;
    const total = limit?.ConcurrentExecutions ?? 0;
    const unreserved = limit?.UnreservedConcurrentExecutions ?? 0;
    const account = `account limit ${total}, ${unreserved} unreserved`;
    if (deployed) {
      const how = deployed.reserved !== undefined ? `the controller reserves ${deployed.reserved}` : 'deployed without reserved concurrency';
      return { check: 'lambda-concurrency', status: 'PASS', detail: `${how}; ${account}` };
    }
    const floor = Math.min(100, total);
    if (unreserved - reserved < floor)
      return {
        check: 'lambda-concurrency',
        status: 'FAIL',
        detail: `${account}: reserving ${reserved} for nodewright would leave ${unreserved - reserved}, below the ${floor} Lambda keeps unreserved (the stack would fail to create)`,
        fix: 'deploy with --param="reserveConcurrency=false" (the DynamoDB leases serialise the functions anyway), or ask for a higher Lambda concurrency quota',
      };
    return { check: 'lambda-concurrency', status: 'PASS', detail: `${account}: room to reserve ${reserved}` };
  } catch (e) {
    return {
      check: 'lambda-concurrency',
      status: 'WARN',
      detail: `GetAccountSettings: ${errorText(e)}`,
      fix: 'with an account concurrency limit under 105, deploy with --param="reserveConcurrency=false"',
    };
  }
}

/**
 * Each EC2NodeClass's `spec.role` against the node role the deployment may pass to EC2 (`nodeRoleName`): a class naming
 * another role gets no node (it is marked InstanceProfileReady=False once deployed). Classes that name an instance
 * profile instead are checked by the functions (its role is read from IAM).
 */
export function checkNodeClassRoles(snapshot: ClusterSnapshot | undefined, t: DoctorTarget): CheckResult[] {
  return (snapshot?.nodeClasses ?? [])
    .filter((c) => c.role)
    .map((c) => {
      const role = nodeClassRoleName(c.role ?? '');
      return role === t.nodeRoleName
        ? { check: `node-class-role ${c.name}`, status: 'PASS' as const, detail: `spec.role ${role} is the deployment's node role` }
        : {
            check: `node-class-role ${c.name}`,
            status: 'FAIL' as const,
            detail: `spec.role ${role} is not the node role the functions may pass to EC2 (${t.nodeRoleName})`,
            fix: `set spec.role to ${t.nodeRoleName}, or deploy with --param="nodeRoleName=${role}" (the functions may pass one role)`,
          };
    });
}

/**
 * Karpenter's own interruption queue (its getting-started stack names it after the cluster) still there: Karpenter may
 * still run beside nodewright — two autoscalers launching for the same pods. A WARN: the queue may only be left over.
 */
export async function checkKarpenterQueue(sqs: SQSClient, t: DoctorTarget): Promise<CheckResult> {
  if (t.queueName === t.clusterName) return { check: 'karpenter-queue', status: 'PASS', detail: 'nodewright uses the queue named after the cluster' };
  const found = await sqs
    .send(new GetQueueUrlCommand({ QueueName: t.clusterName }))
    .then((r) => r.QueueUrl)
    .catch(() => undefined);
  if (!found) return { check: 'karpenter-queue', status: 'PASS', detail: `no queue named ${t.clusterName} (Karpenter's getting-started name)` };
  return {
    check: 'karpenter-queue',
    status: 'WARN',
    detail: `queue ${t.clusterName} exists: Karpenter's interruption queue, so Karpenter may still be running`,
    fix: 'run one autoscaler per cluster: scale Karpenter to 0 before nodewright acts (docs/deploy.md "Moving from a running Karpenter"), or delete the leftover queue',
  };
}
