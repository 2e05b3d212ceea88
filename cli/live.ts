/**
 * `plan` / `explain` on a running cluster (`--kubeconfig FILE`, `--context NAME`, or $KUBECONFIG as kubectl reads
 * it): the cluster's objects read once, read-only, and planned as manifests would be. `-f` files given beside it
 * replace the cluster's objects of the same kind and name (try a changed NodePool against the live cluster).
 * Instance types and prices come from the bundled catalog (or `--instance-types`), said so on stderr.
 */
import { KubeConfigInvalidError, kubeConfigFromUser } from '../shared/adapters/kubernetes/config';
import { readLiveCluster, type LiveCluster } from '../shared/adapters/kubernetes/live-read';
import { mergeManifestSets, parseManifests, type ManifestSet } from '../shared/core/model/manifests';
import { CliUsageError, readManifests } from './plan';
import type { AwsPlanInputs } from '../shared/core/provisioning/offline-plan';

export interface InputOptions {
  file?: string[];
  kubeconfig?: string;
  context?: string;
  instanceTypes?: string;
  region: string;
  /** The user gave --region (else a running cluster's own region, from its nodes, wins over the default). */
  regionGiven?: boolean;
  /** With a running cluster: the bundled catalog, without asking AWS. */
  offline?: boolean;
}

export interface Input {
  set: ManifestSet;
  region: string;
  /** Instance types and prices AWS answered (a running cluster, credentials that allow it, not --offline). */
  aws?: AwsPlanInputs;
}

/** The region most of the cluster's nodes say they are in. */
function clusterRegion(set: ManifestSet): string | undefined {
  const counts = new Map<string, number>();
  for (const n of set.nodes) {
    const r = n.labels['topology.kubernetes.io/region'];
    if (r) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The running cluster named by --kubeconfig / --context (or $KUBECONFIG, as kubectl), read once; a bad kubeconfig is a usage error. */
export async function readClusterObjects(opts: { kubeconfig?: string; context?: string }): Promise<LiveCluster> {
  let kc;
  try {
    kc = kubeConfigFromUser({ ...(opts.kubeconfig ? { file: opts.kubeconfig } : {}), ...(opts.context ? { context: opts.context } : {}) });
  } catch (e) {
    if (e instanceof KubeConfigInvalidError) throw new CliUsageError(e.message);
    throw e;
  }
  return readLiveCluster(kc);
}

async function readCluster(opts: InputOptions, err: (s: string) => void): Promise<ManifestSet> {
  const live = await readClusterObjects(opts);
  const set = parseManifests(live.text, `cluster ${live.server}`);
  const pending = set.pods.filter((p) => !p.nodeName).length;
  err(
    `read cluster ${live.server}${opts.context ? ` (context ${opts.context})` : ''}: ${live.counts.NodePool} NodePools, ${live.counts.EC2NodeClass} EC2NodeClasses, ` +
      `${live.counts.Node} nodes, ${live.counts.NodeClaim} NodeClaims, ${set.pods.length} pods (${pending} pending); nothing was written`,
  );
  return set;
}

/** Instance types and prices for a running cluster: AWS's when it answers, else the bundled catalog (said on stderr). */
async function livePrices(opts: InputOptions, region: string, err: (s: string) => void): Promise<AwsPlanInputs | undefined> {
  if (opts.instanceTypes) return undefined;
  if (opts.offline) {
    err('instance types and prices: the bundled catalog (--offline); --instance-types FILE replaces it');
    return undefined;
  }
  const { awsPlanInputs } = await import('./aws-prices');
  return awsPlanInputs(region, err);
}

/** The input of `plan` / `explain`: manifest files, a running cluster, or the cluster with files over it. */
export async function readInput(opts: InputOptions, err: (s: string) => void): Promise<Input> {
  const live = opts.kubeconfig || opts.context ? await readCluster(opts, err) : undefined;
  const files = opts.file?.length ? readManifests(opts.file) : undefined;
  const set = live && files ? mergeManifestSets(live, files) : (live ?? files);
  if (!set) throw new CliUsageError('give -f FILE (repeatable), or --kubeconfig FILE / --context NAME to read a running cluster');
  if (!live) return { set, region: opts.region };
  const region = (!opts.regionGiven && clusterRegion(live)) || opts.region;
  const aws = await livePrices(opts, region, err);
  return { set, region, ...(aws ? { aws } : {}) };
}
