/**
 * A running cluster as a scenario (`nodewright snapshot`, `simulate --kubeconfig`): what it runs, so that a user can
 * replay their cluster offline, change a NodePool and compare. The objects read by readLiveCluster become:
 * - `objects`: the NodePools and EC2NodeClasses (spec only: the simulator resolves their status), DaemonSets, PDBs,
 *   PriorityClasses, StorageClasses and Namespaces; and one Deployment per group of the cluster's pods (by the
 *   controller that owns them — a ReplicaSet's Deployment, a StatefulSet, a Job — or a bare pod on its own), with as
 *   many replicas as it has pods now and the pods' own spec as its template;
 * - `fleet`: the nodes NodePools launched, counted by pool, type, capacity type and zone, each `launchedBy` nodewright
 *   or Karpenter as its NodeClaim's drift-hash version says.
 * What cannot be replayed is left out and said in `notes`: nodes no NodePool launched (a managed node group, Fargate)
 * and the pods bound to them, NodeClaims being deleted, and the pods' PersistentVolumeClaim volumes (volume topology).
 */
import { stringify } from 'yaml';
import { NodePoolHashVersion } from '../shared/core/model/hash';
import { Annotation, Label } from '../shared/core/model/labels';

type Json = Record<string, unknown>;
interface Item extends Json {
  apiVersion: string;
  kind: string;
  metadata: Json & { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Json;
  status?: Json;
}

export interface SnapshotOptions {
  server: string;
  /** ISO time of the read, for the file's header. */
  at: string;
  name?: string;
  duration?: string;
  /** When the nodes carry no region label. */
  region?: string;
}

export interface SnapshotScenario {
  text: string;
  notes: string[];
  counts: { deployments: number; pods: number; fleetNodes: number };
}

const BUILTIN_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);
const DROPPED_ANNOTATIONS = [
  'kubectl.kubernetes.io/last-applied-configuration',
  Annotation.nodePoolHash,
  Annotation.nodePoolHashVersion,
  Annotation.nodeClassHash,
  Annotation.nodeClassHashVersion,
];
/** Labels a controller puts on its pods: never part of the replayed template. */
const CONTROLLER_LABELS = ['pod-template-hash', 'controller-revision-hash', 'statefulset.kubernetes.io/pod-name', 'apps.kubernetes.io/pod-index'];

function metadataOf(o: Item, keepAnnotations = true): Json {
  const annotations = Object.fromEntries(Object.entries(o.metadata.annotations ?? {}).filter(([k]) => !DROPPED_ANNOTATIONS.includes(k)));
  return {
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    ...(o.metadata.labels && Object.keys(o.metadata.labels).length ? { labels: o.metadata.labels } : {}),
    ...(keepAnnotations && Object.keys(annotations).length ? { annotations } : {}),
  };
}

/** The object as a user would apply it: its kind, name, labels, annotations and spec; no status, uid or managed fields. */
function applied(o: Item): Json {
  const { apiVersion, kind, metadata: _m, status: _s, ...rest } = o;
  return { apiVersion, kind, metadata: metadataOf(o), ...rest };
}

const ownerOf = (o: Item) =>
  ((o.metadata.ownerReferences as { kind: string; name: string; controller?: boolean }[] | undefined) ?? []).find((r) => r.controller) ??
  (o.metadata.ownerReferences as { kind: string; name: string }[] | undefined)?.[0];

/**
 * A pod's spec as a Deployment's template: not bound, no PVC volumes (and their mounts), a Job's pod restarted as a
 * Deployment's must be (restartPolicy Always), defaults the API server added left as they are.
 */
