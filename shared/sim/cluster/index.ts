/** The kube-side controllers of the simulated cluster, run on virtual time whenever the store changes. */
import type { VirtualClock } from '../clock';
import type { Ec2World } from '../aws/ec2-world';
import type { KubeStore } from '../kube/store';
import { startGarbageCollector } from './garbage-collector';
import { newVolumeStats, startAttachDetach, type VolumeStats } from './attach-detach';
import { startKubelet, type KubeletEvents } from './kubelet';
import { NodeHealth } from './node-health';
import { runScheduler } from './scheduler';
import { reconcileDeployments } from './deployments';
import { collectOrphanPods, reconcileDaemonSets, type WorkloadEvents } from './workloads';
import { kubeTypes, podNodeName } from './kube-objects';

export { runScheduler } from './scheduler';
export { kubeletFromUserData, nodeObjectFor } from './kubelet';
export { reconcileDeployments } from './deployments';
export { reconcileDaemonSets, collectOrphanPods } from './workloads';

export interface ClusterControllerOptions extends KubeletEvents, WorkloadEvents {
  startupSeconds: number;
  /** What the attach/detach controller counts (default: a count nobody reads). */
  volumeStats?: VolumeStats;
  /** Unhealthy nodes and reboots (default: one nobody injects into; reboots still act on the nodes). */
  nodeHealth?: NodeHealth;
}

/**
 * Starts kubelet (with node health: unhealthy nodes, reboots), deployment, DaemonSet, pod-GC, owner-reference garbage collection and scheduler controllers. A pass runs (at the current
 * virtual time, once in-flight work settles) after any store change. Returns a stop function.
 */
export function startClusterControllers(clock: VirtualClock, world: Ec2World, store: KubeStore, opts: ClusterControllerOptions): () => void {
  let pending = false;
  let stopped = false;
  // The pass that tries the pods waiting out their scheduling backoff: one timer, at the earliest one's time.
  let retry: { at: number; cancel: () => void } | undefined;
  // Pod GC looks for orphans only after something could have made one: a node deleted, or a pod written bound to a
  // node that is not there (not a scan of every bound pod's node after every write).
  let orphansPossible = true;
  const types = kubeTypes(store);
  const collectOrphans = () => {
    if (!orphansPossible) return 0;
    orphansPossible = false;
    return collectOrphanPods(store, opts);
  };
  const pass = () => {
    pending = false;
    if (stopped) return;
    for (let round = 0; round < 5; round++) {
      const changes = reconcileDeployments(store) + reconcileDaemonSets(store) + collectOrphans();
      if (changes === 0) break;
    }
    const { retryAt } = runScheduler(store);
    if (retryAt === undefined || (retry && retry.at <= retryAt && retry.at > clock.now())) return;
    retry?.cancel();
    retry = { at: retryAt, cancel: clock.at(retryAt, () => ((retry = undefined), schedule())) };
  };
  const schedule = () => {
    if (pending || stopped) return;
    pending = true;
    clock.after(0, pass);
  };
  const unsubscribeStore = store.onChange((e) => {
    const r = e.resource.resource;
    if (e.resource.group === '' && r === 'nodes' && e.type === 'DELETED') orphansPossible = true;
    if (e.resource.group === '' && r === 'pods' && e.type !== 'DELETED') {
      const node = podNodeName(e.object);
      if (node && !store.peek(types.node, undefined, node)) orphansPossible = true;
    }
    if (r === 'pods' || r === 'nodes' || r === 'deployments' || r === 'daemonsets' || r === 'replicasets') schedule();
  });
  const stopKubelet = startKubelet(world, store, opts);
  const stopNodeHealth = (opts.nodeHealth ?? new NodeHealth(clock, world, store)).start();
  const stopGarbageCollector = startGarbageCollector(clock, store);
  const stopAttachDetach = startAttachDetach(clock, world, store, opts.volumeStats ?? newVolumeStats());
  schedule();
  return () => {
    stopped = true;
    retry?.cancel();
    unsubscribeStore();
    stopKubelet();
    stopNodeHealth();
    stopGarbageCollector();
    stopAttachDetach();
  };
}
