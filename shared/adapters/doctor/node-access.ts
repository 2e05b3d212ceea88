/**
 * The node role's access entry: an instance launched with a role the cluster does not know never joins (its kubelet
 * is refused), so every launch ends in a registration timeout. Karpenter's getting-started stack creates an
 * `EC2_LINUX` access entry for `KarpenterNodeRole-<cluster>`; a cluster in CONFIG_MAP mode maps it in aws-auth instead.
 */
import type { EKSClient } from '@aws-sdk/client-eks';
import { errorText } from '../aws/errors';
import { listAccessEntries, type CheckResult, type DoctorTarget } from './checks';

export async function checkNodeAccessEntry(eks: EKSClient, t: DoctorTarget, authenticationMode: string | undefined): Promise<CheckResult> {
  const check = 'node-access-entry';
  if (authenticationMode === 'CONFIG_MAP')
    return {
      check,
      status: 'WARN',
      detail: 'authentication mode CONFIG_MAP: nodes join through aws-auth',
      fix: `check that aws-auth's mapRoles maps ${t.nodeRoleName}`,
    };
  try {
    const arns = await listAccessEntries(eks, t.clusterName);
    if (arns.some((a) => a.endsWith(`/${t.nodeRoleName}`))) return { check, status: 'PASS', detail: `the node role ${t.nodeRoleName} has an access entry` };
    return {
      check,
      status: authenticationMode === 'API' ? 'FAIL' : 'WARN',
      detail: `no access entry for the node role ${t.nodeRoleName}: its nodes cannot join${authenticationMode === 'API' ? '' : ' unless aws-auth maps it'}`,
      fix: `aws eks create-access-entry --cluster-name ${t.clusterName} --principal-arn arn:aws:iam::<account>:role/${t.nodeRoleName} --type EC2_LINUX`,
    };
  } catch (e) {
    return { check, status: 'WARN', detail: `ListAccessEntries: ${errorText(e)}`, fix: 'the cluster may use aws-auth only; check its mapRoles' };
  }
}
