/**
 * `plan` / `explain` on a running cluster (`--kubeconfig FILE`, `--context NAME`, or $KUBECONFIG as kubectl reads
 * it): the cluster's objects read once, read-only, and planned as manifests would be. `-f` files given beside it
 * replace the cluster's objects of the same kind and name (try a changed NodePool against the live cluster).
 * Instance types and prices come from the bundled catalog (or `--instance-types`), said so on stderr.
 */
import { KubeConfigInvalidError, kubeConfigFromUser } from '../shared/adapters/kubernetes/config';
import { readLiveCluster } from '../shared/adapters/kubernetes/live-read';
import { mergeManifestSets, parseManifests, type ManifestSet } from '../shared/core/model/manifests';
import { CliUsageError, readManifests } from './plan';

export interface InputOptions {
  file?: string[];
  kubeconfig?: string;
  context?: string;
  instanceTypes?: string;
}

async function readCluster(opts: InputOptions, err: (s: string) => void): Promise<ManifestSet> {
  let kc;
  try {
    kc = kubeConfigFromUser({ ...(opts.kubeconfig ? { file: opts.kubeconfig } : {}), ...(opts.context ? { context: opts.context } : {}) });
  } catch (e) {
    if (e instanceof KubeConfigInvalidError) throw new CliUsageError(e.message);
    throw e;
  }
  const live = await readLiveCluster(kc);
  const set = parseManifests(live.text, `cluster ${live.server}`);
  const pending = set.pods.filter((p) => !p.nodeName).length;
  err(
    `read cluster ${live.server}${opts.context ? ` (context ${opts.context})` : ''}: ${live.counts.NodePool} NodePools, ${live.counts.EC2NodeClass} EC2NodeClasses, ` +
      `${live.counts.Node} nodes, ${live.counts.NodeClaim} NodeClaims, ${set.pods.length} pods (${pending} pending); nothing was written`,
  );
  if (!opts.instanceTypes) err('instance types and prices: the bundled catalog (offline); --instance-types FILE replaces it');
  return set;
}

/** The input of `plan` / `explain`: manifest files, a running cluster, or the cluster with files over it. */
export async function readInput(opts: InputOptions, err: (s: string) => void): Promise<ManifestSet> {
  const live = opts.kubeconfig || opts.context ? await readCluster(opts, err) : undefined;
  const files = opts.file?.length ? readManifests(opts.file) : undefined;
  if (live && files) return mergeManifestSets(live, files);
  const set = live ?? files;
  if (!set) throw new CliUsageError('give -f FILE (repeatable), or --kubeconfig FILE / --context NAME to read a running cluster');
  return set;
}