function templateSpec(pod: Item, dropped: Set<string>): Json {
  const { nodeName: _n, priority: _p, restartPolicy: _r, ...spec } = pod.spec ?? {};
  const volumes = (spec.volumes as Json[] | undefined) ?? [];
  const pvc = new Set(volumes.filter((v) => v.persistentVolumeClaim || v.ephemeral).map((v) => String(v.name)));
  if (pvc.size === 0) return spec;
  for (const v of pvc) dropped.add(v);
  const unmount = (cs: unknown) =>
    (cs as Json[] | undefined)?.map((c) => ({ ...c, volumeMounts: ((c.volumeMounts as Json[] | undefined) ?? []).filter((m) => !pvc.has(String(m.name))) }));
  return {
    ...spec,
    volumes: volumes.filter((v) => !pvc.has(String(v.name))),
    containers: unmount(spec.containers),
    ...(spec.initContainers ? { initContainers: unmount(spec.initContainers) } : {}),
  };
}

interface Group {
  namespace: string;
  name: string;
  pods: Item[];
}

/** The pods by the controller that owns them; a ReplicaSet's group is named after its Deployment. */
function podGroups(pods: Item[]): Group[] {
  const groups = new Map<string, Group>();
  for (const pod of pods) {
    const owner = ownerOf(pod);
    const ns = pod.metadata.namespace ?? 'default';
    const hash = pod.metadata.labels?.['pod-template-hash'];
    const name =
      owner?.kind === 'ReplicaSet' && hash && owner.name.endsWith(`-${hash}`)
        ? owner.name.slice(0, -hash.length - 1)
        : owner
          ? `${owner.kind.toLowerCase()}-${owner.name}`
          : pod.metadata.name;
    // Keyed by the name it gets: a Deployment mid-rollout (two ReplicaSets) is one group, at its pods' total.
    const key = `${ns}/${name}`;
    const g = groups.get(key) ?? { namespace: ns, name, pods: [] };
    g.pods.push(pod);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

function deploymentOf(g: Group, dropped: Set<string>): Json {
  const pod = g.pods[0];
  const labels = Object.fromEntries(Object.entries(pod.metadata.labels ?? {}).filter(([k]) => !CONTROLLER_LABELS.includes(k)));
  const group = { 'nodewright.io/snapshot-group': g.name };
  const annotations = pod.metadata.annotations ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: g.name, namespace: g.namespace },
    spec: {
      replicas: g.pods.length,
      selector: { matchLabels: group },
      template: {
        metadata: { labels: { ...labels, ...group }, ...(Object.keys(annotations).length ? { annotations } : {}) },
        spec: templateSpec(pod, dropped),
      },
    },
  };
}

interface FleetKey {
  nodePool: string;
  instanceType: string;
  capacityType: 'spot' | 'on-demand';
  zone: string;
  launchedBy: 'nodewright' | 'karpenter';
}

