/** Pod JSON → normalized Pod, including the effective-requests arithmetic Kubernetes uses. */
import type { HostPort, OwnerRef, Pod, PodVolumeClaim } from '../kube';
import { addInto, maxResources, type ResourceList } from '../resources';
import { BuiltinPriorityClasses, arr, num, obj, resources, str, stringMap, toEpochMs, normalizeLabelMap, type Json, type PodContext } from './context';
import { affinity, toleration, topologySpreadConstraint } from './scheduling-fields';
import { epochMs } from '../../time';

const PHASES: ReadonlySet<string> = new Set(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']);

/** A container's requests, with limits filling in resources that have no request (as the API server defaults them). */
function containerRequests(c: unknown, ctx: PodContext | undefined, path: string): ResourceList {
  const res = obj(obj(c).resources);
  const requests = resources(res.requests, ctx, `${path}.resources.requests`);
  const limits = resources(res.limits, ctx, `${path}.resources.limits`);
  for (const k in limits) if (!(k in requests)) requests[k] = limits[k];
  return requests;
}

const isSidecar = (c: unknown): boolean => str(obj(c).restartPolicy) === 'Always';

/**
 * Effective pod requests: max(Σ containers + Σ sidecars, each init container + the sidecars started
 * before it, each sidecar prefix sum) + overhead. Resources are compared one by one, as Kubernetes does.
 */
function podSpecRequests(spec: Readonly<Json>, ctx: PodContext | undefined, path = 'spec'): ResourceList {
  // Indexed loops, and no copies where there is nothing to add: every pod goes through here.
  const running: ResourceList = {};
  const containers = arr(spec.containers);
  for (let i = 0; i < containers.length; i++) addInto(running, containerRequests(containers[i], ctx, `${path}.containers[${i}]`));
  const inits = arr(spec.initContainers);
  let total = running;
  if (inits.length > 0) {
    const sidecars: ResourceList = {};
    let initPeak: ResourceList = {};
    for (let i = 0; i < inits.length; i++) {
      const c = inits[i];
      const req = containerRequests(c, ctx, `${path}.initContainers[${i}]`);
      if (isSidecar(c)) {
        addInto(sidecars, req);
        initPeak = maxResources(initPeak, sidecars);
      } else {
        initPeak = maxResources(initPeak, addInto({ ...req }, sidecars));
      }
    }
    total = maxResources(addInto(running, sidecars), initPeak);
  }
  if (spec.overhead !== undefined) return addInto(total, resources(spec.overhead, ctx, `${path}.overhead`));
  const runtimeClass = str(spec.runtimeClassName);
  return runtimeClass ? addInto(total, runtimeClassOverhead(runtimeClass, ctx)) : total;
}

function runtimeClassOverhead(name: string, ctx: PodContext | undefined): ResourceList {
  const overhead = ctx?.runtimeClassOverhead;
  return { ...(overhead && Object.hasOwn(overhead, name) ? overhead[name] : {}) };
}

function hostPorts(spec: Readonly<Json>): HostPort[] {
  const out: HostPort[] = [];
  const containers = arr(spec.containers);
  for (let i = 0; i < containers.length; i++) containerHostPorts(containers[i], out);
  const inits = arr(spec.initContainers);
  for (let i = 0; i < inits.length; i++) if (isSidecar(inits[i])) containerHostPorts(inits[i], out);
  return out;
}

function containerHostPorts(c: unknown, out: HostPort[]): void {
  const ports = arr(obj(c).ports);
  for (let i = 0; i < ports.length; i++) {
    const port = obj(ports[i]);
    const hostPort = num(port.hostPort);
    if (!hostPort || hostPort <= 0) continue;
    const protocol = str(port.protocol);
    const hp: HostPort = { port: hostPort, protocol: protocol === 'UDP' || protocol === 'SCTP' ? protocol : 'TCP' };
    const hostIP = str(port.hostIP);
    if (hostIP) hp.hostIP = hostIP;
    out.push(hp);
  }
}

function volumeClaims(spec: Json, podName: string): PodVolumeClaim[] {
  const out: PodVolumeClaim[] = [];
  for (const v of arr(spec.volumes)) {
    const vol = obj(v);
    const pvc = obj(vol.persistentVolumeClaim);
    const claimName = str(pvc.claimName);
    if (claimName) {
      out.push({ claimName });
      continue;
    }
    if (vol.ephemeral) {
      const tplSpec = obj(obj(obj(vol.ephemeral).volumeClaimTemplate).spec);
      const claim: PodVolumeClaim = { claimName: `${podName}-${str(vol.name) ?? ''}`, ephemeral: {} };
      const sc = str(tplSpec.storageClassName);
      if (sc !== undefined) claim.ephemeral = { storageClassName: sc };
      out.push(claim);
    }
  }
  return out;
}

function ownerOf(metadata: Json): OwnerRef | undefined {
  const refs = arr(metadata.ownerReferences).map(obj);
  const ref = refs.find((r) => r.controller === true) ?? refs[0];
  if (!ref) return undefined;
  const owner: OwnerRef = { kind: str(ref.kind) ?? '', name: str(ref.name) ?? '' };
  const uid = str(ref.uid);
  if (uid) owner.uid = uid;
  if (ref.controller === true) owner.controller = true;
  return owner;
}

function priorityOf(spec: Json, ctx: PodContext | undefined): number {
  const explicit = num(spec.priority);
  if (explicit !== undefined) return explicit;
  const cls = str(spec.priorityClassName);
  if (cls) return classValue(ctx?.priorityClasses, cls) ?? classValue(BuiltinPriorityClasses, cls) ?? 0;
  return ctx?.defaultPriority ?? 0;
}

/** Own properties only: a class named "constructor" is not Object.prototype.constructor. */
const classValue = (m: Record<string, number> | undefined, cls: string) => (m && Object.hasOwn(m, cls) ? m[cls] : undefined);

/** Pod JSON (manifest or API object) → Pod. Throws ManifestValidationError on bad quantities or selectors. */
export function podFromKube(o: Json, ctx?: PodContext): Pod {
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const specPath = ctx?.specPath ?? 'spec';
  const namespace = str(metadata.namespace) || 'default';
  const name = str(metadata.name) ?? '';
  const conditions = arr(status.conditions).map(obj);
  const phase = str(status.phase);
  const pod: Pod = {
    uid: str(metadata.uid) || `${namespace}/${name}`,
    namespace,
    name,
    labels: stringMap(metadata.labels),
    annotations: stringMap(metadata.annotations),
    creationTimestamp: toEpochMs(metadata.creationTimestamp) ?? epochMs(0),
    phase: phase && PHASES.has(phase) ? (phase as Pod['phase']) : 'Pending',
    requests: podSpecRequests(spec, ctx, specPath),
    nodeSelector: normalizeLabelMap(stringMap(spec.nodeSelector)),
    tolerations: arr(spec.tolerations).map(toleration),
    topologySpreadConstraints: arr(spec.topologySpreadConstraints).map(topologySpreadConstraint),
    hostPorts: hostPorts(spec),
    volumeClaims: volumeClaims(spec, name),
    priority: priorityOf(spec, ctx),
    terminationGracePeriodSeconds: num(spec.terminationGracePeriodSeconds) ?? 30,
  };
  const deletion = toEpochMs(metadata.deletionTimestamp);
  if (deletion !== undefined) pod.deletionTimestamp = deletion;
  const start = toEpochMs(status.startTime);
  if (start !== undefined) pod.startTime = start;
  const nodeName = str(spec.nodeName);
  if (nodeName) pod.nodeName = nodeName;
  const nominated = str(status.nominatedNodeName);
  if (nominated) pod.nominatedNodeName = nominated;
  const scheduled = conditions.find((c) => c.type === 'PodScheduled');
  if (scheduled && scheduled.status === 'False' && scheduled.reason === 'Unschedulable') pod.unschedulable = true;
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready) {
    pod.ready = ready.status === 'True';
    const since = pod.ready ? toEpochMs(ready.lastTransitionTime) : undefined;
    if (since !== undefined) pod.readySince = since;
  }
  const aff = affinity(spec.affinity, ctx, `${specPath}.affinity`);
  if (aff) pod.affinity = aff;
  const owner = ownerOf(metadata);
  if (owner) pod.owner = owner;
  const pcName = str(spec.priorityClassName);
  if (pcName) pod.priorityClassName = pcName;
  const scheduler = str(spec.schedulerName);
  if (scheduler) pod.schedulerName = scheduler;
  return pod;
}
