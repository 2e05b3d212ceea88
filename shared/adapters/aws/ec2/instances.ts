import { CreateTagsCommand, DescribeInstancesCommand, type EC2Client, type Filter, type Instance } from '@aws-sdk/client-ec2';
import type { CloudInstance, InstanceState } from '../../../core/ports/cloud-provider';
import { InstanceNotOwnedError, NodeClaimNotFoundError } from '../../../core/errors';
import { Tag } from '../../../core/model/labels';
import { mapAwsError } from '../errors';
import { isOwnedByCluster, tagsToRecord } from './tags';
import { epochMs } from '../../../core/time';

export class ProviderIdInvalidError extends Error {
  override readonly name = 'ProviderIdInvalidError' as const;
}

/** `aws:///us-east-1a/i-0abc` (or a bare instance id) → the instance id. */
export function parseProviderID(providerID: string): string {
  const m = /^(?:aws:\/\/\/[^/]+\/)?(i-[0-9a-f]+)$/.exec(providerID ?? '');
  if (!m) throw new ProviderIdInvalidError(`providerID "${providerID}" is not aws:///<zone>/<instance-id>`);
  return m[1];
}

export const providerIdFor = (zone: string, instanceId: string): string => `aws:///${zone}/${instanceId}`;

const STATES: ReadonlySet<string> = new Set(['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped']);

function toCloudInstance(i: Instance): CloudInstance {
  const zone = i.Placement?.AvailabilityZone ?? '';
  const id = i.InstanceId ?? '';
  const state = i.State?.Name && STATES.has(i.State.Name) ? (i.State.Name as InstanceState) : 'pending';
  return {
    instanceId: id,
    providerID: providerIdFor(zone, id),
    instanceType: i.InstanceType ?? '',
    zone,
    capacityType: i.InstanceLifecycle === 'spot' ? 'spot' : i.CapacityReservationId ? 'reserved' : 'on-demand',
    imageId: i.ImageId,
    subnetId: i.SubnetId,
    securityGroupIds: (i.SecurityGroups ?? []).map((g) => g.GroupId ?? '').filter(Boolean),
    launchTime: epochMs(i.LaunchTime ? new Date(i.LaunchTime).getTime() : 0),
    state,
    tags: tagsToRecord(i.Tags),
    privateDnsName: i.PrivateDnsName || undefined,
  };
}

/** DescribeInstances for one id; NodeClaimNotFoundError when EC2 no longer knows it. */
export async function describeInstance(ec2: EC2Client, instanceId: string): Promise<CloudInstance> {
  let out;
  try {
    out = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  } catch (e) {
    throw mapAwsError(e, `DescribeInstances ${instanceId}`);
  }
  const inst = out.Reservations?.flatMap((r) => r.Instances ?? []).find((i) => i.InstanceId === instanceId);
  if (!inst) throw new NodeClaimNotFoundError(`instance ${instanceId} not found`);
  return toCloudInstance(inst);
}

/** Every instance matching the filters, following NextToken. */
export async function describeInstances(ec2: EC2Client, filters: Filter[]): Promise<CloudInstance[]> {
  const out: CloudInstance[] = [];
  let NextToken: string | undefined;
  try {
    do {
      const page = await ec2.send(new DescribeInstancesCommand({ Filters: filters, NextToken, MaxResults: 1000 }));
      for (const r of page.Reservations ?? []) for (const i of r.Instances ?? []) out.push(toCloudInstance(i));
      NextToken = page.NextToken;
    } while (NextToken);
  } catch (e) {
    throw mapAwsError(e, 'DescribeInstances');
  }
  return out;
}

/**
 * CloudProvider.tagInstance: the tags an instance of this cluster lacks (and `eks:eks-cluster-name`), in one
 * CreateTags; keys it already has keep their values. Reads the instance first (DescribeInstances by id).
 */
export async function tagOwnedInstance(ec2: EC2Client, clusterName: string, providerID: string, tags: Record<string, string>): Promise<void> {
  const instanceId = parseProviderID(providerID);
  const instance = await describeInstance(ec2, instanceId);
  if (!isOwnedByCluster(instance.tags, clusterName)) throw new InstanceNotOwnedError(`instance ${instanceId} is not owned by cluster ${clusterName}`);
  if (instance.state === 'terminated') throw new NodeClaimNotFoundError(`instance ${instanceId} is terminated`, { terminated: true });
  const missing = Object.entries({ ...tags, [Tag.eksClusterName]: clusterName }).filter(([k]) => !(k in instance.tags));
  if (missing.length === 0) return;
  try {
    await ec2.send(new CreateTagsCommand({ Resources: [instanceId], Tags: missing.map(([Key, Value]) => ({ Key, Value })) }));
  } catch (e) {
    throw mapAwsError(e, `CreateTags ${instanceId}`);
  }
}