/** The nodes NodePools launched, counted; the names of the nodes they are (the others are not replayed). */
function fleetOf(items: Item[], notes: string[]): { fleet: (FleetKey & { count: number })[]; managed: Set<string>; zones: Set<string>; regions: Set<string> } {
  const pools = new Set(items.filter((o) => o.kind === 'NodePool').map((o) => o.metadata.name));
  // A claim names its node once registration linked them; a node still joining is matched by its providerID.
  const claims = new Map<string, Item>();
  for (const c of items.filter((o) => o.kind === 'NodeClaim')) {
    const status = (c.status ?? {}) as { nodeName?: string; providerID?: string };
    if (status.nodeName) claims.set(status.nodeName, c);
    if (status.providerID) claims.set(status.providerID, c);
  }
  const counted = new Map<string, FleetKey & { count: number }>();
  const managed = new Set<string>();
  const zones = new Set<string>();
  const regions = new Set<string>();
  let unmanaged = 0;
  let deleting = 0;
  for (const node of items.filter((o) => o.kind === 'Node')) {
    const l = node.metadata.labels ?? {};
    if (l[Label.zone]) zones.add(l[Label.zone]);
    if (l[Label.region]) regions.add(l[Label.region]);
    const claim = claims.get(node.metadata.name) ?? claims.get(String((node.spec as { providerID?: string } | undefined)?.providerID));
    const pool = claim?.metadata.labels?.[Label.nodePool] ?? l[Label.nodePool];
    if (!claim || !pool || !pools.has(pool) || !l[Label.instanceType] || !l[Label.zone]) {
      unmanaged++;
      continue;
    }
    if (claim.metadata.deletionTimestamp || node.metadata.deletionTimestamp) {
      deleting++;
      continue;
    }
    managed.add(node.metadata.name);
    const key: FleetKey = {
      nodePool: pool,
      instanceType: l[Label.instanceType],
      capacityType: l[Label.capacityType] === 'spot' ? 'spot' : 'on-demand',
      zone: l[Label.zone],
      launchedBy: claim.metadata.annotations?.[Annotation.nodePoolHashVersion] === NodePoolHashVersion ? 'nodewright' : 'karpenter',
    };
    const id = JSON.stringify(key);
    const entry = counted.get(id) ?? { ...key, count: 0 };
    entry.count++;
    counted.set(id, entry);
  }
  if (unmanaged) notes.push(`${unmanaged} node(s) no NodePool launched (a managed node group, Fargate) are not replayed, nor the pods bound to them`);
  if (deleting) notes.push(`${deleting} node(s) being deleted are not replayed`);
  const fleet = [...counted.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { fleet, managed, zones, regions };
}

const KEPT_KINDS = ['NodePool', 'EC2NodeClass', 'Namespace', 'PriorityClass', 'StorageClass', 'DaemonSet', 'PodDisruptionBudget'];

/** The cluster's objects (a `kind: List`'s items, as readLiveCluster reads them) as a scenario's YAML. */
export function snapshotScenario(items: Item[], opts: SnapshotOptions): SnapshotScenario {
  const notes: string[] = [];
  const { fleet, managed, zones, regions } = fleetOf(items, notes);
  for (const c of items.filter((o) => o.kind === 'EC2NodeClass'))
    for (const s of (c.status as { subnets?: { zone?: string }[] } | undefined)?.subnets ?? []) if (s.zone) zones.add(s.zone);
  const region = [...regions][0] ?? [...zones][0]?.slice(0, -1) ?? opts.region ?? 'us-east-1';
  const kept = items.filter((o) => KEPT_KINDS.includes(o.kind) && !(o.kind === 'Namespace' && BUILTIN_NAMESPACES.has(o.metadata.name)));
  const pods = items.filter((o) => o.kind === 'Pod');
  const replayed = pods.filter((p) => {
    const owner = ownerOf(p);
    if (owner?.kind === 'DaemonSet' || owner?.kind === 'Node') return false;
    const node = (p.spec as { nodeName?: string } | undefined)?.nodeName;
    return !node || managed.has(node);
  });
  const dropped = new Set<string>();
  const groups = podGroups(replayed);
  const batch = replayed.filter((p) => ownerOf(p)?.kind === 'Job').length;
  if (batch) notes.push(`${batch} pod(s) of Jobs are replayed as long-running replicas (a Deployment each Job)`);
  const deployments = groups.map((g) => deploymentOf(g, dropped));
  if (dropped.size)
    notes.push(`PersistentVolumeClaim volumes are not replayed (${dropped.size} volume name(s)): their zonal topology does not constrain the replay`);
  const objects = [...kept.map(applied), ...deployments].map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
  const header = [`Written by \`nodewright snapshot\` from ${opts.server} at ${opts.at}.`, 'Replay it: nodewright simulate <this file>', ...notes];
  const regionZones = [...zones].filter((z) => z.startsWith(region)).sort();
  const doc = {
    name: opts.name ?? 'snapshot',
    region,
    ...(regionZones.length ? { zones: regionZones } : {}),
    duration: opts.duration ?? '1h',
    objects,
    ...(fleet.length ? { fleet } : {}),
  };
  const body = stringify(doc, { lineWidth: 0, blockQuote: 'literal' });
  return {
    text: `${header.map((l) => `# ${l}`).join('\n')}\n${body}`,
    notes,
    counts: { deployments: deployments.length, pods: replayed.length, fleetNodes: fleet.reduce((n, e) => n + e.count, 0) },
  };
}
