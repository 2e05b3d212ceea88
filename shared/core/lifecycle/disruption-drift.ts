/**
 * Cloud-provider drift (AMI, subnets, security groups) per NodeClaim, asked once per claim and invocation: a pass
 * every 10 s must not read every instance again.
 */
import type { LifecycleDeps } from './deps';
import type { NodeClaim } from '../model/karpenter';
import type { CloudInstance, ClusterSnapshot } from '../ports';
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

/** The instance id at the end of a providerID (aws:///<zone>/<instance-id>). */
const instanceIdOf = (providerID: string): string => providerID.slice(providerID.lastIndexOf('/') + 1);

/**
 * The `drifted` input of the disruption core: claim name → reason for every drifted claim of the snapshot. The
 * instances are read in batches (`describeOwned`, 200 ids a request), not one DescribeInstances per claim: at 2,000
 * nodes one request per claim held the first pass of every invocation for 37 s. A claim whose instance the batch did
 * not show is asked on its own; one whose check fails (instance gone, throttled) is skipped with a log line and asked
 * again next pass; a terminated instance is garbage collection's.
 */
export async function cloudDrift(deps: LifecycleDeps, snapshot: ClusterSnapshot, cache: DriftCache, concurrency = 8): Promise<Record<string, string>> {
  const todo = snapshot.nodeClaims.filter((c) => !cache.has(c.name) && askable(snapshot, c));
  const instances = new Map<string, CloudInstance>();
  if (todo.length > 0) {
    try {
      for (const i of await deps.cloud.describeOwned({ instanceIds: todo.map((c) => instanceIdOf(c.status.providerID as string)) }))
        instances.set(i.providerID, i);
    } catch (e) {
      deps.log.warn('could not read the instances for drift', { nodeclaims: todo.length, error: errorText(e) });
    }
  }
  await eachLimited(todo, concurrency, async (claim) => {
    const nodeClass = snapshot.nodeClasses.find((c) => c.name === claim.spec.nodeClassRef.name)!;
    const instance = instances.get(claim.status.providerID as string);
    if (instance?.state === 'terminated') return;
    try {
      cache.set(claim.name, (await deps.cloud.isDrifted(claim, nodeClass, instance)) ?? null);
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
