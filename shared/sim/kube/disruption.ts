/** PodDisruptionBudget status (computed on read, as the disruption controller would) and the Eviction API decision. */
import { controllerOf, podReady, selectedPods, type OwnerRef, type SelectedPods } from './pdb-index';
import { matchesStructuredSelector } from './selectors';
import { KubeApiStatusError, notFound, statusBody } from './status';
import type { KubeStore } from './store';
import type { Json, KubeObject, ResourceType } from './types';

const scaled = (v: unknown, expected: number): number => {
  if (typeof v === 'number') return v;
  const s = String(v);
  if (s.endsWith('%')) return Math.ceil((Number(s.slice(0, -1)) * expected) / 100);
  return Number(s);
};

export interface PdbFigures {
  expectedPods: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
}

/**
 * Replicas the selected pods' controllers want (a ReplicaSet owned by a Deployment counts the Deployment's scale), as
 * the disruption controller does; undefined when some pod has no scalable controller.
 */
function expectedFromControllers(store: KubeStore, namespace: string | undefined, pods: SelectedPods): number | undefined {
  const seen = new Map<string, number>();
  for (const { ref } of pods.refs.values()) {
    const r = resolveController(store, namespace, ref);
    if (r === null) return undefined;
    seen.set(r[0], r[1]);
  }
  return [...seen.values()].reduce((a, b) => a + b, 0);
}

/** The scalable controller a pod's controller reference counts for (a ReplicaSet's Deployment), with its replicas. */
function resolveController(store: KubeStore, namespace: string | undefined, ref: OwnerRef | undefined): [string, number] | null {
  let kind = ref?.kind;
  if (kind === 'ReplicaSet') {
    const rs = store.registry.get('apps', 'replicasets');
    const owner = rs && ref?.name ? store.peek(rs, namespace, ref.name) : undefined;
    const up = owner ? controllerOf(owner) : undefined;
    if (up?.kind === 'Deployment') {
      ref = up;
      kind = 'Deployment';
    } else if (owner) return [`ReplicaSet/${ref?.name}`, Number(owner.spec?.replicas ?? 1)];
  }
  const plural = kind === 'Deployment' ? 'deployments' : kind === 'StatefulSet' ? 'statefulsets' : kind === 'ReplicaSet' ? 'replicasets' : undefined;
  const rt = plural ? store.registry.get('apps', plural) : undefined;
  const ctl = rt && ref?.name ? store.peek(rt, namespace, ref.name) : undefined;
  return ctl ? [`${kind}/${ref?.name}`, Number(ctl.spec?.replicas ?? 1)] : null;
}

/**
 * A stored budget's (or a copy's) disruptionsAllowed from the readiness of the pods it selects (terminating pods do
 * not count), as they stand.
 */
export function currentPdbFigures(pdb: KubeObject, store: KubeStore): PdbFigures {
  const spec = pdb.spec ?? {};
  const pods = selectedPods(store, pdb.metadata.namespace, spec.selector as Json | undefined);
  const expectedPods = expectedFromControllers(store, pdb.metadata.namespace, pods) ?? pods.live;
  const currentHealthy = pods.healthy;
  let desiredHealthy = 0;
  if (spec.minAvailable !== undefined) desiredHealthy = scaled(spec.minAvailable, expectedPods);
  else if (spec.maxUnavailable !== undefined) desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
  return { expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}

/** Read decorator for policy/v1 poddisruptionbudgets: fills status like the disruption controller. */
export function decoratePdb(pdb: KubeObject, store: KubeStore): KubeObject {
  const f = currentPdbFigures(pdb, store);
  pdb.status = {
    ...(pdb.status ?? {}),
    observedGeneration: pdb.metadata.generation ?? 1,
    ...f,
    conditions: [
      {
        type: 'DisruptionAllowed',
        status: f.disruptionsAllowed > 0 ? 'True' : 'False',
        reason: f.disruptionsAllowed > 0 ? 'SufficientPods' : 'InsufficientPods',
        message: '',
        observedGeneration: pdb.metadata.generation ?? 1,
        lastTransitionTime: pdb.metadata.creationTimestamp,
      },
    ],
  };
  return pdb;
}

/**
 * POST pods/{name}/eviction. 201 and the pod deleted (or marked, with finalizers) when allowed;
 * 429 TooManyRequests when a PDB has no disruption left; 404 when the pod is gone.
 */
export function evictPod(store: KubeStore, podType: ResourceType, namespace: string, name: string, body: Json | undefined): Json {
  const pod = store.tryGet(podType, namespace, name);
  if (!pod) throw notFound('', 'pods', name);
  const opts = (body?.deleteOptions ?? {}) as { gracePeriodSeconds?: number; preconditions?: { uid?: string } };
  const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || pod.status?.phase === 'Pending';
  if (!pod.metadata.deletionTimestamp && !terminal) {
    const pdbType = store.registry.get('policy', 'poddisruptionbudgets');
    const pdbs = pdbType
      ? store.scan(pdbType, namespace, { raw: true }).filter((b) => matchesStructuredSelector(pod.metadata.labels, b.spec?.selector as Json | undefined))
      : [];
    if (pdbs.length > 1)
      throw new KubeApiStatusError(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    if (pdbs.length === 1) {
      const f = currentPdbFigures(pdbs[0], store);
      const alwaysAllowUnhealthy = pdbs[0].spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow';
      const allowed = podReady(pod) ? f.disruptionsAllowed > 0 : alwaysAllowUnhealthy || f.currentHealthy >= f.desiredHealthy;
      if (!allowed) {
        throw new KubeApiStatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
          causes: [
            {
              reason: 'DisruptionBudget',
              message: `The disruption budget ${pdbs[0].metadata.name} needs ${f.desiredHealthy} healthy pods and has ${f.currentHealthy} currently`,
            },
          ],
        });
      }
    }
  }
  const node = pod.spec?.nodeName;
  if (!pod.metadata.deletionTimestamp && !terminal && typeof node === 'string') store.evictionsByNode.set(node, (store.evictionsByNode.get(node) ?? 0) + 1);
  store.delete(podType, namespace, name, { gracePeriodSeconds: opts.gracePeriodSeconds, preconditions: opts.preconditions });
  return statusBody(201, 'Success', '');
}

/** POST pods/{name}/binding: assigns the node and sets PodScheduled=True, as the scheduler's bind does. */
export function bindPod(store: KubeStore, podType: ResourceType, namespace: string, name: string, body: Json | undefined): Json {
  const target = (body?.target ?? {}) as { name?: string; kind?: string };
  if (!target.name) throw new KubeApiStatusError(422, 'Invalid', 'Binding.target.name: Required value');
  const pod = store.get(podType, namespace, name);
  const spec = pod.spec ?? {};
  if (spec.nodeName) {
    throw new KubeApiStatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${String(spec.nodeName)}"`,
    );
  }
  pod.spec = { ...spec, nodeName: target.name };
  store.update(podType, namespace, name, pod);
  const current = store.get(podType, namespace, name);
  const conds = ((current.status?.conditions ?? []) as { type: string }[]).filter((c) => c.type !== 'PodScheduled');
  current.status = {
    ...(current.status ?? {}),
    conditions: [...conds, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: store.timestamp() }],
  };
  store.update(podType, namespace, name, current, { subresource: 'status' });
  return statusBody(201, 'Success', '');
}
