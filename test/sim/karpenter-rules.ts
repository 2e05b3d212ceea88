/**
 * Karpenter's own rules for the objects nodewright leaves behind, for "the way back" (scaling Karpenter up again):
 * what Karpenter's hash controllers write on their first reconcile, then which NodeClaims its static drift check
 * calls drifted. Read from Karpenter's sources, not from nodewright's:
 * - kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/controller.go: when the NodePool's
 *   `karpenter.sh/nodepool-hash-version` is not "v3", every claim of the pool whose version is not "v3" gets "v3"
 *   and, unless it has a Drifted condition (of any status), the pool's hash; the pool then gets its hash and "v3".
 * - aws/karpenter-provider-aws pkg/controllers/nodeclass/hash/controller.go: the same for the EC2NodeClass ("v6").
 * - pkg/controllers/nodeclaim/disruption/drift.go areStaticFieldsDrifted (and the provider's drift.go): drifted only
 *   when the object and the claim both carry a hash and a version, the versions are equal and the hashes differ.
 * Karpenter's hash values come from hashstructure over its Go types; here `karpenter:<kind>/<name>` stands for them:
 * only their equality matters to the rules.
 */
import type { KubeObject } from '../../shared/sim/kube/types';

interface Rule {
  kind: string;
  hash: string;
  version: string;
  current: string;
  owner: (claim: KubeObject) => string | undefined;
}

const RULES: Rule[] = [
  {
    kind: 'NodePool',
    hash: 'karpenter.sh/nodepool-hash',
    version: 'karpenter.sh/nodepool-hash-version',
    current: 'v3',
    owner: (c) => c.metadata.labels?.['karpenter.sh/nodepool'] as string | undefined,
  },
  {
    kind: 'EC2NodeClass',
    hash: 'karpenter.k8s.aws/ec2nodeclass-hash',
    version: 'karpenter.k8s.aws/ec2nodeclass-hash-version',
    current: 'v6',
    owner: (c) => (c.spec as { nodeClassRef?: { name?: string } }).nodeClassRef?.name,
  },
];

const annotationsOf = (o: KubeObject): Record<string, string> => ({ ...((o.metadata.annotations as Record<string, string> | undefined) ?? {}) });
const hasDriftedCondition = (c: KubeObject) =>
  ((c.status as { conditions?: { type: string }[] } | undefined)?.conditions ?? []).some((x) => x.type === 'Drifted');

/** The claims Karpenter would call statically drifted (NodePoolDrifted / NodeClassDrift) after its hash controllers ran. */
export function karpenterStaticDrift(objects: { nodePools: KubeObject[]; nodeClasses: KubeObject[]; nodeClaims: KubeObject[] }): string[] {
  const claims = new Map(objects.nodeClaims.map((c) => [c.metadata.name as string, annotationsOf(c)]));
  const drifted = new Set<string>();
  for (const rule of RULES) {
    const owners = rule.kind === 'NodePool' ? objects.nodePools : objects.nodeClasses;
    for (const owner of owners) {
      const name = owner.metadata.name as string;
      const ownerAnnotations = annotationsOf(owner);
      // At Karpenter's version the owner's hash is Karpenter's own (its spec unchanged); otherwise Karpenter writes a new one.
      const karpenterHash = ownerAnnotations[rule.version] === rule.current ? ownerAnnotations[rule.hash] : `karpenter:${rule.kind}/${name}`;
      const mine = objects.nodeClaims.filter((c) => rule.owner(c) === name);
      if (ownerAnnotations[rule.version] !== rule.current)
        for (const c of mine) {
          const a = claims.get(c.metadata.name as string)!;
          if (a[rule.version] === rule.current) continue;
          a[rule.version] = rule.current;
          if (!hasDriftedCondition(c)) a[rule.hash] = karpenterHash;
        }
      for (const c of mine) {
        const a = claims.get(c.metadata.name as string)!;
        if (a[rule.hash] === undefined || a[rule.version] === undefined) continue;
        // The owner now carries Karpenter's hash at Karpenter's version.
        if (a[rule.version] === rule.current && a[rule.hash] !== karpenterHash) drifted.add(c.metadata.name as string);
      }
    }
  }
  return [...drifted].sort();
}
