/**
 * Cloud-provider drift (AMI, subnets, security groups) per NodeClaim, asked once per claim and invocation:
 * `CloudProvider.isDrifted` reads the instance, so a pass every 10 s must not repeat it for every node.
 */
import type { LifecycleDeps } from './deps';
import type { NodeClaim } from '../model/karpenter';
import type { ClusterSnapshot } from '../ports';
import { eachLimited } from '../concurrency';

/** NodeClaim name → drift reason, or null when the claim is not drifted. */
export type DriftCache = Map<string, string | null>;

const errorText = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** Claims worth asking about: launched, not deleting, with a known node class. */
function askable(snapshot: ClusterSnapshot, claim: NodeClaim): boolean {
  return (
    claim.status.providerID !== undefined && claim.deletionTimestamp === undefined && snapshot.nodeClasses.some((c) => c.name === claim.spec.nodeClassRef.name)
  );
}

/**
 * The `drifted` input of the disruption core: claim name → reason for every drifted claim of the snapshot.
 * A claim whose check fails (instance gone, throttled) is skipped with a log line and asked again next pass.
 */
export async function cloudDrift(deps: LifecycleDeps, snapshot: ClusterSnapshot, cache: DriftCache, concurrency = 8): Promise<Record<string, string>> {
  const todo = snapshot.nodeClaims.filter((c) => !cache.has(c.name) && askable(snapshot, c));
  await eachLimited(todo, concurrency, async (claim) => {
    const nodeClass = snapshot.nodeClasses.find((c) => c.name === claim.spec.nodeClassRef.name)!;
    try {
      cache.set(claim.name, (await deps.cloud.isDrifted(claim, nodeClass)) ?? null);
    } catch (e) {
      deps.log.warn('could not check nodeclaim drift', { nodeclaim: claim.name, nodepool: claim.nodePool, error: errorText(e) });
    }
  });
  const out: Record<string, string> = {};
  for (const claim of snapshot.nodeClaims) {
    const reason = cache.get(claim.name);
    if (reason) out[claim.name] = reason;
  }
  return out;
}
