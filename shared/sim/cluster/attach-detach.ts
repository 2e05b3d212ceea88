/**
 * kube-controller-manager's attach/detach controller and the EBS CSI driver, simulated, so that a terminated node's
 * volumes cost what they cost in the world:
 * - a pod bound to a node whose PersistentVolumeClaims name CSI volumes starts (Running, Ready) only once each volume
 *   is attached there (ATTACH_SECONDS); until then it is ContainerCreating (phase Pending, not Ready);
 * - a volume no pod on its node uses any more is detached DETACH_SECONDS later (kubelet unmounts, the driver detaches);
 * - a volume is attached to one node at a time (ReadWriteOnce EBS): a pod elsewhere waits (Multi-Attach error);
 * - a volume attaches only in its zone (its PersistentVolume's node affinity): a pod elsewhere never starts;
 * - a volume whose node's instance is gone before it was detached stays attached in Kubernetes' view until the
 *   controller force-detaches it, FORCE_DETACH_SECONDS later (maxWaitForUnmountDuration): the pod that moved waits.
 * The node's `status.volumesAttached` says what is attached, as the real controller keeps it: nodewright's termination
 * waits on it. Stats count what happened (the run's `volumes`).
 */
import { attachedVolumeName } from '../../core/lifecycle/volume-detach';
import type { NodeSelectorTerm } from '../../core/model/kube';
import { Requirements } from '../../core/scheduling/requirements';
import type { VirtualClock } from '../clock';
import type { Ec2World } from '../aws/ec2-world';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { boundVolume, hostIpOf, isLivePod, kubeTypes, podNodeName } from './kube-objects';
import { runningStatus } from './pod-content';

const ATTACH_SECONDS = 7;
const DETACH_SECONDS = 10;
const FORCE_DETACH_SECONDS = 360;

export interface VolumeStats {
  attaches: number;
  detaches: number;
  /** Volumes detached only by the controller's 6-minute force detach: their node went before they were detached. */
  forceDetaches: number;
  /** Pods that found their volume still attached to another node (Multi-Attach), and the longest wait from bind to start. */
  multiAttachWaits: number;
  maxStartWaitSeconds: number;
}

export const newVolumeStats = (): VolumeStats => ({ attaches: 0, detaches: 0, forceDetaches: 0, multiAttachWaits: 0, maxStartWaitSeconds: 0 });

/** An attachable volume a pod needs: the name the controller lists it under, and its zone (node affinity), if any. */
export interface PodVolume {
  name: string;
  terms?: NodeSelectorTerm[];
}

/** The attachable volumes a pod needs (its PVCs' CSI volumes). */
export function podVolumes(store: KubeStore, pod: KubeObject): PodVolume[] {
  const claims = ((pod.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] } | undefined)?.volumes ?? []).flatMap((v) =>
    v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : [],
  );
  return claims.flatMap((claim) => {
    const pv = boundVolume(store, pod.metadata.namespace as string, claim);
    const name = pv ? attachedVolumeName(pv) : undefined;
    return name ? [{ name, ...(pv?.nodeAffinity?.length ? { terms: pv.nodeAffinity } : {}) }] : [];
  });
}

const hasClaims = (pod: KubeObject) =>
  ((pod.spec as { volumes?: { persistentVolumeClaim?: unknown }[] } | undefined)?.volumes ?? []).some((v) => v.persistentVolumeClaim !== undefined);
const isRunning = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase === 'Running';

type Gated = { pod: KubeObject; node: string; volumes: string[] };

class AttachDetachController {
  private readonly types: ReturnType<typeof kubeTypes>;
  private readonly attachedTo = new Map<string, string>();
  private readonly operations = new Map<string, { kind: 'attach' | 'detach' | 'force'; cancel: () => void }>();
  private readonly waitingSince = new Map<string, number>();
  private readonly multiAttached = new Set<string>();
  /** Each volume's node affinity (its zone), as last read: EBS attaches only in the volume's zone. */
  private readonly zoneTerms = new Map<string, NodeSelectorTerm[]>();
  /** Only pods with PersistentVolumeClaim volumes are followed: a cluster without them costs one check per pod write. */
  private readonly volumePods = new Map<string, KubeObject>();
  private pending = false;
  private stopped = false;

