/**
 * Drift hashes on the objects themselves, as Karpenter's nodepool and nodeclass hash controllers keep them: every
 * NodePool carries `karpenter.sh/nodepool-hash(-version)` and every EC2NodeClass `karpenter.k8s.aws/ec2nodeclass-hash(-version)`.
 * When the recorded version is not the current one (nodewright upgraded its hash, or the objects come from Karpenter,
 * whose versions are never nodewright's), the claims of that pool or class whose own version differs (or is absent)
 * and that are not drifted get the current hash, so an upgrade or an adoption drifts nothing and static drift keeps
 * working for them.
 */
import { NodeClassHashVersion, NodePoolHashVersion, nodeClassHash, nodePoolHash } from '../model/hash';
import { conditionIsTrue, type NodeClaim, type RecordedHash } from '../model/karpenter';
import { Annotation } from '../model/labels';
import type { ClusterObjects } from '../ports';
import type { LifecycleDeps } from './deps';

/** The versions nodewright wrote before it had its own (Karpenter's numbers, nodewright's hash). */
const LEGACY_VERSION = { NodePool: 'v3', EC2NodeClass: 'v6' } as const;

interface Stamp {
  kind: 'NodePool' | 'EC2NodeClass';
  name: string;
  hash: string;
  version: string;
  recorded?: RecordedHash;
  keys: { hash: string; version: string };
  claims: NodeClaim[];
}

/** Records each pool's and class's hash on it, re-stamping their claims after a hash version change; returns what it wrote. */
export async function reconcileHashStamps(deps: Pick<LifecycleDeps, 'cluster' | 'log'>, snapshot: ClusterObjects): Promise<string[]> {
  // Each claim read once: by pool and by class.
  const byPool = new Map<string, NodeClaim[]>();
  const byClass = new Map<string, NodeClaim[]>();
  const add = (m: Map<string, NodeClaim[]>, key: string, c: NodeClaim) => {
    const list = m.get(key);
    if (list) list.push(c);
    else m.set(key, [c]);
  };
  for (const c of snapshot.nodeClaims) {
    add(byPool, c.nodePool, c);
    add(byClass, c.spec.nodeClassRef.name, c);
  }
  const stamps: Stamp[] = [
    ...snapshot.nodePools.map((p) => ({
      kind: 'NodePool' as const,
      name: p.name,
      hash: p.hash ?? nodePoolHash(p),
      version: NodePoolHashVersion,
      recorded: p.recordedHash,
      keys: { hash: Annotation.nodePoolHash, version: Annotation.nodePoolHashVersion },
      claims: byPool.get(p.name) ?? [],
    })),
    ...snapshot.nodeClasses.map((c) => ({
      kind: 'EC2NodeClass' as const,
      name: c.name,
      hash: c.hash ?? nodeClassHash(c),
      version: NodeClassHashVersion,
      recorded: c.recordedHash,
      keys: { hash: Annotation.nodeClassHash, version: Annotation.nodeClassHashVersion },
      claims: byClass.get(c.name) ?? [],
    })),
  ];
  const written: string[] = [];
  for (const s of stamps) {
    try {
      if (s.recorded?.version !== s.version) {
        // An older nodewright wrote Karpenter's version numbers beside its own hash (the same FNV hash as now): its
        // owner's recorded hash is then this one. Its claims keep their hash — a rollout under way goes on — and only
        // take the current version. Any other hash (Karpenter's hashstructure) is replaced, as Karpenter does.
        const ours = s.recorded?.version === LEGACY_VERSION[s.kind] && s.recorded.hash === s.hash;
        for (const claim of s.claims) {
          const version = claim.annotations[s.keys.version];
          if (version === s.version || claim.deletionTimestamp !== undefined || conditionIsTrue(claim, 'Drifted')) continue;
          const hash = ours && version === s.recorded?.version ? (claim.annotations[s.keys.hash] ?? s.hash) : s.hash;
          await deps.cluster.patchNodeClaimMetadata(claim.name, { annotations: { [s.keys.hash]: hash, [s.keys.version]: s.version } });
          written.push(`NodeClaim/${claim.name}`);
        }
      }
      if (s.recorded?.hash !== s.hash || s.recorded?.version !== s.version) {
        await deps.cluster.patchAnnotations(s.kind, s.name, { [s.keys.hash]: s.hash, [s.keys.version]: s.version });
        written.push(`${s.kind}/${s.name}`);
      }
    } catch (e) {
      deps.log.warn('could not record a drift hash', { kind: s.kind, name: s.name, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return written;
}
