/**
 * "Why is this pod pending?" — checks one pod against each NodePool step by step (taints, requirements,
 * instance types, offerings, resources, limits) and says where it stops. Complements the solver's reason,
 * which only reports the last failure.
 */
import type { Pod } from '../model/kube';
import { Label } from '../model/labels';
import { formatResourceList, type ResourceList } from '../model/resources';
import { newPodState } from '../scheduling/pod-data';
import type { Requirement } from '../scheduling/requirements';
import { taintString, untoleratedTaint } from '../scheduling/selectors';
import { buildTemplate, offeringMatches, typeMatches } from '../scheduling/template';
import { Dims } from '../scheduling/dims';
import type { SchedulingInput } from '../scheduling/types';

interface DiagnosisStep { check: string; ok: boolean; detail: string }
export interface PoolDiagnosis { nodePool: string; fits: boolean; steps: DiagnosisStep[] }

const fmt = (r: ResourceList) => JSON.stringify(formatResourceList(r));

export function diagnosePod(pod: Pod, input: SchedulingInput): PoolDiagnosis[] {
  const state = newPodState(pod, 0, [], input.options?.preferencePolicy === 'Ignore');
  const reqs = state.strictRequirements;
  const requests: ResourceList = { ...pod.requests, pods: 1 };
  const dims = new Dims(Object.keys(requests));
  const pools = [...input.nodePools].sort((a, b) => b.weight - a.weight || (a.name < b.name ? 1 : -1));
  if (pools.length === 0) return [{ nodePool: '(none)', fits: false, steps: [{ check: 'nodepools', ok: false, detail: 'no NodePool exists' }] }];
  return pools.map((pool) => {
    const steps: DiagnosisStep[] = [];
    const done = (fits: boolean) => ({ nodePool: pool.name, fits, steps });
    if (pool.deleting || pool.ready === false) {
      steps.push({ check: 'nodepool ready', ok: false, detail: pool.deleting ? 'the NodePool is being deleted' : 'the NodePool is not ready' });
      return done(false);
    }
    if (pool.replicas !== undefined) {
      steps.push({ check: 'dynamic provisioning', ok: false, detail: `a static NodePool (replicas ${pool.replicas}) is never launched for pending pods; its nodes take pods as existing capacity` });
      return done(false);
    }
    const t = buildTemplate(pool, input.instanceTypes[pool.name] ?? [], input.daemonSets, dims);
    const total = (input.instanceTypes[pool.name] ?? []).length;
    steps.push({ check: 'instance types', ok: t.options.length > 0, detail: `${t.options.length} of ${total} instance types match the NodePool's requirements and have an available offering` });
    if (t.options.length === 0) return done(false);
    const taint = untoleratedTaint(pod, t.taints);
    steps.push({ check: 'taints', ok: !taint, detail: taint ? `the pod does not tolerate ${taintString(taint)}` : `tolerated (${t.taints.length} taint(s))` });
    if (taint) return done(false);
    const bad = t.requirements.incompatibleKey(reqs);
    const show = (r?: Requirement) => (r ? `${r.operator()}${r.values.size ? ` [${[...r.values].join(', ')}]` : ''}` : 'not defined');
    steps.push({ check: 'requirements', ok: bad === undefined, detail: bad === undefined ? 'the pod\'s node selector and required affinity are compatible' : `${bad}: the pod needs ${show(reqs.get(bad))}, the NodePool has ${show(t.requirements.get(bad))}` });
    if (bad !== undefined) return done(false);
    const merged = t.requirements.intersect(reqs);
    const byLabels = t.options.filter((o) => typeMatches(o.it, merged));
    steps.push({ check: 'instance types for the pod', ok: byLabels.length > 0, detail: `${byLabels.length} instance types satisfy the combined requirements` });
    if (byLabels.length === 0) return done(false);
    const offered = byLabels.filter((o) => o.offerings.some((x) => offeringMatches(x, merged)));
    const zones = merged.get(Label.zone);
    const cts = merged.get(Label.capacityType);
    steps.push({ check: 'offerings', ok: offered.length > 0, detail: `${offered.length} have an available offering${zones && !zones.complement ? ` in ${[...zones.values].join(', ')}` : ''}${cts && !cts.complement ? ` as ${[...cts.values].join('/')}` : ''}` });
    if (offered.length === 0) return done(false);
    const fitting = offered.filter((o) => Object.keys(requests).every((k) => requests[k] <= (o.effective[k] ?? 0)));
    if (fitting.length === 0) {
      const biggest = offered.reduce((a, b) => ((b.effective.cpu ?? 0) + (b.effective.memory ?? 0) / 2 ** 30 > (a.effective.cpu ?? 0) + (a.effective.memory ?? 0) / 2 ** 30 ? b : a));
      steps.push({ check: 'resources', ok: false, detail: `none fits the pod's requests ${fmt(requests)} plus DaemonSet overhead; the largest, ${biggest.it.name}, has ${fmt(biggest.effective)} left after DaemonSets` });
      return done(false);
    }
    steps.push({ check: 'resources', ok: true, detail: `${fitting.length} fit the pod's requests ${fmt(requests)} plus DaemonSet overhead; cheapest ${fitting[0].it.name}` });
    const limits = pool.limits;
    if (Object.keys(limits).length > 0) {
      const used: ResourceList = {};
      for (const n of input.existingNodes) if (n.nodePool === pool.name) { for (const k in n.capacity) used[k] = (used[k] ?? 0) + n.capacity[k]; used.nodes = (used.nodes ?? 0) + 1; }
      const within = fitting.filter((o) => Object.keys(limits).every((k) => k === 'nodes' ? (used.nodes ?? 0) < limits.nodes : (used[k] ?? 0) + (o.it.capacity[k] ?? 0) <= limits[k]));
      steps.push({ check: 'limits', ok: within.length > 0, detail: within.length > 0 ? `within limits ${fmt(limits)} (in use ${fmt(used)})` : `every fitting type would exceed limits ${fmt(limits)} (in use ${fmt(used)})` });
      if (within.length === 0) return done(false);
    }
    return done(true);
  });
}
