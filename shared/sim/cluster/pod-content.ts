/**
 * Pods as an EKS API server stores them, so the simulator's objects are as large as the real ones: what
 * admission and defaulting add to a pod created from a template (the service-account token volume
 * `kube-api-access-<5>` and its mounts, DefaultTolerationSeconds' not-ready/unreachable tolerations, the
 * container and pod defaults, the QoS class), and the status the kubelet writes once it runs (five conditions,
 * container statuses with containerd IDs and image digests, host and pod IPs). All derived from names by hashing:
 * the same run gives the same objects.
 */
import { createHash } from 'node:crypto';
import { TaintKey } from '../../core/model/labels';
import type { Json, KubeObject } from '../kube/types';

const hex = (s: string, n: number): string => {
  let out = '';
  for (let i = 0; out.length < n; i++) out += createHash('sha256').update(`${i}:${s}`).digest('hex');
  return out.slice(0, n);
};
const ALPHANUM = 'bcdfghjklmnpqrstvwxz2456789';
const suffix = (s: string): string => [...hex(s, 10).slice(0, 5)].map((c) => ALPHANUM[parseInt(c, 16) % ALPHANUM.length]).join('');

/** An image reference as containerd reports it (`docker.io/library/nginx:latest`). */
function fullImageName(image: string): string {
  const [repo, tag] = image.includes('@')
    ? [image, '']
    : /:[^/]+$/.test(image)
      ? [image.replace(/:[^/]+$/, ''), image.slice(image.lastIndexOf(':'))]
      : [image, ':latest'];
  const firstPart = repo.split('/')[0];
  const hasRegistry = repo.includes('/') && (firstPart.includes('.') || firstPart.includes(':') || firstPart === 'localhost');
  const qualified = hasRegistry ? repo : repo.includes('/') ? `docker.io/${repo}` : `docker.io/library/${repo}`;
  return `${qualified}${tag}`;
}

/** The image's digest reference (`<repo>@sha256:<64 hex>`), stable per image. */
export function imageDigest(image: string): string {
  const full = fullImageName(image);
  return `${full.includes('@') ? full.split('@')[0] : full.replace(/:[^/]+$/, '')}@sha256:${hex(full, 64)}`;
}

const SA_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }] } },
      ],
    },
  };
}

const PROBE_DEFAULTS = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };

function defaultContainer(c: Json, tokenMount: Json | undefined): Json {
  const image = String(c.image ?? '');
  const tag = /:[^/]+$/.test(image) ? image.slice(image.lastIndexOf(':') + 1) : 'latest';
  const out: Json = {
    ...c,
    imagePullPolicy: c.imagePullPolicy ?? (tag === 'latest' && !image.includes('@') ? 'Always' : 'IfNotPresent'),
    resources: c.resources ?? {},
    terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log',
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
  };
  if (Array.isArray(c.ports)) out.ports = c.ports.map((p: Json) => ({ protocol: 'TCP', ...p }));
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
    if (c[probe] && typeof c[probe] === 'object') out[probe] = { ...PROBE_DEFAULTS, ...(c[probe] as Json) };
  if (tokenMount) out.volumeMounts = [...((c.volumeMounts as Json[] | undefined) ?? []), tokenMount];
  return out;
}