  constructor(
    private readonly clock: VirtualClock,
    private readonly ec2: Ec2World,
    private readonly store: KubeStore,
    private readonly stats: VolumeStats,
  ) {
    this.types = kubeTypes(store);
    for (const pod of store.scan(this.types.pod)) if (hasClaims(pod)) this.volumePods.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod);
  }

  onChange(e: { type: string; resource: { group: string; resource: string }; object: KubeObject }): void {
    if (e.resource.group !== '') return;
    const r = e.resource.resource;
    if (r === 'pods') {
      const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
      const has = e.type !== 'DELETED' && hasClaims(e.object);
      if (has) this.volumePods.set(key, e.object);
      if (has || this.volumePods.delete(key)) this.schedule();
    } else if (r === 'nodes' ? this.attachedTo.size > 0 || this.operations.size > 0 : r === 'persistentvolumeclaims' && this.volumePods.size > 0)
      this.schedule();
  }

  stop(): void {
    this.stopped = true;
    for (const op of this.operations.values()) op.cancel();
  }

  schedule(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    this.clock.after(0, () => this.pass());
  }

  private pass(): void {
    this.pending = false;
    if (this.stopped) return;
    // Which nodes' pods use each volume (a pod being deleted still has it mounted), and the pods waiting for theirs.
    const users = new Map<string, Set<string>>();
    const gated: Gated[] = [];
    for (const pod of this.volumePods.values()) {
      const node = podNodeName(pod);
      if (!node || !isLivePod(pod)) continue;
      const needed = podVolumes(this.store, pod);
      for (const v of needed) if (v.terms) this.zoneTerms.set(v.name, v.terms);
      const volumes = needed.map((v) => v.name);
      for (const v of volumes) users.set(v, (users.get(v) ?? new Set()).add(node));
      if (volumes.length && !isRunning(pod)) gated.push({ pod, node, volumes });
    }
    this.detachUnused(users);
    this.attachWanted(users);
    this.startPods(gated);
  }

  private detachUnused(users: Map<string, Set<string>>): void {
    for (const [vol, node] of this.attachedTo) {
      const op = this.operations.get(vol);
      if (users.get(vol)?.has(node)) {
        if (op?.kind === 'detach') {
          op.cancel();
          this.operations.delete(vol);
        }
        continue;
      }
      if (op) continue;
      if (!this.instanceUp(node)) {
        this.forceLater(vol, node);
        continue;
      }
      this.operate(vol, 'detach', DETACH_SECONDS, () => {
        if (!this.instanceUp(node)) return this.forceLater(vol, node);
        this.attachedTo.delete(vol);
        this.stats.detaches++;
        this.writeNodeStatus(node);
      });
    }
  }

  private attachWanted(users: Map<string, Set<string>>): void {
    for (const [vol, nodes] of users) {
      // Multi-Attach: attached elsewhere until that node lets it go.
      if (this.attachedTo.has(vol) || this.operations.get(vol)?.kind === 'attach') continue;
      // A node outside the volume's zone never gets it: its pod stays ContainerCreating.
      const node = [...nodes].sort().find((n) => this.attachableTo(vol, n));
      if (!node) continue;
      this.operate(vol, 'attach', ATTACH_SECONDS, () => {
        if (!this.instanceUp(node)) return;
        this.attachedTo.set(vol, node);
        this.stats.attaches++;
        this.writeNodeStatus(node);
      });
    }
  }

  private attachableTo(vol: string, node: string): boolean {
    const terms = this.zoneTerms.get(vol);
    if (!terms) return true;
    const labels = (this.store.peek(this.types.node, undefined, node)?.metadata.labels ?? {}) as Record<string, string>;
    return terms.some((t) => Requirements.fromNodeSelector(t.matchExpressions).matchesLabels(labels));
  }

  /** The instance went before the volume was detached: the controller lets it go only after maxWaitForUnmountDuration. */
  private forceLater(vol: string, node: string): void {
    this.operate(vol, 'force', FORCE_DETACH_SECONDS, () => {
      this.attachedTo.delete(vol);
      this.stats.forceDetaches++;
      this.writeNodeStatus(node);
    });
  }

  private startPods(gated: Gated[]): void {
    const now = this.clock.now();
    for (const { pod, node, volumes } of gated) {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}/${node}`;
      if (!this.waitingSince.has(key)) this.waitingSince.set(key, now);
      if (volumes.some((v) => this.attachedTo.has(v) && this.attachedTo.get(v) !== node) && !this.multiAttached.has(key)) {
        this.multiAttached.add(key);
        this.stats.multiAttachWaits++;
      }
      if (!volumes.every((v) => this.attachedTo.get(v) === node)) continue;
      this.run(pod, node);
      this.stats.maxStartWaitSeconds = Math.max(this.stats.maxStartWaitSeconds, (now - this.waitingSince.get(key)!) / 1000);
      this.waitingSince.delete(key);
    }
  }

  /** The kubelet starts the pod: Running and Ready. */
  private run(pod: KubeObject, node: string): void {
    const ns = pod.metadata.namespace as string;
    const name = pod.metadata.name as string;
    const current = this.store.peek(this.types.pod, ns, name) as KubeObject | undefined;
    if (!current) return;
    const hostIp = hostIpOf(this.store.peek(this.types.node, undefined, node));
    this.store.update(
      this.types.pod,
      ns,
      name,
      { ...current, status: runningStatus(current, hostIp, this.store.timestamp(), (current.status ?? {}) as never) },
      { subresource: 'status', manager: 'kubelet' },
    );
  }

  private writeNodeStatus(node: string): void {
    const obj = this.store.peek(this.types.node, undefined, node);
    if (!obj) return;
    const volumes = [...this.attachedTo].filter(([, n]) => n === node).map(([v]) => ({ name: v, devicePath: '' }));
    this.store.update(this.types.node, undefined, node, { ...(obj as KubeObject), status: { ...(obj.status ?? {}), volumesAttached: volumes } } as KubeObject, {
      subresource: 'status',
      manager: 'kube-controller-manager',
    });
  }

  private instanceUp(node: string): boolean {
    const obj = this.store.peek(this.types.node, undefined, node);
    const id = String((obj?.spec as { providerID?: string } | undefined)?.providerID ?? '')
      .split('/')
      .pop();
    const state = id ? this.ec2.instances.get(id)?.state : undefined;
    return obj !== undefined && (state === undefined || state === 'running' || state === 'pending');
  }

  private operate(vol: string, kind: 'attach' | 'detach' | 'force', seconds: number, done: () => void): void {
    this.operations.get(vol)?.cancel();
    const cancel = this.clock.after(seconds * 1000, () => {
      this.operations.delete(vol);
      done();
      this.schedule();
    });
    this.operations.set(vol, { kind, cancel });
  }
}

/** Starts the controller; returns a stop function. */
export function startAttachDetach(clock: VirtualClock, ec2: Ec2World, store: KubeStore, stats: VolumeStats): () => void {
  const controller = new AttachDetachController(clock, ec2, store, stats);
  const unsubscribe = store.onChange((e) => controller.onChange(e as never));
  controller.schedule();
  return () => {
    unsubscribe();
    controller.stop();
  };
}
