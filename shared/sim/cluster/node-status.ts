/**
 * Writes to a Node by its kubelet and by the node lifecycle controller, and to the pods of a rebooting node: shared by
 * the kubelet (an instance shutting down) and node health (unhealthy nodes, reboots: ./node-health.ts).
 */
import { TaintKey } from '../../core/model/labels';
import type { Taint } from '../../core/model/kube';
import type { KubeStore } from '../kube/store';
import type { Json, KubeObject } from '../kube/types';
import { isLivePod, kubeTypes, withCondition } from './kube-objects';
import { KUBELET_CONDITIONS, UNKNOWN, type ConditionValue } from './node-health-content';

/** kube-controller-manager's node-monitor-grace-period: Ready goes Unknown when the kubelet has not posted for this long. */
export const NODE_MONITOR_GRACE_SECONDS = 40;

const LIFECYCLE = { manager: 'node-lifecycle-controller' };
const KUBELET = { manager: 'kubelet' };

type Condition = Record<string, unknown> & { type?: string; status?: string };
const conditionsOf = (o: Readonly<KubeObject>): Condition[] => ((o.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];

/** The node's condition of that type, as stored. */
export const nodeCondition = (node: Readonly<KubeObject> | undefined, type: string): Condition | undefined =>
  node ? conditionsOf(node).find((c) => c.type === type) : undefined;

/**
 * The taints the node lifecycle controller keeps for the node's Ready: `not-ready` (False) or `unreachable` (Unknown),
 * NoSchedule and NoExecute; none (True). Returns the node as written.
 */
export function setReadinessTaints(store: KubeStore, name: string, key: 'not-ready' | 'unreachable' | undefined): KubeObject {
  const type = kubeTypes(store).node;
  const node = structuredClone(store.get(type, undefined, name));
  const taints = ((node.spec?.taints as Taint[] | undefined) ?? []).filter((t) => t.key !== TaintKey.unreachable && t.key !== TaintKey.notReady);
  const k = key === 'not-ready' ? TaintKey.notReady : key === 'unreachable' ? TaintKey.unreachable : undefined;
  const added = k
    ? [
        { key: k, effect: 'NoSchedule' },
        { key: k, effect: 'NoExecute' },
      ]
    : [];
  node.spec = { ...(node.spec ?? {}), taints: [...taints, ...added] };
  return store.update(type, undefined, name, node, LIFECYCLE);
}

/**
 * The node lifecycle controller, once the kubelet has stopped posting: the unreachable taints, and every kubelet
 * condition Unknown (the monitoring agent's are left as they were).
 */
export function markNodeUnreachable(store: KubeStore, name: string): void {
  const type = kubeTypes(store).node;
  const node = store.get(type, undefined, name);
  const nowIso = store.timestamp();
  const updated = setReadinessTaints(store, name, 'unreachable');
  let conditions = conditionsOf(node) as Record<string, unknown>[];
  for (const t of KUBELET_CONDITIONS) conditions = withCondition(conditions, UNKNOWN(t), nowIso);
  store.update(type, undefined, name, { ...updated, status: { ...(node.status ?? {}), conditions } }, { subresource: 'status', ...LIFECYCLE });
}

/**
 * Sets conditions in place (a new one is added at the end): lastTransitionTime moves when the status changes, or
 * always with `freshTransition` (a failure that came back); a condition with a heartbeat gets a fresh one.
 */
export function setNodeConditions(store: KubeStore, name: string, values: ConditionValue[], opts: { manager: string; freshTransition?: boolean }): void {
  const type = kubeTypes(store).node;
  const node = store.get(type, undefined, name);
  const nowIso = store.timestamp();
  const conditions = conditionsOf(node).map((c) => ({ ...c }));
  for (const v of values) {
    const i = conditions.findIndex((c) => c.type === v.type);
    const old = i >= 0 ? conditions[i] : undefined;
    const transition = !old || old.status !== v.status || opts.freshTransition ? nowIso : old.lastTransitionTime;
    const next = {
      ...(old ?? {}),
      ...v,
      lastTransitionTime: transition,
      ...(old?.lastHeartbeatTime !== undefined || !old ? { lastHeartbeatTime: nowIso } : {}),
    };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
  }
  store.update(type, undefined, name, { ...node, status: { ...(node.status ?? {}), conditions } }, { subresource: 'status', manager: opts.manager });
}

/** The node's status.nodeInfo.bootID, as the kubelet reports it after a boot. */
export function setBootId(store: KubeStore, name: string, bootID: string): void {
  const type = kubeTypes(store).node;
  const node = store.get(type, undefined, name);
  const status = (node.status ?? {}) as Json;
  store.update(
    type,
    undefined,
    name,
    { ...node, status: { ...status, nodeInfo: { ...((status.nodeInfo as Json | undefined) ?? {}), bootID } } },
    { subresource: 'status', ...KUBELET },
  );
}

const podConditionsReady = (status: Json, ready: boolean, nowIso: string, names: string[]): Json[] =>
  ((status.conditions as Condition[] | undefined) ?? []).map((c) => {
    if (c.type !== 'Ready' && c.type !== 'ContainersReady' && c.type !== 'PodReadyToStartContainers') return c;
    if (ready) return { type: c.type, status: 'True', lastProbeTime: null, lastTransitionTime: nowIso };
    const why = c.type === 'PodReadyToStartContainers' ? {} : { reason: 'ContainersNotReady', message: `containers with unready status: [${names.join(' ')}]` };
    return { type: c.type, status: 'False', lastProbeTime: null, lastTransitionTime: nowIso, ...why };
  });

/** The running pods bound to the node. */
const runningPodsOn = (store: KubeStore, node: string): readonly KubeObject[] =>
  store
    .scanWhere(kubeTypes(store).pod, ['spec', 'nodeName'], node)
    .filter((p) => isLivePod(p) && !p.metadata.deletionTimestamp && (p.status as { phase?: string } | undefined)?.phase === 'Running');

/** The node shuts down: its running pods' containers stop (not Ready). Returns the UIDs of the pods that were Ready. */
export function stopPodsOn(store: KubeStore, node: string): string[] {
  const nowIso = store.timestamp();
  const stopped: string[] = [];
  for (const p of runningPodsOn(store, node)) {
    if (!((p.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')) continue;
    const status = (p.status ?? {}) as Json;
    const containers: Json[] = ((status.containerStatuses as Json[] | undefined) ?? []).map((c) => ({ ...c, ready: false, started: false }));
    const names = containers.map((c) => String(c.name));
    const next = { ...status, conditions: podConditionsReady(status, false, nowIso, names), containerStatuses: containers };
    store.update(kubeTypes(store).pod, p.metadata.namespace, p.metadata.name as string, { ...p, status: next }, { subresource: 'status', ...KUBELET });
    stopped.push(p.metadata.uid as string);
  }
  return stopped;
}

/** The node has booted: the pods stopped by its shutdown (`uids`) that are still bound there run again, each container restarted once. */
export function restartPodsOn(store: KubeStore, node: string, uids: ReadonlySet<string>, shutdownIso: string): void {
  const nowIso = store.timestamp();
  for (const p of runningPodsOn(store, node)) {
    if (!uids.has(p.metadata.uid as string)) continue;
    const status = (p.status ?? {}) as Json;
    const containers = ((status.containerStatuses as Json[] | undefined) ?? []).map((c) => {
      const startedAt = (c.state as { running?: { startedAt?: string } } | undefined)?.running?.startedAt;
      const terminated = { exitCode: 255, reason: 'Unknown', ...(startedAt ? { startedAt } : {}), finishedAt: shutdownIso };
      return {
        ...c,
        ready: true,
        started: true,
        restartCount: Number(c.restartCount ?? 0) + 1,
        lastState: { terminated },
        state: { running: { startedAt: nowIso } },
      };
    });
    const next = { ...status, conditions: podConditionsReady(status, true, nowIso, []), containerStatuses: containers };
    store.update(kubeTypes(store).pod, p.metadata.namespace, p.metadata.name as string, { ...p, status: next }, { subresource: 'status', ...KUBELET });
  }
}
