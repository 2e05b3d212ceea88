/**
 * Volume topology (docs/karpenter-reference.md §2.6, Karpenter's VolumeTopology): each volume gives alternatives — one per
 * node-affinity term of its bound PV or per `allowedTopologies` term of its WaitForFirstConsumer
 * StorageClass (terms are OR-ed; keys within a term AND-ed) — and the pod's alternatives are their cross
 * product. An invalid claim makes the pod ignored (not provisioned for) while other pods still schedule.
 */
import type { NodeSelectorTerm, PersistentVolume, PersistentVolumeClaim, Pod, PodVolumeClaim, StorageClass } from '../model/kube';
import { MIGRATED_DRIVERS } from '../instance-types/volume-limits';
import { Label } from '../model/labels';
import { Requirement, Requirements } from './requirements';

export interface VolumeIndex {
  pvcs: Map<string, PersistentVolumeClaim>;
  pvs: Map<string, PersistentVolume>;
  classes: Map<string, StorageClass>;
  defaultClass?: StorageClass;
}

export function volumeIndex(pvs: PersistentVolume[] = [], pvcs: PersistentVolumeClaim[] = [], classes: StorageClass[] = []): VolumeIndex {
  const defaults = classes.filter((c) => c.isDefault).sort((a, b) => b.creationTimestamp - a.creationTimestamp);
  return {
    pvcs: new Map(pvcs.map((c) => [`${c.namespace}/${c.name}`, c])),
    pvs: new Map(pvs.map((v) => [v.name, v])),
    classes: new Map(classes.map((c) => [c.name, c])),
    defaultClass: defaults[0],
  };
}

/** A PV's terms as alternatives; a local/hostPath volume's hostname expressions name the old node and are dropped. */
function pvAlternatives(pv: PersistentVolume): Requirements[] {
  const out: Requirements[] = [];
  for (const term of pv.nodeAffinity ?? []) {
    const exprs = pv.local ? term.matchExpressions.filter((e) => e.key !== Label.hostname) : term.matchExpressions;
    if (exprs.length > 0) out.push(Requirements.fromNodeSelector(exprs));
    else if (term.matchExpressions.length > 0) out.push(new Requirements()); // only a hostname: any node will do
  }
  return out;
}

function classAlternatives(terms: NodeSelectorTerm[] | undefined): Requirements[] {
  const out: Requirements[] = [];
  for (const t of terms ?? []) {
    if (t.matchExpressions.length > 0) out.push(new Requirements(t.matchExpressions.map((e) => Requirement.in(e.key, e.values ?? []))));
  }
  return out;
}

function classTopology(name: string | undefined, idx: VolumeIndex, what: string): Requirements[] | string {
  if (name === '') return `${what} is unbound and does not name a StorageClass`;
  const sc = name !== undefined ? idx.classes.get(name) : idx.defaultClass;
  if (!sc) return name !== undefined ? `StorageClass ${name} of ${what} not found` : `no default StorageClass for unbound ${what}`;
  if (sc.volumeBindingMode === 'Immediate') return `${what} is unbound and its StorageClass ${sc.name} binds Immediately (the volume must be bound first)`;
  return classAlternatives(sc.allowedTopologies);
}

/** One volume's alternatives (empty: no constraint), or why the pod must be left alone. */
function claimAlternatives(pod: Pod, vc: PodVolumeClaim, idx: VolumeIndex): Requirements[] | string {
  const what = `PersistentVolumeClaim ${pod.namespace}/${vc.claimName}`;
  const pvc = idx.pvcs.get(`${pod.namespace}/${vc.claimName}`);
  if (!pvc) {
    // A generic ephemeral volume whose claim the ephemeral-volume controller has not created yet (or that plan
    // manifests leave out): the claim template's StorageClass decides.
    if (vc.ephemeral) return classTopology(vc.ephemeral.storageClassName, idx, what);
    return `${what} not found`;
  }
  if (pvc.deleting) return `${what} is being deleted`;
  if (pvc.phase === 'Lost') return `${what} is bound to a non-existent PersistentVolume (Lost)`;
  if (pvc.volumeName) {
    const pv = idx.pvs.get(pvc.volumeName);
    if (!pv) return `PersistentVolume ${pvc.volumeName} of ${what} not found`;
    if (pv.deleting) return `PersistentVolume ${pvc.volumeName} of ${what} is being deleted`;
    if (!pvc.bindCompleted) return `${what} is considered unbound: it lacks the pv.kubernetes.io/bind-completed annotation`;
    return pvAlternatives(pv);
  }
  return classTopology(pvc.storageClassName, idx, what);
}

