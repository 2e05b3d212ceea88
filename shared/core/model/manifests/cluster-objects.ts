/** Node, DaemonSet, PDB, PV, PVC and StorageClass JSON → normalized objects. */
import type { DaemonSet, Namespace, Node, NodeSelectorTerm, PersistentVolume, PersistentVolumeClaim, PodDisruptionBudget, StorageClass } from '../kube';
import { arr, normalizeLabelMap, num, obj, resources, str, stringMap, toEpochMs, type Json, type ManifestContext, type PodContext } from './context';
import { podFromKube } from './pod';
import { labelSelector, nodeSelectorTerm, taint } from './scheduling-fields';
import { epochMs } from '../../time';
import { repairPolicyFor } from '../repair-policies';

export function nodeFromKube(o: Json, ctx?: ManifestContext): Node {
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const rawLabels = stringMap(metadata.labels);
  // Keep the beta keys a node really carries, and add their GA form when missing.
  const labels = { ...rawLabels, ...normalizeLabelMap(rawLabels) };
  const conditions = arr(status.conditions).map(obj);
  const readyCond = conditions.find((c) => c.type === 'Ready');
  const node: Node = {
    name: str(metadata.name) ?? '',
    labels,
    annotations: stringMap(metadata.annotations),
    taints: arr(spec.taints).map((t, i) => taint(t, ctx, `spec.taints[${i}]`)),
    capacity: resources(status.capacity, ctx, 'status.capacity'),
    allocatable: resources(status.allocatable ?? status.capacity, ctx, status.allocatable ? 'status.allocatable' : 'status.capacity'),
    unschedulable: spec.unschedulable === true,
    ready: readyCond?.status === 'True',
    creationTimestamp: toEpochMs(metadata.creationTimestamp) ?? epochMs(0),
    finalizers: arr(metadata.finalizers).map((f) => str(f) ?? ''),
  };
  const uid = str(metadata.uid);
  if (uid) node.uid = uid;
  const providerID = str(spec.providerID);
  if (providerID) node.providerID = providerID;
  const deletion = toEpochMs(metadata.deletionTimestamp);
  if (deletion !== undefined) node.deletionTimestamp = deletion;
  const owners = arr(metadata.ownerReferences)
    .map(obj)
    .map((r) => ({
      apiVersion: str(r.apiVersion) ?? '',
      kind: str(r.kind) ?? '',
      name: str(r.name) ?? '',
      uid: str(r.uid) ?? '',
      ...(r.blockOwnerDeletion === true ? { blockOwnerDeletion: true } : {}),
      ...(r.controller === true ? { controller: true } : {}),
    }));
  if (owners.length) node.ownerReferences = owners;
  const attached = arr(status.volumesAttached)
    .map((v) => str(obj(v).name))
    .filter((n): n is string => !!n);
  if (attached.length) node.volumesAttached = attached;
  const unhealthy = conditions
    .filter((c) => repairPolicyFor(String(c.type), String(c.status)))
    .map((c) => ({
      type: String(c.type),
      status: String(c.status),
      since: toEpochMs(c.lastTransitionTime) ?? node.creationTimestamp,
      ...(str(c.reason) ? { reason: str(c.reason) } : {}),
    }));
  if (unhealthy.length) node.unhealthy = unhealthy;
  return node;
}

/** The DaemonSet's pod template becomes a Pod named after the DaemonSet, owned by it. */
export function daemonSetFromKube(o: Json, ctx?: PodContext): DaemonSet {
  const metadata = obj(o.metadata);
  const namespace = str(metadata.namespace) || 'default';
  const name = str(metadata.name) ?? '';
  const template = obj(obj(o.spec).template);
  const tplMeta = obj(template.metadata);
  const pod = podFromKube(
    {
      metadata: {
        ...tplMeta,
        name,
        namespace,
        uid: `${namespace}/${name}`,
        creationTimestamp: metadata.creationTimestamp,
        ownerReferences: [{ kind: 'DaemonSet', name, uid: str(metadata.uid), controller: true }],
      },
      spec: template.spec,
    },
    { ...ctx, specPath: 'spec.template.spec' },
  );
  return { namespace, name, template: pod };
}

const intOrPercent = (v: unknown): number | string | undefined => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return /^\d+$/.test(v) ? Number(v) : v;
  return undefined;
};