/** BestEffort without any request or limit, Guaranteed when every container's limits equal its requests for cpu and memory, else Burstable. */
function qosClass(containers: Json[]): string {
  const res = containers.map((c) => (c.resources ?? {}) as { requests?: Json; limits?: Json });
  if (res.every((r) => Object.keys(r.requests ?? {}).length === 0 && Object.keys(r.limits ?? {}).length === 0)) return 'BestEffort';
  const guaranteed = res.every((r) =>
    ['cpu', 'memory'].every((k) => r.limits?.[k] !== undefined && (r.requests?.[k] === undefined || String(r.requests[k]) === String(r.limits[k]))),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const tolerates = (tolerations: Json[], key: string): boolean =>
  tolerations.some((t) => (t.key === key || (t.key === undefined && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute'));

/** The pod spec and status as the API server stores a pod created from `spec` (admission and defaulting applied). */
export function admittedPod(namespace: string, podName: string, spec: Json): { spec: Json; status: Json } {
  const volumeName = `kube-api-access-${suffix(`${namespace}/${podName}`)}`;
  const automount = spec.automountServiceAccountToken !== false;
  const mount = automount ? { mountPath: SA_MOUNT, name: volumeName, readOnly: true } : undefined;
  const containers = ((spec.containers as Json[] | undefined) ?? []).map((c) => defaultContainer(c, mount));
  const tolerations = [...((spec.tolerations as Json[] | undefined) ?? [])];
  for (const key of [TaintKey.notReady, TaintKey.unreachable])
    if (!tolerates(tolerations, key)) tolerations.push({ effect: 'NoExecute', key, operator: 'Exists', tolerationSeconds: 300 });
  const out: Json = {
    ...spec,
    containers,
    ...(Array.isArray(spec.initContainers) ? { initContainers: (spec.initContainers as Json[]).map((c) => defaultContainer(c, mount)) } : {}),
    dnsPolicy: spec.dnsPolicy ?? 'ClusterFirst',
    enableServiceLinks: spec.enableServiceLinks ?? true,
    preemptionPolicy: spec.preemptionPolicy ?? 'PreemptLowerPriority',
    ...(spec.priority === undefined && spec.priorityClassName === undefined ? { priority: 0 } : {}),
    restartPolicy: spec.restartPolicy ?? 'Always',
    schedulerName: spec.schedulerName ?? 'default-scheduler',
    securityContext: spec.securityContext ?? {},
    serviceAccount: spec.serviceAccountName ?? 'default',
    serviceAccountName: spec.serviceAccountName ?? 'default',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
    tolerations,
    volumes: [...((spec.volumes as Json[] | undefined) ?? []), ...(automount ? [tokenVolume(volumeName)] : [])],
  };
  return { spec: out, status: { phase: 'Pending', qosClass: qosClass(containers) } };
}

const condition = (type: string, at: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: at });

/** The pod's IP on the node: in the node's /16, from the pod's name (the VPC CNI gives pods addresses of the node's subnet). */
function podIp(hostIp: string, key: string): string {
  const [a, b] = hostIp.split('.');
  const h = parseInt(hex(key, 4), 16);
  return `${a ?? '10'}.${b ?? '0'}.${(h >> 8) % 256}.${(h % 254) + 1}`;
}

/** The status the kubelet writes for a running pod: conditions, container statuses, IPs, start time. */
export function runningStatus(pod: KubeObject, hostIp: string, nowIso: string, current: Json): Json {
  const key = `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid ?? ''}`;
  const ip = podIp(hostIp, key);
  const containerStatus = (c: Json) => {
    const image = String(c.image ?? '');
    return {
      containerID: `containerd://${hex(`${key}/${String(c.name)}`, 64)}`,
      image: fullImageName(image),
      imageID: imageDigest(image),
      lastState: {},
      name: c.name,
      ready: true,
      restartCount: 0,
      started: true,
      state: { running: { startedAt: nowIso } },
      ...(Array.isArray(c.volumeMounts)
        ? {
            volumeMounts: (c.volumeMounts as Json[]).map((m) => ({
              mountPath: m.mountPath,
              name: m.name,
              ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
            })),
          }
        : {}),
    };
  };
  const containers = ((pod.spec?.containers as Json[] | undefined) ?? []).map(containerStatus);
  return {
    ...current,
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((t) => condition(t, nowIso)),
    containerStatuses: containers,
    hostIP: hostIp,
    hostIPs: [{ ip: hostIp }],
    podIP: ip,
    podIPs: [{ ip }],
    qosClass: current.qosClass ?? qosClass((pod.spec?.containers as Json[] | undefined) ?? []),
    startTime: nowIso,
  };
}