function sharedKeysIntersect(a: Requirements, b: Requirements): boolean {
  for (const [k, r] of b.byKey) {
    const mine = a.get(k);
    if (mine && !mine.intersects(r)) return false;
  }
  return true;
}

function merge(alternatives: Requirements[], volume: Requirements[]): Requirements[] {
  if (alternatives.length === 0) return volume;
  const all: Requirements[] = [];
  const compatible: Requirements[] = [];
  for (const a of alternatives) {
    for (const v of volume) {
      const m = a.intersect(v);
      all.push(m);
      if (sharedKeysIntersect(a, v)) compatible.push(m);
    }
  }
  return compatible.length > 0 ? compatible : all;
}

/**
 * The pod's volume topology alternatives (any one must hold on the node; [] = unconstrained), or a string
 * saying why the pod must be ignored.
 */
export function volumeRequirements(pod: Pod, idx: VolumeIndex): Requirements[] | string {
  let out: Requirements[] = [];
  for (const vc of pod.volumeClaims) {
    const alts = claimAlternatives(pod, vc, idx);
    if (typeof alts === 'string') return alts;
    if (alts.length > 0) out = merge(out, alts);
  }
  return out;
}

/** A volume a pod attaches through a CSI driver (`id` = the claim, so a claim two pods share counts once). */
export interface PodVolume {
  driver: string;
  id: string;
}

/** The CSI volumes a pod attaches, with their drivers (from the bound PV, else the StorageClass provisioner). */
export function podVolumes(pod: Pod, idx: VolumeIndex): PodVolume[] {
  const out: PodVolume[] = [];
  for (const vc of pod.volumeClaims) {
    const pvc = idx.pvcs.get(`${pod.namespace}/${vc.claimName}`);
    let driver: string | undefined;
    if (pvc?.volumeName) driver = idx.pvs.get(pvc.volumeName)?.csiDriver;
    else {
      const name = pvc ? pvc.storageClassName : vc.ephemeral?.storageClassName;
      driver = (name ? idx.classes.get(name) : idx.defaultClass)?.provisioner;
    }
    if (driver) out.push({ driver: MIGRATED_DRIVERS[driver] ?? driver, id: `${pod.namespace}/${vc.claimName}` });
  }
  return out;
}

/** Volumes per driver on a node or claim; `wouldExceed` checks a pod against per-driver limits. */
export class VolumeUsage {
  private readonly byDriver = new Map<string, Set<string>>();

  add(volumes: readonly PodVolume[]): void {
    for (const v of volumes) {
      let s = this.byDriver.get(v.driver);
      if (!s) this.byDriver.set(v.driver, (s = new Set()));
      s.add(v.id);
    }
  }

  /** The driver whose limit the pod's volumes would exceed, or undefined. */
  wouldExceed(volumes: readonly PodVolume[], limits: Readonly<Record<string, number>> | undefined): string | undefined {
    if (!limits || volumes.length === 0) return undefined;
    for (const v of volumes) {
      const limit = limits[v.driver];
      if (limit === undefined) continue;
      const have = this.byDriver.get(v.driver);
      const added = new Set<string>();
      for (const w of volumes) if (w.driver === v.driver && !have?.has(w.id)) added.add(w.id);
      if ((have?.size ?? 0) + added.size > limit) return v.driver;
    }
    return undefined;
  }
}
