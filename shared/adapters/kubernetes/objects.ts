/**
 * Targeted reads for use cases that need no pods (garbage collection): a LIST of only the kinds asked for, and a
 * GET of one NodeClaim that tells "missing" from "stored but unreadable by this version".
 */
import { ManifestValidationError } from '../../core/errors';
import { nodeClaimFromKube, nodeClassFromKube, nodeFromKube, nodePoolFromKube } from '../../core/model/from-kube';
import type { ClusterSnapshot, ListedKind, NodeClaimRead } from '../../core/ports/cluster-client';
import { KarpenterResources, type KubeApis } from './apis';
import { listAll, mapEach } from './snapshot';

type Json = Record<string, unknown>;

const nameOf = (o: Json): string => String((o.metadata as Json | undefined)?.name ?? '');

/** Lists each kind asked for (paged), mapped as the snapshot maps it; what cannot be read goes to `invalid`. */
export async function readObjects<K extends ListedKind>(apis: KubeApis, pageSize: number, kinds: readonly K[]): Promise<Pick<ClusterSnapshot, K | 'invalid'>> {
  const custom = (r: { group: string; version: string; plural: string }) =>
    listAll((c, l) => apis.custom.listClusterCustomObject({ ...r, _continue: c, limit: l }), pageSize);
  const readers: Record<ListedKind, () => Promise<{ ok: unknown[]; invalid: { kind: string; name: string; reason: string }[] }>> = {
    nodes: async () => mapEach('Node', await listAll((c, l) => apis.core.listNode({ _continue: c, limit: l }), pageSize), (o) => nodeFromKube(o)),
    nodeClaims: async () => mapEach('NodeClaim', await custom(KarpenterResources.nodeClaims), (o) => nodeClaimFromKube(o)),
    nodePools: async () => mapEach('NodePool', await custom(KarpenterResources.nodePools), (o) => nodePoolFromKube(o, { file: `nodepool/${nameOf(o)}` })),
    nodeClasses: async () =>
      mapEach('EC2NodeClass', await custom(KarpenterResources.nodeClasses), (o) => nodeClassFromKube(o, { file: `ec2nodeclass/${nameOf(o)}` })),
  };
  const unique = [...new Set(kinds)];
  const results = await Promise.all(unique.map((k) => readers[k]()));
  const invalid = results.flatMap((r) => r.invalid);
  return {
    ...Object.fromEntries(unique.map((k, i) => [k, results[i].ok])),
    ...(invalid.length > 0 ? { invalid } : {}),
  } as Pick<ClusterSnapshot, K | 'invalid'>;
}

/** A NodeClaim as a GET by name found it (raw: undefined when the API server has none). */
export function nodeClaimRead(raw: Json | undefined): NodeClaimRead {
  if (!raw) return { found: false };
  try {
    return { found: true, claim: nodeClaimFromKube(raw) };
  } catch (err) {
    const unreadable =
      err instanceof ManifestValidationError ? `${err.path ? `${err.path}: ` : ''}${err.problem}` : err instanceof Error ? err.message : String(err);
    return { found: true, unreadable };
  }
}
