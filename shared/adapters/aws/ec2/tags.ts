import type { Tag as Ec2Tag } from '@aws-sdk/client-ec2';
import { Tag } from '../../../core/model/labels';

export const clusterTagKey = (clusterName: string): string => `${Tag.clusterPrefix}${clusterName}`;

export function tagsToRecord(tags: Ec2Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? '';
  return out;
}

export function recordToTags(tags: Record<string, string>): Ec2Tag[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

/**
 * An instance is nodewright's to terminate only when it carries both ownership tags Karpenter's own
 * controller policy requires: `kubernetes.io/cluster/<c>=owned` and a `karpenter.sh/nodepool` tag (empty for a
 * standalone NodeClaim's instance, as Karpenter tags it; the policy's `StringLike "*"` matches it). Managed node group
 * instances carry the first but not the second, so they are never touched.
 */
export function isOwnedByCluster(tags: Record<string, string>, clusterName: string): boolean {
  return tags[clusterTagKey(clusterName)] === 'owned' && typeof tags[Tag.nodePool] === 'string';
}

/** Tags written on instance, volume and fleet by CreateFleet (docs/karpenter-reference.md §1.4). Ours win over the node class's. */
export function launchTags(opts: {
  clusterName: string;
  nodeClassTags: Record<string, string>;
  nodePool: string;
  nodeClass: string;
  nodeClaim: string;
}): Record<string, string> {
  return {
    ...opts.nodeClassTags,
    [clusterTagKey(opts.clusterName)]: 'owned',
    [Tag.nodePool]: opts.nodePool,
    [Tag.eksClusterName]: opts.clusterName,
    [Tag.nodeClass]: opts.nodeClass,
    [Tag.nodeClaim]: opts.nodeClaim,
  };
}
