/**
 * kubelet + cloud-controller-manager, simulated: a launched instance's Node registers after the startup time
 * with what the instance's user data asks for (`--node-labels`, `--register-with-taints`, `--max-pods`, or
 * Bottlerocket's TOML settings) plus the labels the kubelet and the cloud controller set themselves
 * (hostname, os, arch, instance type, zone, region). When the instance shuts down, its Node goes NotReady
 * with the unreachable taints (./node-status.ts; unhealthy nodes, reboots, stops and starts: ./node-health.ts). nodewright's own
 * steps (registration sync, initialization) stay to do.
 */
import { createHash } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import { buildInstanceTypes } from '../../core/instance-types/build';
import { Label, TaintKey } from '../../core/model/labels';
import { formatResource } from '../../core/model/quantity';
import { Resource } from '../../core/model/resources';
import type { Taint, TaintEffect } from '../../core/model/kube';
import type { Ec2World, SimInstance } from '../aws/ec2-world';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { kubeTypes } from './kube-objects';
import { markNodeUnreachable } from './node-status';
import { healthyConditions, legacyNodeLabels, nodeAnnotations, nodeImages, nodeInfo } from './node-content';

export interface UserDataKubelet {
  labels: Record<string, string>;
  taints: Taint[];
  maxPods?: number;
  /** 2 MiB huge pages the OS reserves at boot (`vm.nr_hugepages=N` in the user data): kubelet reports them, out of memory. */
  hugePages2Mi?: number;
}

function parseTaint(spec: string): Taint | undefined {
  const m = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(spec.trim());
  if (!m) return undefined;
  return { key: m[1], ...(m[2] ? { value: m[2] } : {}), effect: m[3] as TaintEffect };
}