export function pdbFromKube(o: Json, _ctx?: ManifestContext): PodDisruptionBudget {
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const pdb: PodDisruptionBudget = { namespace: str(metadata.namespace) || 'default', name: str(metadata.name) ?? '' };
  const sel = labelSelector(spec.selector);
  if (sel) pdb.selector = sel;
  const minAvailable = intOrPercent(spec.minAvailable);
  if (minAvailable !== undefined) pdb.minAvailable = minAvailable;
  const maxUnavailable = intOrPercent(spec.maxUnavailable);
  if (maxUnavailable !== undefined) pdb.maxUnavailable = maxUnavailable;
  const allowed = num(obj(o.status).disruptionsAllowed);
  if (allowed !== undefined) pdb.disruptionsAllowed = allowed;
  return pdb;
}

/** Required node affinity of a PV; a `local` or CSI volume pinned to a zone or host carries one. */
export function pvFromKube(o: Json, ctx?: ManifestContext): PersistentVolume {
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const pv: PersistentVolume = { name: str(metadata.name) ?? '' };
  const sc = str(spec.storageClassName);
  if (sc) pv.storageClassName = sc;
  const terms = arr(obj(obj(spec.nodeAffinity).required).nodeSelectorTerms);
  if (terms.length) {
    pv.nodeAffinity = terms.map((t, i): NodeSelectorTerm => nodeSelectorTerm(t, ctx, `spec.nodeAffinity.required.nodeSelectorTerms[${i}]`));
  }
  const claimRef = obj(spec.claimRef);
  const claimName = str(claimRef.name);
  if (claimName) pv.claimRef = { namespace: str(claimRef.namespace) || 'default', name: claimName };
  const driver = str(obj(spec.csi).driver) ?? (spec.awsElasticBlockStore ? 'kubernetes.io/aws-ebs' : undefined);
  if (driver) pv.csiDriver = driver;
  // A CSI handle is the driver's own (it may hold '/'); an in-tree EBS volume id may read aws://<zone>/vol-…, whose
  // migrated name is the bare vol-… id.
  const csiHandle = str(obj(spec.csi).volumeHandle);
  const ebsId = str(obj(spec.awsElasticBlockStore).volumeID);
  if (csiHandle) pv.volumeHandle = csiHandle;
  else if (ebsId) pv.volumeHandle = ebsId.slice(ebsId.lastIndexOf('/') + 1);
  if (spec.local || spec.hostPath) pv.local = true;
  if (metadata.deletionTimestamp) pv.deleting = true;
  return pv;
}

export function pvcFromKube(o: Json, _ctx?: ManifestContext): PersistentVolumeClaim {
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const phase = str(obj(o.status).phase);
  const pvc: PersistentVolumeClaim = {
    namespace: str(metadata.namespace) || 'default',
    name: str(metadata.name) ?? '',
    phase: phase === 'Bound' || phase === 'Lost' ? phase : 'Pending',
  };
  const sc = str(spec.storageClassName);
  if (sc !== undefined) pvc.storageClassName = sc;
  const volumeName = str(spec.volumeName);
  if (volumeName) pvc.volumeName = volumeName;
  if (metadata.deletionTimestamp) pvc.deleting = true;
  if (stringMap(metadata.annotations)['pv.kubernetes.io/bind-completed'] !== undefined) pvc.bindCompleted = true;
  return pvc;
}

const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

export function storageClassFromKube(o: Json, ctx?: ManifestContext): StorageClass {
  const metadata = obj(o.metadata);
  const annotations = stringMap(metadata.annotations);
  const sc: StorageClass = {
    name: str(metadata.name) ?? '',
    provisioner: str(o.provisioner) ?? '',
    volumeBindingMode: str(o.volumeBindingMode) === 'WaitForFirstConsumer' ? 'WaitForFirstConsumer' : 'Immediate',
    isDefault: DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true'),
    creationTimestamp: toEpochMs(metadata.creationTimestamp) ?? epochMs(0),
  };
  const topologies = arr(o.allowedTopologies);
  if (topologies.length) {
    // allowedTopologies use matchLabelExpressions {key, values}: each is an In requirement.
    sc.allowedTopologies = topologies.map((t, i) =>
      nodeSelectorTerm(
        { matchExpressions: arr(obj(t).matchLabelExpressions).map((e) => ({ key: obj(e).key, operator: 'In', values: obj(e).values })) },
        ctx,
        `allowedTopologies[${i}]`,
      ),
    );
  }
  return sc;
}

/** A Namespace: its name and labels (the API server gives every one `kubernetes.io/metadata.name`). */
export function namespaceFromKube(o: Json): Namespace {
  const metadata = obj(o.metadata);
  const name = str(metadata.name) ?? '';
  return { name, labels: { ...stringMap(metadata.labels), 'kubernetes.io/metadata.name': name } };
}
