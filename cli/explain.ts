/**
 * `nodewright explain -f FILE… [--pod ns/name]`: why each pending pod would (not) get a node — the solver's
 * decision plus a step-by-step check against every NodePool.
 */
import { loadCatalog } from '../shared/catalog';
import { podKey } from '../shared/core/model/kube';
import { legacyAnnotationWarnings } from '../shared/core/model/legacy-annotations';
import { diagnosePod } from '../shared/core/provisioning/explain';
import { planOffline } from '../shared/core/provisioning/offline-plan';
import { CliUsageError, readInstanceTypes } from './plan';
import { readInput } from './live';
import { disruptionNow, explainNode } from './consolidation';

export interface ExplainOptions {
  file?: string[];
  kubeconfig?: string;
  context?: string;
  /** Why this node would (not) be disrupted now, instead of the pending pods. */
  node?: string;
  pod?: string;
  region: string;
  zones?: string;
  instanceTypes?: string;
  regionGiven?: boolean;
  offline?: boolean;
}

export async function explainCommand(opts: ExplainOptions, out: (s: string) => void, err: (s: string) => void = out): Promise<number> {
  const { set, region, aws } = await readInput(opts, err);
  const zones = opts.zones
    ? opts.zones
        .split(',')
        .map((z) => z.trim())
        .filter(Boolean)
    : undefined;
  const custom = readInstanceTypes(opts.instanceTypes, region, zones);
  const offline = planOffline(set, { region, zones, instanceTypes: custom, catalog: loadCatalog(), ...(aws ? { aws } : {}) });
  const { plan, pending, input } = offline;
  for (const w of legacyAnnotationWarnings(set)) err(`warning: ${w}`);
  if (opts.node) {
    const d = disruptionNow(set, offline, Date.now());
    const lines = d ? explainNode(d, opts.node) : [];
    if (lines.length === 0)
      throw new CliUsageError(`node ${opts.node} is not a node with a NodeClaim in the given ${opts.kubeconfig || opts.context ? 'cluster' : 'files'}`);
    out(lines.join('\n'));
    return 0;
  }
  const targets = opts.pod ? pending.filter((p) => podKey(p) === opts.pod) : pending;
  if (opts.pod && targets.length === 0)
    throw new CliUsageError(`pod ${opts.pod} is not a pending pod in the given ${opts.kubeconfig || opts.context ? 'cluster' : 'files'}`);

  const where = new Map<string, string>();
  plan.nodeClaims.forEach((c, i) =>
    c.pods.forEach((p) =>
      where.set(
        podKey(p),
        `new node #${i + 1} (nodepool ${c.nodePool}, ${c.instanceTypes[0]?.name} ${c.capacityType}${c.zone ? ` in ${c.zone}` : ''}, $${c.price.toFixed(4)}/h)`,
      ),
    ),
  );
  plan.existingPlacements.forEach((e) => e.pods.forEach((p) => where.set(podKey(p), `existing node ${e.node}`)));
  const why = new Map([...plan.unschedulable, ...plan.ignored].map((u) => [podKey(u.pod), u.reason]));

  for (const pod of targets) {
    const key = podKey(pod);
    out(`${key}: ${where.has(key) ? `scheduled on ${where.get(key)}` : `stays pending — ${why.get(key) ?? 'unknown'}`}`);
    if (where.has(key) && !opts.pod) continue;
    for (const d of diagnosePod(pod, { ...input, pods: [pod], nodePools: set.nodePools })) {
      out(`  nodepool ${d.nodePool}: ${d.fits ? 'could launch a node for this pod on its own' : 'cannot launch a node for this pod'}`);
      for (const s of d.steps) out(`    ${s.ok ? '✓' : '✗'} ${s.check}: ${s.detail}`);
    }
  }
  return 0;
}
