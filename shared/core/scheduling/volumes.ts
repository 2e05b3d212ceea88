/** Volume topology (reference §2.6): zones from bound PVs and WaitForFirstConsumer StorageClasses; invalid PVCs make a pod ignored. */
import type { NodeSelectorTerm, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../model/kube';
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

/** OR-ed terms → one requirement set: a single term as is; several single-key In terms → their union. */
function termsToRequirements(terms: NodeSelectorTerm[] | undefined): Requirements {
  if (!terms || terms.length === 0) return new Requirements();
  if (terms.length === 1) return Requirements.fromNodeSelector(terms[0].matchExpressions);
  const union = new Map<string, Set<string>>();
  for (const t of terms) {
    for (const e of t.matchExpressions) {
      if (e.operator !== 'In') return Requirements.fromNodeSelector(terms[0].matchExpressions);
      const s = union.get(e.key) ?? new Set<string>();
      for (const v of e.values ?? []) s.add(v);
      union.set(e.key, s);
    }
  }
  return new Requirements([...union].map(([k, v]) => Requirement.in(k, v)));
}

function classTopology(sc: StorageClass | undefined): Requirements | string {
  if (!sc) return 'no StorageClass for unbound volume';
  if (sc.volumeBindingMode === 'Immediate') return `unbound PersistentVolumeClaim with Immediate binding (StorageClass ${sc.name})`;
  return termsToRequirements(sc.allowedTopologies);
}

/** The pod's volume requirements, or a string saying why the pod must be ignored. */
export function volumeRequirements(pod: Pod, idx: VolumeIndex): Requirements | string {
  const out = new Requirements();
  for (const vc of pod.volumeClaims) {
    let r: Requirements | string;
    if (vc.ephemeral) {
      const sc = vc.ephemeral.storageClassName ? idx.classes.get(vc.ephemeral.storageClassName) : idx.defaultClass;
      r = classTopology(sc);
    } else {
      const pvc = idx.pvcs.get(`${pod.namespace}/${vc.claimName}`);
      if (!pvc) return `PersistentVolumeClaim ${pod.namespace}/${vc.claimName} not found`;
      if (pvc.deleting) return `PersistentVolumeClaim ${pod.namespace}/${vc.claimName} is being deleted`;
      if (pvc.phase === 'Lost') return `PersistentVolumeClaim ${pod.namespace}/${vc.claimName} is Lost`;
      if (pvc.volumeName) {
        const pv = idx.pvs.get(pvc.volumeName);
        r = pv ? termsToRequirements(pv.nodeAffinity) : new Requirements();
      } else {
        const sc = pvc.storageClassName !== undefined && pvc.storageClassName !== '' ? idx.classes.get(pvc.storageClassName) : idx.defaultClass;
        r = classTopology(sc);
      }
    }
    if (typeof r === 'string') return r;
    for (const x of r.values()) out.addInPlace(x);
  }
  return out;
}
