/**
 * A fleet entry with `launchedBy: karpenter`: nodes as a running Karpenter v1 left them, for the adoption scenarios
 * (docs/deploy.md "Moving from a running Karpenter"). What differs from a node nodewright launched is what Karpenter
 * writes and nodewright does not:
 * - the NodeClaim's name, Karpenter's `generateName: <pool>-` (five characters of the API server's alphabet);
 * - the drift hashes: Karpenter's hashstructure values under its hash versions (`karpenter.sh/nodepool-hash-version`
 *   v3, `karpenter.k8s.aws/ec2nodeclass-hash-version` v6), on the claims and on the NodePool and EC2NodeClass as its
 *   hash controllers keep them. nodewright cannot compute hashstructure (nor can this simulator): the value is a
 *   stable uint64 of the object's content that is never nodewright's own hash, as on a real cluster;
 * - none of nodewright's own annotations (`nodewright.io/*`), and the tagging controller's annotations and
 *   Karpenter's status conditions ConsistentStateFound and Consolidatable.
 * Instances carry the same tags either way (Karpenter's, which nodewright also writes).
 */
import { canonicalJson } from '../../core/model/hash';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../core/model/karpenter';
import { Annotation } from '../../core/model/labels';
import { hashHex } from '../hash';
import type { KubeObject } from '../kube/types';
import type { SimWorld } from './world';

/** Karpenter's hash versions (kubernetes-sigs/karpenter NodePoolHashVersion, aws/karpenter-provider-aws EC2NodeClassHashVersion). */
const KarpenterHashVersion = { nodePool: 'v3', nodeClass: 'v6' } as const;

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `<pool>-xxxxx`, as the API server completes Karpenter's generateName; unique among `taken`. */
export function karpenterClaimName(pool: string, taken: Set<string>, ...seed: (string | number)[]): string {
  for (let n = 0; ; n++) {
    const hex = hashHex('karpenter-name', pool, ...seed, n);
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += ALPHABET[Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) % ALPHABET.length];
    const name = `${pool}-${suffix}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

/** Karpenter's hash of a NodePool template or an EC2NodeClass spec, as a uint64 in decimal (never nodewright's value). */
function karpenterHash(kind: string, spec: unknown): string {
  return BigInt(`0x${hashHex('karpenter-hashstructure', kind, canonicalJson(spec)).slice(0, 16)}`).toString();
}

const poolHash = (pool: NodePool) => karpenterHash('NodePool', pool.template);
const classHash = (nodeClass: EC2NodeClass) => karpenterHash('EC2NodeClass', { ...nodeClass, status: undefined, name: undefined, uid: undefined });

/** The claim's annotations as Karpenter writes them: its hashes and tagging marks, none of nodewright's. */
export function karpenterClaimAnnotations(claim: NodeClaim, pool: NodePool, nodeClass: EC2NodeClass): Record<string, string> {
  const own = Object.entries(claim.annotations).filter(([k]) => !k.startsWith('nodewright.io/'));
  return {
    ...Object.fromEntries(own),
    [Annotation.nodePoolHash]: poolHash(pool),
    [Annotation.nodePoolHashVersion]: KarpenterHashVersion.nodePool,
    [Annotation.nodeClassHash]: classHash(nodeClass),
    [Annotation.nodeClassHashVersion]: KarpenterHashVersion.nodeClass,
    [Annotation.tagged]: 'true',
    [Annotation.clusterNameTagged]: 'true',
  };
}

/** Karpenter's conditions beyond launch, registration and initialization (a v1 claim that has run a while). */
export const KarpenterExtraConditions = ['ConsistentStateFound', 'Consolidatable'] as const;

/** The NodePools and EC2NodeClasses as Karpenter's hash controllers left them: its hash and version annotations. */
export function stampKarpenterHashes(world: SimWorld, pools: Iterable<NodePool>, classes: Iterable<EC2NodeClass>): void {
  const store = world.api.store;
  const stamp = (apiVersion: string, kind: string, name: string, annotations: Record<string, string>) => {
    const type = store.typeOf(apiVersion, kind);
    const current = store.tryGet(type, undefined, name);
    if (!current) return;
    const metadata = { ...current.metadata, annotations: { ...(current.metadata.annotations as Record<string, string>), ...annotations } };
    store.update(type, undefined, name, { ...current, metadata } as KubeObject);
  };
  for (const p of pools)
    stamp('karpenter.sh/v1', 'NodePool', p.name, { [Annotation.nodePoolHash]: poolHash(p), [Annotation.nodePoolHashVersion]: KarpenterHashVersion.nodePool });
  for (const c of classes)
    stamp('karpenter.k8s.aws/v1', 'EC2NodeClass', c.name, {
      [Annotation.nodeClassHash]: classHash(c),
      [Annotation.nodeClassHashVersion]: KarpenterHashVersion.nodeClass,
    });
}
