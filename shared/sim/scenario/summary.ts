/**
 * The end-of-run sections of a scenario's result: the final state (nodes, pending pods, orphan instances,
 * leaked NodeClaims), the injected faults summarized, node health, and the pods' pending times and launch latencies.
 */
import { isDaemonSetPod, kubeTypes, listAll, podNodeName } from '../cluster/kube-objects';
import { rebootCount } from '../aws/ec2-reboot';
import { launchLatencies } from './latency';
import type { ClusterObserver } from './observe';
import { percentile, round, type FunctionSummary, type SimulationResult } from './result';
import type { SimWorld } from './world';

export function finalState(world: SimWorld): SimulationResult['final'] {
  const types = kubeTypes(world.api.store);
  const claims = listAll(world.api.store, types.nodeClaim);
  const claimedInstances = new Set(
    claims.map((c) =>
      String((c.status as { providerID?: string } | undefined)?.providerID ?? '')
        .split('/')
        .pop(),
    ),
  );
  const live = [...world.ec2.instances.values()].filter((i) => i.state === 'pending' || i.state === 'running');
  const instanceState = new Map([...world.ec2.instances.values()].map((i) => [i.id, i.state]));
  const leaked = claims.filter((c) => {
    const id =
      String((c.status as { providerID?: string } | undefined)?.providerID ?? '')
        .split('/')
        .pop() ?? '';
    const state = id ? instanceState.get(id) : undefined;
    return !id ? false : state === undefined || state === 'terminated';
  }).length;
  const overlays = nodeOverlayStates(world);
  const buffers = capacityBufferStates(world);
  return {
    ...(overlays ? { nodeOverlays: overlays } : {}),
    ...(buffers ? { capacityBuffers: buffers } : {}),
    nodes: listAll(world.api.store, types.node).length,
    pendingPods: listAll(world.api.store, types.pod).filter((p) => !podNodeName(p) && !isDaemonSetPod(p) && !p.metadata.deletionTimestamp).length,
    orphanInstances: live.filter((i) => !claimedInstances.has(i.id)).length,
    leakedNodeClaims: leaked,
  };
}

/** Every object of a kind the API server serves; none when it does not serve the kind (its CRD not installed). */
function objectsOf(world: SimWorld, apiVersion: string, kind: string): ReturnType<typeof listAll> {
  try {
    return listAll(world.api.store, world.api.store.typeOf(apiVersion, kind));
  } catch {
    return [];
  }
}

/** Each CapacityBuffer's replicas and Provisioning condition at the end (absent when the run has none). */
function capacityBufferStates(world: SimWorld): NonNullable<SimulationResult['final']['capacityBuffers']> | undefined {
  const buffers = objectsOf(world, 'autoscaling.x-k8s.io/v1beta1', 'CapacityBuffer');
  if (buffers.length === 0) return undefined;
  type Status = { replicas?: number; conditions?: { type: string; status: string; reason: string }[] };
  return Object.fromEntries(
    buffers.map((b) => {
      const st = (b.status ?? {}) as Status;
      const p = st.conditions?.find((c) => c.type === 'Provisioning');
      return [`${b.metadata.namespace}/${b.metadata.name}`, { replicas: st.replicas ?? 0, provisioning: p ? `${p.status}/${p.reason}` : 'Unknown' }];
    }),
  );
}

