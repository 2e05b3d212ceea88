/**
 * kube-scheduler's VolumeBinding / VolumeZone filters, for bound claims: a pod whose PersistentVolumeClaim is bound
 * to a volume with node affinity (a zonal EBS volume) fits only nodes that volume's terms allow. The simulator adds
 * the volume's terms to the pod's required node affinity (each pod term ANDed with each volume term).
 */
import type { NodeSelectorTerm, Pod } from '../../core/model/kube';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { podModel } from './bound-pods';
import { boundVolume } from './kube-objects';

const models = new WeakMap<KubeObject, Pod>();

function volumeTerms(store: KubeStore, pod: Pod): NodeSelectorTerm[][] {
  return pod.volumeClaims.flatMap((c) => {
    const terms = boundVolume(store, pod.namespace, c.claimName)?.nodeAffinity;
    return terms?.length ? [terms] : [];
  });
}

/** The pod as the scheduler filters it: its own model, with its bound volumes' node affinity when it has any. */
export function schedulingModel(store: KubeStore, obj: KubeObject): Pod {
  const pod = podModel(obj);
  if (pod.volumeClaims.length === 0) return pod;
  let m = models.get(obj);
  if (m) return m;
  let required: NodeSelectorTerm[] | undefined = pod.affinity?.nodeAffinity?.required;
  for (const terms of volumeTerms(store, pod))
    required = required?.length ? required.flatMap((p) => terms.map((t) => ({ matchExpressions: [...p.matchExpressions, ...t.matchExpressions] }))) : terms;
  m =
    required === pod.affinity?.nodeAffinity?.required
      ? pod
      : { ...pod, affinity: { ...pod.affinity, nodeAffinity: { ...pod.affinity?.nodeAffinity, required } } };
  models.set(obj, m);
  return m;
}