/** What the node's kubelet is told by the user data (AL2 / AL2023 flags, Bottlerocket TOML). */
export function kubeletFromUserData(userData: string | undefined): UserDataKubelet {
  const out: UserDataKubelet = { labels: {}, taints: [] };
  if (!userData) return out;
  const labels = /--node-labels=([^\s'"]+)/.exec(userData)?.[1];
  for (const kv of labels?.split(',') ?? []) {
    const i = kv.indexOf('=');
    if (i > 0) out.labels[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const taints = /--register-with-taints=([^\s'"]+)/.exec(userData)?.[1];
  for (const t of taints?.split(',') ?? []) {
    const taint = parseTaint(t);
    if (taint) out.taints.push(taint);
  }
  const maxPods = /--max-pods=(\d+)/.exec(userData)?.[1] ?? /max-pods\s*=\s*(\d+)/.exec(userData)?.[1] ?? /"?maxPods"?\s*:\s*(\d+)/.exec(userData)?.[1];
  if (maxPods) out.maxPods = Number(maxPods);
  const hugePages = /vm\.nr_hugepages\s*=\s*(\d+)/.exec(userData)?.[1];
  if (hugePages) out.hugePages2Mi = Number(hugePages);
  // Bottlerocket: TOML settings, read with the same TOML library that wrote them.
  if (/^\s*\[settings/m.test(userData) && !/^MIME-Version:/m.test(userData)) {
    try {
      const kube = (parseToml(userData) as { settings?: { kubernetes?: Record<string, unknown> } }).settings?.kubernetes ?? {};
      for (const [k, v] of Object.entries((kube['node-labels'] ?? {}) as Record<string, unknown>)) out.labels[k] = String(v);
      for (const [k, vs] of Object.entries((kube['node-taints'] ?? {}) as Record<string, unknown>)) {
        for (const v of Array.isArray(vs) ? vs : [vs]) {
          const taint = parseTaint(`${k}=${String(v)}`);
          if (taint) out.taints.push(taint);
        }
      }
      if (typeof kube['max-pods'] === 'number') out.maxPods = kube['max-pods'];
    } catch {
      // not TOML after all: the flags above are all there is
    }
  }
  if (!out.taints.some((t) => t.key === TaintKey.unregistered)) out.taints.push({ key: TaintKey.unregistered, effect: 'NoExecute' });
  return out;
}

const toKubeTaint = (t: Taint) => ({ key: t.key, effect: t.effect, ...(t.value ? { value: t.value } : {}) });

export function nodeObjectFor(world: Ec2World, i: SimInstance, nowIso: string): KubeObject {
  const kubelet = kubeletFromUserData(i.userData);
  const entry = world.catalogEntry(i.type);
  const built = entry ? buildInstanceTypes([entry], { region: world.region, zones: [i.zone] })[0] : undefined;
  const capacity: Record<string, number> = { ...(built?.capacity ?? {}) };
  const allocatable: Record<string, number> = { ...(built?.allocatable ?? {}) };
  if (kubelet.maxPods !== undefined) {
    capacity.pods = kubelet.maxPods;
    allocatable.pods = kubelet.maxPods;
  }
  // Pre-allocated huge pages: kubelet reports them as hugepages-2Mi and takes them out of allocatable memory.
  if (kubelet.hugePages2Mi) {
    const bytes = kubelet.hugePages2Mi * 2 * 2 ** 20;
    capacity['hugepages-2Mi'] = allocatable['hugepages-2Mi'] = bytes;
    allocatable.memory = Math.max(0, (allocatable.memory ?? 0) - bytes);
  }
  // The EFA device plugin advertises the EFA devices attached at launch, not what the type could take.
  capacity[Resource.efa] = allocatable[Resource.efa] = i.efaInterfaces ?? 0;
  const fmt = (r: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(r)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => [k, formatResource(k, v)]),
    );
  const subnet = world.subnets.find((s) => s.id === i.subnetId);
  const arch = entry?.arch ?? 'amd64';
  const labels: Record<string, string> = {
    ...legacyNodeLabels(arch, i.zone, world.region, createHash('sha256').update(world.region).digest('hex').slice(0, 40)),
    ...kubelet.labels,
    [Label.hostname]: i.privateDnsName,
    [Label.os]: 'linux',
    [Label.arch]: arch,
    [Label.instanceType]: i.type,
    'beta.kubernetes.io/instance-type': i.type,
    [Label.zone]: i.zone,
    [Label.region]: world.region,
    ...(subnet ? { [Label.zoneId]: subnet.zoneId } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: i.privateDnsName, labels, annotations: nodeAnnotations(i.id, i.privateIp) },
    spec: { providerID: `aws:///${i.zone}/${i.id}`, taints: kubelet.taints.map(toKubeTaint) },
    status: {
      capacity: fmt(capacity),
      allocatable: fmt(allocatable),
      addresses: [
        { type: 'InternalIP', address: i.privateIp },
        { type: 'Hostname', address: i.privateDnsName },
        { type: 'InternalDNS', address: i.privateDnsName },
      ],
      conditions: healthyConditions(nowIso),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images: nodeImages(world.region),
      nodeInfo: nodeInfo(i.id, arch),
    },
  };
}

export interface KubeletEvents {
  onRegistered?(i: SimInstance, nodeName: string): void;
  /** A node lost with pods still bound (the instance went away before they were drained). */
  onNodeLost?(i: SimInstance, nodeName: string): void;
}

/** Wires instance lifecycle to Node objects; returns the unsubscribe function. */
export function startKubelet(world: Ec2World, store: KubeStore, opts: { startupSeconds: number } & KubeletEvents): () => void {
  const types = kubeTypes(store);
  const clock = world.opts.clock;
  return world.onInstanceChange((i, previous) => {
    if (previous === undefined) {
      clock.after(opts.startupSeconds * 1000, () => {
        if (i.state !== 'pending' && i.state !== 'running') return;
        if (store.tryGet(types.node, undefined, i.privateDnsName)) return;
        store.create(types.node, undefined, nodeObjectFor(world, i, store.timestamp()), { manager: 'kubelet' });
        opts.onRegistered?.(i, i.privateDnsName);
      });
      return;
    }
    // The instance goes away: shutting down, or a stopped one terminated at once.
    if ((i.state === 'shutting-down' && previous !== 'terminated') || (i.state === 'terminated' && previous === 'stopped')) {
      if (!store.tryGet(types.node, undefined, i.privateDnsName)) return;
      opts.onNodeLost?.(i, i.privateDnsName);
      // The node lifecycle controller marks every kubelet condition Unknown once the kubelet stops posting.
      markNodeUnreachable(store, i.privateDnsName);
    }
  });
}
