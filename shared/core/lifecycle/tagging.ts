/**
 * Karpenter's nodeclaim tagging controller: once a claim's node has registered, its instance gets the tags EC2
 * could not have at launch — `Name` (the node's name, what the EC2 console lists), `karpenter.sh/nodeclaim` and
 * `eks:eks-cluster-name`, each only where the instance has no such tag yet (a `Name` from the node class's
 * `spec.tags` stays) — and the claim is annotated `karpenter.k8s.aws/tagged` and `…/cluster-name-tagged`, so it
 * happens once. A tag that cannot be written is logged and does not stop the node: the claim stays unannotated.
 */
import type { NodeClaim } from '../model/karpenter';
import { Annotation, Tag } from '../model/labels';
import type { LifecycleDeps } from './deps';

export async function tagRegisteredInstance(
  deps: Pick<LifecycleDeps, 'cluster' | 'log'> & { cloud: Pick<LifecycleDeps['cloud'], 'tagInstance'> },
  claim: NodeClaim,
  nodeName: string,
  providerID: string,
): Promise<boolean> {
  if (claim.annotations[Annotation.tagged] === 'true' && claim.annotations[Annotation.clusterNameTagged] === 'true') return false;
  try {
    await deps.cloud.tagInstance(providerID, { [Tag.name]: nodeName, [Tag.nodeClaim]: claim.name });
    await deps.cluster.patchNodeClaimMetadata(claim.name, { annotations: { [Annotation.tagged]: 'true', [Annotation.clusterNameTagged]: 'true' } });
    return true;
  } catch (e) {
    deps.log.warn('failed tagging the instance of a registered nodeclaim', {
      nodeclaim: claim.name,
      node: nodeName,
      'provider-id': providerID,
      error: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
    });
    return false;
  }
}
