/** Watches the simulated cluster for the run's figures: pod pending times, readiness per Deployment, PDB and do-not-disrupt violations. */
import { currentPdbFigures } from '../kube/disruption';
import type { FakeKubeApi } from '../kube/server';
import type { KubeObject } from '../kube/types';
import type { VirtualClock } from '../clock';
import { isDaemonSetPod, kubeTypes, podNodeName } from '../cluster/kube-objects';
import { deletedByDeploymentController } from '../cluster/deployments';

const podReady = (p: KubeObject): boolean =>
  Boolean(podNodeName(p)) &&
  ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

export class ClusterObserver {
  readonly pendingSince = new Map<string, number>();
  readonly pendingDurations: number[] = [];
  /** Each pod's first binding after being created unbound: when it was first seen pending, when bound, to which node. */
  readonly firstBindings: { pendingSince: number; boundAt: number; node: string }[] = [];
  readonly nodeReadyAt = new Map<string, number>();
  readonly minReady = new Map<string, number>();
  private readonly fullyReady = new Set<string>();
  private readonly seenPods = new Set<string>();
  /** Each stored pod of a Deployment (by namespace/name): its Deployment (`namespace/name`) and whether it is Ready. */
  private readonly deploymentPods = new Map<string, { deployment: string; ready: boolean }>();
  /** Ready pods per Deployment, kept from the pod writes (a count of the stored pods, without reading them all). */
  private readonly readyPods = new Map<string, number>();
  violations = { pdb: 0, doNotDisrupt: 0, podsLost: 0 };

  constructor(
    private readonly api: FakeKubeApi,
    private readonly clock: VirtualClock,
  ) {}

  start(): () => void {
    const types = kubeTypes(this.api.store);
    for (const p of this.api.store.scan(types.pod)) this.track(p, true);
    return this.api.onChange((e) => {
      const t = this.clock.elapsedSeconds();
      const o = e.object;
      if (e.resource.resource === 'nodes') {
        const ready = ((o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        );
        if (ready && !this.nodeReadyAt.has(o.metadata.name ?? '')) this.nodeReadyAt.set(o.metadata.name ?? '', t);
        return;
      }
      if (e.resource.resource !== 'pods') return;
      this.track(o, e.type !== 'DELETED');
      if (isDaemonSetPod(o)) return;
      const key = `${o.metadata.namespace}/${o.metadata.name}/${o.metadata.uid}`;
      if (e.type === 'ADDED' && !podNodeName(o)) {
        this.pendingSince.set(key, t);
        this.seenPods.add(key);
      } else if (e.type === 'ADDED') {
        this.seenPods.add(key);
      }
      if (podNodeName(o) && this.pendingSince.has(key)) {
        this.pendingDurations.push(t - (this.pendingSince.get(key) ?? t));
        this.firstBindings.push({ pendingSince: this.pendingSince.get(key) ?? t, boundAt: t, node: podNodeName(o) ?? '' });
        this.pendingSince.delete(key);
      }
      if (e.type === 'DELETED') {
        this.pendingSince.delete(key);
        const node = podNodeName(o);
        // Asked of every deleted pod: the answer is given once.
        const onPurpose = this.removedByController(o, types);
        if (node && this.api.store.peek(types.node, undefined, node) && !onPurpose) this.countDisruption(o);
      }
      this.updateReadiness(o.metadata.namespace ?? 'default', o.metadata.labels?.['nodewright.sim/deployment'], types);
    });
  }

  /** Pods the deployment controller removes on purpose (scale down, older template, Deployment deleted). */
  private removedByController(pod: KubeObject, types: ReturnType<typeof kubeTypes>): boolean {
    if (deletedByDeploymentController(this.api.store, pod)) return true;
    const name = pod.metadata.labels?.['nodewright.sim/deployment'];
    if (!name) return false;
    return !this.api.store.peek(types.deployment, pod.metadata.namespace, name);
  }

  private countDisruption(pod: KubeObject): void {
    if (pod.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true') this.violations.doNotDisrupt++;
    const ns = pod.metadata.namespace ?? 'default';
    let pdbType;
    try {
      pdbType = this.api.store.typeOf('policy/v1', 'PodDisruptionBudget');
    } catch {
      return;
    }
    for (const pdb of this.api.store.scan(pdbType, ns, { raw: true })) {
      const sel = (pdb.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector?.matchLabels ?? {};
      if (!Object.entries(sel).every(([k, v]) => pod.metadata.labels?.[k] === v)) continue;
      const f = currentPdbFigures(pdb, this.api.store);
      if (f.currentHealthy < f.desiredHealthy) this.violations.pdb++;
    }
  }

  /** Counts a pod write into the ready pods of its Deployment (`stored`: false when the pod is gone). */
  private track(pod: KubeObject, stored: boolean): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const before = this.deploymentPods.get(key);
    if (before?.ready) this.readyPods.set(before.deployment, (this.readyPods.get(before.deployment) ?? 0) - 1);
    this.deploymentPods.delete(key);
    const deployment = pod.metadata.labels?.['nodewright.sim/deployment'];
    if (!stored || !deployment) return;
    const entry = { deployment: `${pod.metadata.namespace}/${deployment}`, ready: podReady(pod) };
    this.deploymentPods.set(key, entry);
    if (entry.ready) this.readyPods.set(entry.deployment, (this.readyPods.get(entry.deployment) ?? 0) + 1);
  }

  private updateReadiness(ns: string, deployment: string | undefined, types: ReturnType<typeof kubeTypes>): void {
    if (!deployment) return;
    const d = this.api.store.peek(types.deployment, ns, deployment);
    const key = `${ns}/${deployment}`;
    const desired = (d?.spec as { replicas?: number } | undefined)?.replicas ?? 0;
    const ready = this.readyPods.get(key) ?? 0;
    if (!this.fullyReady.has(key)) {
      if (desired > 0 && ready >= desired) {
        this.fullyReady.add(key);
        this.minReady.set(key, ready);
      }
      return;
    }
    this.minReady.set(key, Math.min(this.minReady.get(key) ?? ready, ready));
  }

  totalPods(): number {
    return this.seenPods.size;
  }

  /** Pending durations including pods still pending at the end. */
  allPendingDurations(): number[] {
    const t = this.clock.elapsedSeconds();
    return [...this.pendingDurations, ...[...this.pendingSince.values()].map((since) => t - since)];
  }
}
