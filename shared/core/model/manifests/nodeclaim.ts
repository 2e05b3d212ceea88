/** karpenter.sh/v1 NodeClaim ⇄ normalized NodeClaim. */
import { formatDuration, parseDurationOrNever } from '../duration';
import type { NodeClaim, NodeClaimCondition } from '../karpenter';
import type { Taint } from '../kube';
import { Label } from '../labels';
import { formatResourceList } from '../resources';
import { fail, arr, obj, resources, str, stringMap, toEpochMs, type Json, type ManifestContext } from './context';
import { epochMs, toRfc3339 } from '../../time';
import { nodeSelectorRequirement, taint } from './scheduling-fields';
import { DEFAULT_EXPIRE_AFTER } from './nodepool';

function durationField(v: unknown, fallback: number | null, ctx: ManifestContext | undefined, path: string): number | null {
  if (v === undefined || v === null) return fallback;
  try {
    return parseDurationOrNever(v as string | number, fallback);
  } catch {
    return fail(ctx, path, `invalid duration ${JSON.stringify(v)}`);
  }
}

export function nodeClaimFromKube(o: Json, ctx?: ManifestContext): NodeClaim {
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const labels = stringMap(metadata.labels);
  const ref = obj(spec.nodeClassRef);
  const claim: NodeClaim = {
    name: str(metadata.name) ?? '',
    labels,
    annotations: stringMap(metadata.annotations),
    nodePool: labels[Label.nodePool] ?? '',
    spec: {
      taints: arr(spec.taints).map((t, i) => taint(t, ctx, `spec.taints[${i}]`)),
      startupTaints: arr(spec.startupTaints).map((t, i) => taint(t, ctx, `spec.startupTaints[${i}]`)),
      requirements: arr(spec.requirements).map((r, i) => nodeSelectorRequirement(r, ctx, `spec.requirements[${i}]`)),
      resources: { requests: resources(obj(spec.resources).requests, ctx, 'spec.resources.requests') },
      nodeClassRef: { group: str(ref.group) ?? 'karpenter.k8s.aws', kind: str(ref.kind) ?? 'EC2NodeClass', name: str(ref.name) ?? '' },
      expireAfter: durationField(spec.expireAfter, DEFAULT_EXPIRE_AFTER, ctx, 'spec.expireAfter'),
      terminationGracePeriod: durationField(spec.terminationGracePeriod, null, ctx, 'spec.terminationGracePeriod'),
    },
    status: {
      conditions: arr(status.conditions)
        .map(obj)
        .map((c): NodeClaimCondition => {
          const cond: NodeClaimCondition = { type: str(c.type) ?? '', status: (str(c.status) ?? 'Unknown') as NodeClaimCondition['status'] };
          const reason = str(c.reason);
          if (reason) cond.reason = reason;
          const message = str(c.message);
          if (message) cond.message = message;
          const t = toEpochMs(c.lastTransitionTime);
          if (t !== undefined) cond.lastTransitionTime = t;
          return cond;
        }),
    },
    creationTimestamp: toEpochMs(metadata.creationTimestamp) ?? epochMs(0),
    finalizers: arr(metadata.finalizers).map((f) => str(f) ?? ''),
  };
  const uid = str(metadata.uid);
  if (uid) claim.uid = uid;
  const owner = arr(metadata.ownerReferences)
    .map(obj)
    .find((r) => r.kind === 'NodePool');
  const ownerUid = owner ? str(owner.uid) : undefined;
  if (ownerUid) claim.nodePoolUid = ownerUid;
  const deletion = toEpochMs(metadata.deletionTimestamp);
  if (deletion !== undefined) claim.deletionTimestamp = deletion;
  for (const k of ['nodeName', 'providerID', 'imageID'] as const) {
    const v = str(status[k]);
    if (v) claim.status[k] = v;
  }
  if (status.capacity) claim.status.capacity = resources(status.capacity, ctx, 'status.capacity');
  if (status.allocatable) claim.status.allocatable = resources(status.allocatable, ctx, 'status.allocatable');
  const lastPod = toEpochMs(status.lastPodEventTime);
  if (lastPod !== undefined) claim.status.lastPodEventTime = lastPod;
  return claim;
}

const taintToKube = (t: Taint): Json => (t.value !== undefined ? { key: t.key, value: t.value, effect: t.effect } : { key: t.key, effect: t.effect });

/** The inverse of nodeClaimFromKube, for writing NodeClaims to the API (apiVersion karpenter.sh/v1). */
export function nodeClaimToKube(c: NodeClaim): Json {
  const metadata: Json = {
    name: c.name,
    labels: { ...c.labels, ...(c.nodePool ? { [Label.nodePool]: c.nodePool } : {}) },
    annotations: { ...c.annotations },
  };
  if (c.uid) metadata.uid = c.uid;
  if (c.nodePoolUid && c.nodePool) {
    metadata.ownerReferences = [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: c.nodePool, uid: c.nodePoolUid, blockOwnerDeletion: true }];
  }
  if (c.finalizers.length) metadata.finalizers = [...c.finalizers];
  if (c.creationTimestamp > 0) metadata.creationTimestamp = toRfc3339(c.creationTimestamp);
  if (c.deletionTimestamp !== undefined) metadata.deletionTimestamp = toRfc3339(c.deletionTimestamp);
  const spec: Json = {
    taints: c.spec.taints.map(taintToKube),
    startupTaints: c.spec.startupTaints.map(taintToKube),
    requirements: c.spec.requirements.map((r) => {
      const out: Json = { key: r.key, operator: r.operator };
      if (r.values) out.values = [...r.values];
      if (r.minValues !== undefined) out.minValues = r.minValues;
      return out;
    }),
    resources: { requests: formatResourceList(c.spec.resources.requests) },
    nodeClassRef: { ...c.spec.nodeClassRef },
    expireAfter: formatDuration(c.spec.expireAfter),
  };
  if (c.spec.terminationGracePeriod !== null) spec.terminationGracePeriod = formatDuration(c.spec.terminationGracePeriod);
  const status: Json = {
    conditions: c.status.conditions.map((cond) => {
      const out: Json = { type: cond.type, status: cond.status };
      if (cond.reason) out.reason = cond.reason;
      if (cond.message) out.message = cond.message;
      if (cond.lastTransitionTime !== undefined) out.lastTransitionTime = toRfc3339(cond.lastTransitionTime);
      return out;
    }),
  };
  if (c.status.nodeName) status.nodeName = c.status.nodeName;
  if (c.status.providerID) status.providerID = c.status.providerID;
  if (c.status.imageID) status.imageID = c.status.imageID;
  if (c.status.capacity) status.capacity = formatResourceList(c.status.capacity);
  if (c.status.allocatable) status.allocatable = formatResourceList(c.status.allocatable);
  if (c.status.lastPodEventTime !== undefined) status.lastPodEventTime = toRfc3339(c.status.lastPodEventTime);
  return { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata, spec, status };
}