/** Each NodeOverlay's Ready condition at the end (absent when the run has none). */
function nodeOverlayStates(world: SimWorld): NonNullable<SimulationResult['final']['nodeOverlays']> | undefined {
  const overlays = objectsOf(world, 'karpenter.sh/v1alpha1', 'NodeOverlay');
  if (overlays.length === 0) return undefined;
  type Condition = { type: string; status: string; reason: string; message: string };
  return Object.fromEntries(
    overlays.map((o) => {
      const conditions = ((o.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
      const v = conditions.find((c) => c.type === 'ValidationSucceeded');
      return [
        o.metadata.name,
        {
          ready: conditions.find((c) => c.type === 'Ready')?.status ?? 'Unknown',
          ...(v && v.status !== 'True' ? { reason: v.reason, message: v.message } : {}),
        },
      ];
    }),
  );
}

/** Node conditions broken by `unhealthy` events and instances rebooted; absent when the run had neither. */
export function nodeHealthSummary(world: SimWorld): Pick<SimulationResult, 'nodeHealth'> {
  const injected = world.nodeHealth.injected;
  const reboots = rebootCount(world.ec2);
  return injected || reboots ? { nodeHealth: { injected, reboots } } : {};
}

export function summarizeFaults(injected: { t: number; target: string; kind: string }[]): NonNullable<SimulationResult['faults']> {
  const by = new Map<string, { target: string; kind: string; count: number; first: number; last: number }>();
  for (const f of injected) {
    const k = `${f.target}|${f.kind}`;
    const e = by.get(k) ?? { target: f.target, kind: f.kind, count: 0, first: f.t, last: f.t };
    e.count++;
    e.last = f.t;
    by.set(k, e);
  }
  return [...by.values()].sort((a, b) => a.first - b.first || a.target.localeCompare(b.target));
}

/** The launch latencies of the pods first seen pending from each event's time until the next event's (before the first: none). */
function afterEvents(latencies: { since: number; seconds: number }[], eventTimes: readonly number[]): SimulationResult['pods']['launchLatencyAfterEvents'] {
  const times = [...new Set(eventTimes)].sort((a, b) => a - b);
  return times
    .map((at, i) => {
      const next = times[i + 1] ?? Infinity;
      const xs = latencies.filter((l) => l.since >= at && l.since < next).map((l) => l.seconds);
      return { at, pods: xs.length, p50: round(percentile(xs, 50), 1), p99: round(percentile(xs, 99), 1) };
    })
    .filter((w) => w.pods > 0);
}

/** Pending times and launch latencies (p50, p99, max; and per scenario event) and the rollouts' minimum ready pods. */
export function podSummary(world: SimWorld, observer: ClusterObserver, eventTimes: readonly number[] = []): SimulationResult['pods'] {
  const pending = observer.allPendingDurations();
  const latencies = launchLatencies(observer, world.ec2.instances.values(), world.clock.startMs, world.clock.elapsedSeconds());
  const launch = latencies.map((l) => l.seconds);
  return {
    total: observer.totalPods(),
    pendingSecondsP50: round(percentile(pending, 50), 1),
    pendingSecondsP99: round(percentile(pending, 99), 1),
    maxPendingSeconds: round(pending.length ? Math.max(...pending) : 0, 1),
    launchLatencySecondsP50: round(percentile(launch, 50), 1),
    launchLatencySecondsP99: round(percentile(launch, 99), 1),
    maxLaunchLatencySeconds: round(launch.length ? Math.max(...launch) : 0, 1),
    launchLatencyPods: launch.length,
    launchLatencyAfterEvents: afterEvents(latencies, eventTimes),
    minReadyAfterRollout: Object.fromEntries([...observer.minReady].sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** Per function that ran: modelled peak memory and longest duration against its size and timeout, Kubernetes traffic per minute. */
export function functionSummary(world: SimWorld): Record<string, FunctionSummary> {
  const minutes = Math.max(world.clock.elapsedSeconds(), 1) / 60;
  const out: Record<string, FunctionSummary> = {};
  const stats = world.production.meter.functionStats();
  for (const key of [...stats.keys()].sort()) {
    const s = stats.get(key)!;
    const fn = world.production.functions.find((f) => f.key === key);
    const memorySizeMb = fn?.memorySizeMb ?? 0;
    const timeoutSeconds = fn?.timeoutSeconds ?? 0;
    out[key] = {
      invocations: s.invocations,
      memorySizeMb,
      peakMemoryMb: Math.ceil(s.peakMemoryMb),
      memoryRatio: memorySizeMb ? round(s.peakMemoryMb / memorySizeMb, 3) : 0,
      outOfMemory: s.outOfMemory,
      timedOut: s.timedOut,
      timeoutSeconds,
      maxDurationSeconds: round(s.maxDurationMs / 1000, 3),
      durationRatio: timeoutSeconds ? round(s.maxDurationMs / 1000 / timeoutSeconds, 3) : 0,
      computeSeconds: round((world.production.compute.chargedMs.get(key) ?? 0) / 1000, 1),
      kubeRequests: s.kubeRequests,
      kubeRequestsPerMinute: round(s.kubeRequests / minutes, 2),
      kubeBytesReceived: s.kubeBytesReceived,
      kubeBytesSent: s.kubeBytesSent,
      kubeBytesReceivedPerMinute: Math.round(s.kubeBytesReceived / minutes),
      kubeBytesSentPerMinute: Math.round(s.kubeBytesSent / minutes),
    };
  }
  return out;
}
