/**
 * "Why is this pod pending?" — checks one pod against each NodePool step by step (taints, requirements,
 * instance types, offerings, resources, limits) and says where it stops. Complements the solver's reason,
 * which only reports the last failure.
 */
import type { NodePool } from '../model/karpenter';
import type { Pod } from '../model/kube';
import { Label } from '../model/labels';
import { formatResourceList, type ResourceList } from '../model/resources';
import { newPodState } from '../scheduling/pod-data';
import type { Requirement, Requirements } from '../scheduling/requirements';
import { taintString, untoleratedTaint } from '../scheduling/selectors';
import { buildTemplate, offeringMatches, typeMatches, type Template, type TypeOption } from '../scheduling/template';
import { Dims } from '../scheduling/dims';
import type { SchedulingInput } from '../scheduling/types';

interface DiagnosisStep {
  check: string;
  ok: boolean;
  detail: string;
}
export interface PoolDiagnosis {
  nodePool: string;
  fits: boolean;
  steps: DiagnosisStep[];
}

const fmt = (r: ResourceList) => JSON.stringify(formatResourceList(r));

/**
 * The pool itself (ready, dynamic, with matching instance types), then the pod against its template (taints,
 * requirements). Returns the template when the pod gets past all of them.
 */
function checkTemplate(pool: NodePool, pod: Pod, reqs: Requirements, input: SchedulingInput, dims: Dims, steps: DiagnosisStep[]): Template | undefined {
  if (pool.deleting || pool.ready === false) {
    steps.push({ check: 'nodepool ready', ok: false, detail: pool.deleting ? 'the NodePool is being deleted' : 'the NodePool is not ready' });
    return undefined;
  }
  if (pool.replicas !== undefined) {
    steps.push({
      check: 'dynamic provisioning',
      ok: false,
      detail: `a static NodePool (replicas ${pool.replicas}) is never launched for pending pods; its nodes take pods as existing capacity`,
    });
    return undefined;
  }
  const t = buildTemplate(pool, input.instanceTypes[pool.name] ?? [], input.daemonSets, dims);
  const total = (input.instanceTypes[pool.name] ?? []).length;
  steps.push({
    check: 'instance types',
    ok: t.options.length > 0,
    detail: `${t.options.length} of ${total} instance types match the NodePool's requirements and have an available offering`,
  });
  if (t.options.length === 0) return undefined;
  const taint = untoleratedTaint(pod, t.taints);
  steps.push({ check: 'taints', ok: !taint, detail: taint ? `the pod does not tolerate ${taintString(taint)}` : `tolerated (${t.taints.length} taint(s))` });
  if (taint) return undefined;
  const bad = t.requirements.incompatibleKey(reqs);
  const show = (r?: Requirement) => (r ? `${r.operator()}${r.values.size ? ` [${[...r.values].join(', ')}]` : ''}` : 'not defined');
  steps.push({
    check: 'requirements',
    ok: bad === undefined,
    detail:
      bad === undefined
        ? "the pod's node selector and required affinity are compatible"
        : `${bad}: the pod needs ${show(reqs.get(bad))}, the NodePool has ${show(t.requirements.get(bad))}`,
  });
  if (bad !== undefined) return undefined;
  return t;
}

/** What NodeOverlays did to the cheapest fitting type: its price's overlay, the overlays that declared requested extended resources. */
function overlayNote(it: TypeOption['it'], requests: ResourceList): string {
  const notes: string[] = [];
  const priced = it.offerings.filter((o) => o.available && o.priceOverlay).sort((a, b) => a.price - b.price)[0];
  if (priced) notes.push(`priced by NodeOverlay ${priced.priceOverlay}`);
  const extended = Object.keys(requests).filter((k) => requests[k] > 0 && !['cpu', 'memory', 'pods', 'ephemeral-storage'].includes(k));
  if (extended.length > 0 && it.capacityOverlays?.length) notes.push(`${extended.join(', ')} declared by NodeOverlay ${it.capacityOverlays.join(', ')}`);
  return notes.length ? ` (${notes.join('; ')})` : '';
}

/** The template's instance types for the pod: by the combined requirements, by offering, by resources. Returns those that fit (none: the pod stops here). */
function fittingTypes(t: Template, reqs: Requirements, requests: ResourceList, steps: DiagnosisStep[]): TypeOption[] {
  const merged = t.requirements.intersect(reqs);
  const byLabels = t.options.filter((o) => typeMatches(o.it, merged));
  steps.push({ check: 'instance types for the pod', ok: byLabels.length > 0, detail: `${byLabels.length} instance types satisfy the combined requirements` });
  if (byLabels.length === 0) return [];
  const offered = byLabels.filter((o) => o.offerings.some((x) => offeringMatches(x, merged)));
  const zones = merged.get(Label.zone);
  const cts = merged.get(Label.capacityType);
  steps.push({
    check: 'offerings',
    ok: offered.length > 0,
    detail: `${offered.length} have an available offering${zones && !zones.complement ? ` in ${[...zones.values].join(', ')}` : ''}${cts && !cts.complement ? ` as ${[...cts.values].join('/')}` : ''}`,
  });
  if (offered.length === 0) return [];
  const fitting = offered.filter((o) => Object.keys(requests).every((k) => requests[k] <= (o.effective[k] ?? 0)));
  if (fitting.length === 0) {
    const biggest = offered.reduce((a, b) =>
      (b.effective.cpu ?? 0) + (b.effective.memory ?? 0) / 2 ** 30 > (a.effective.cpu ?? 0) + (a.effective.memory ?? 0) / 2 ** 30 ? b : a,
    );
    steps.push({
      check: 'resources',
      ok: false,
      detail: `none fits the pod's requests ${fmt(requests)} plus DaemonSet overhead; the largest, ${biggest.it.name}, has ${fmt(biggest.effective)} left after DaemonSets`,
    });
    return [];
  }
  steps.push({
    check: 'resources',
    ok: true,
    detail: `${fitting.length} fit the pod's requests ${fmt(requests)} plus DaemonSet overhead; cheapest ${fitting[0].it.name}${overlayNote(fitting[0].it, requests)}`,
  });
  return fitting;
}

/** The pool's limits against its existing nodes: whether some fitting type stays within them (no limits: yes). */
function withinLimits(pool: NodePool, input: SchedulingInput, fitting: TypeOption[], steps: DiagnosisStep[]): boolean {
  const limits = pool.limits;
  if (Object.keys(limits).length === 0) return true;
  const used: ResourceList = {};
  for (const n of input.existingNodes)
    if (n.nodePool === pool.name) {
      for (const k in n.capacity) used[k] = (used[k] ?? 0) + n.capacity[k];
      used.nodes = (used.nodes ?? 0) + 1;
    }
  const within = fitting.filter((o) =>
    Object.keys(limits).every((k) => (k === 'nodes' ? (used.nodes ?? 0) < limits.nodes : (used[k] ?? 0) + (o.it.capacity[k] ?? 0) <= limits[k])),
  );
  steps.push({
    check: 'limits',
    ok: within.length > 0,
    detail:
      within.length > 0 ? `within limits ${fmt(limits)} (in use ${fmt(used)})` : `every fitting type would exceed limits ${fmt(limits)} (in use ${fmt(used)})`,
  });
  return within.length > 0;
}

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
    const t = checkTemplate(pool, pod, reqs, input, dims, steps);
    if (!t) return done(false);
    const fitting = fittingTypes(t, reqs, requests, steps);
    if (fitting.length === 0) return done(false);
    return done(withinLimits(pool, input, fitting, steps));
  });
}
