/** A scenario's timed events applied to the simulated world. */
import { nodeClassRoleName } from '../../core/model/karpenter';
import { parseAllDocuments } from 'yaml';
import { KubeApiStatusError } from '../kube/status';
import type { KubeObject } from '../kube/types';
import type { SimInstance } from '../aws/ec2-world';
import type { SimWorld } from './world';
import type { Scenario, ScenarioEvent } from './schema';

const API_VERSIONS: Record<string, string> = {
  Deployment: 'apps/v1',
  DaemonSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  ReplicaSet: 'apps/v1',
  Pod: 'v1',
  Node: 'v1',
  Namespace: 'v1',
  Service: 'v1',
  ConfigMap: 'v1',
  PodDisruptionBudget: 'policy/v1',
  NodePool: 'karpenter.sh/v1',
  NodeClaim: 'karpenter.sh/v1',
  EC2NodeClass: 'karpenter.k8s.aws/v1',
  PriorityClass: 'scheduling.k8s.io/v1',
};

export interface AppliedEvent {
  t: number;
  kind: 'scale' | 'apply' | 'delete' | 'interrupt' | 'unavailable' | 'unhealthy';
  description: string;
  ok: boolean;
  error?: string;
}

const splitName = (ref: string): { namespace: string; name: string } => {
  const i = ref.indexOf('/');
  return i < 0 ? { namespace: 'default', name: ref } : { namespace: ref.slice(0, i), name: ref.slice(i + 1) };
};

/** Applies objects in order (Namespaces first), `${CLUSTER_NAME}` already substituted. */
export function applyObjects(world: SimWorld, objects: KubeObject[]): void {
  const sorted = [...objects].sort((a, b) => Number(b.kind === 'Namespace') - Number(a.kind === 'Namespace'));
  for (const o of sorted) world.api.apply(structuredClone(o));
}

/**
 * The instances an `interrupt` event targets: a node name, or `any` = the `count` oldest running instances not
 * interrupted yet (spot ones first for spot interruptions).
 */
function interruptTargets(world: SimWorld, node: string, kind: string, count: number): SimInstance[] {
  const running = [...world.ec2.instances.values()]
    .filter((i) => i.state === 'running' && i.interruptedAtMs === undefined)
    .sort((a, b) => a.launchTimeMs - b.launchTimeMs || a.id.localeCompare(b.id));
  if (node !== 'any') return running.filter((i) => i.privateDnsName === node || i.id === node).slice(0, 1);
  if (kind === 'spot-interruption') running.sort((a, b) => Number(b.capacityType === 'spot') - Number(a.capacityType === 'spot'));
  return running.slice(0, count);
}

/** An `unhealthy` event: the nodes it breaks (cluster/node-health.ts), or none when no node qualifies. */
function applyUnhealthy(world: SimWorld, scenario: Scenario, u: NonNullable<ScenarioEvent['unhealthy']>, t: number): AppliedEvent {
  const nodes = world.nodeHealth.unhealthy(u, scenario.seed);
  const what = `${u.condition} of ${u.node === 'any' ? 'any node' : u.node} (fixed by ${u.fixedBy})`;
  if (nodes.length === 0)
    return { t, kind: 'unhealthy', description: `unhealthy ${what}: no ${u.node === 'any' ? 'Ready node of a NodePool' : 'such node'}`, ok: false };
  const short = u.node === 'any' && nodes.length < u.count ? ` (${nodes.length} of ${u.count}: no more Ready nodes)` : '';
  return { t, kind: 'unhealthy', description: `unhealthy ${u.condition} on ${nodes.join(', ')} (fixed by ${u.fixedBy})${short}`, ok: true };
}

export function applyEvent(world: SimWorld, scenario: Scenario, e: ScenarioEvent): AppliedEvent {
  const t = world.clock.elapsedSeconds();
  const store = world.api.store;
  try {
    if (e.scale) {
      const { namespace, name } = splitName(e.scale.deployment);
      const rt = store.typeOf('apps/v1', 'Deployment');
      const d = store.get(rt, namespace, name);
      store.update(rt, namespace, name, { ...d, spec: { ...(d.spec ?? {}), replicas: e.scale.replicas } });
      return { t, kind: 'scale', description: `scale deployment ${namespace}/${name} to ${e.scale.replicas}`, ok: true };
    }
    if (e.apply) {
      const text = e.apply.replace(/\$\{CLUSTER_NAME\}|\$CLUSTER_NAME\b/g, scenario.clusterName);
      const objects = parseAllDocuments(text, { merge: true })
        .map((d) => d.toJS() as KubeObject | null)
        .filter((o): o is KubeObject => o !== null && typeof o === 'object');
      applyObjects(world, objects);
      return { t, kind: 'apply', description: `apply ${objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', ')}`, ok: true };
    }
    if (e.delete) {
      const { namespace, name } = splitName(e.delete.name);
      const apiVersion = e.delete.apiVersion ?? API_VERSIONS[e.delete.kind] ?? 'v1';
      const found = world.api.remove(apiVersion, e.delete.kind, name, namespace);
      return { t, kind: 'delete', description: `delete ${e.delete.kind} ${e.delete.name}${found ? '' : ' (not found)'}`, ok: found };
    }
    if (e.interrupt) {
      const { node, kind, count } = e.interrupt;
      const targets = interruptTargets(world, node, kind, count);
      if (targets.length === 0) return { t, kind: 'interrupt', description: `${kind} of ${node}: no running instance`, ok: false };
      for (const target of targets) {
        if (kind === 'spot-interruption') world.ec2.interruptSpot(target);
        else if (kind === 'rebalance') world.ec2.rebalance(target);
        else if (kind === 'scheduled-change') world.ec2.scheduledChange(target);
        else world.ec2.externalTermination(target);
      }
      const what = targets.map((i) => `${i.privateDnsName} (${i.id}, ${i.capacityType})`).join(', ');
      const short = targets.length < count ? ` (${targets.length} of ${count}: no more running instances)` : '';
      return { t, kind: 'interrupt', description: `${kind} of ${what}${short}`, ok: true };
    }
    if (e.unavailable) {
      const u = e.unavailable;
      const now = world.clock.now();
      world.ec2.addCapacityWindow({
        instanceType: u.instanceType,
        ...(u.zone ? { zone: u.zone } : {}),
        ...(u.capacityType ? { capacityType: u.capacityType } : {}),
        fromMs: now,
        untilMs: now + u.for * 1000,
      });
      return {
        t,
        kind: 'unavailable',
        description: `no ${u.capacityType ?? 'spot or on-demand'} capacity for ${u.instanceType} in ${u.zone ?? 'any zone'} for ${u.for}s`,
        ok: true,
      };
    }
    if (e.unhealthy) return applyUnhealthy(world, scenario, e.unhealthy, t);
  } catch (err) {
    const message = err instanceof KubeApiStatusError || err instanceof Error ? err.message : String(err);
    return {
      t,
      kind: e.scale ? 'scale' : e.apply ? 'apply' : e.delete ? 'delete' : e.interrupt ? 'interrupt' : e.unavailable ? 'unavailable' : 'unhealthy',
      description: 'event failed',
      ok: false,
      error: message,
    };
  }
  return { t, kind: 'apply', description: 'empty event', ok: false };
}

/**
 * Tags the scenario's EC2NodeClasses select subnets and security groups by: the simulated account is set up
 * the way the user tagged theirs (`*` = any value).
 */
/**
 * The node role a deploy for these objects would be given (`nodeRoleName`, what the functions may pass to EC2): the
 * role of the first EC2NodeClass that names one, as a user deploying for their own node classes would set it. A
 * class naming another role is then refused, as the deployed functions refuse it.
 */
function nodeRoleOf(objects: KubeObject[]): string | undefined {
  for (const o of objects) {
    const role = o.kind === 'EC2NodeClass' ? (o.spec as { role?: unknown } | undefined)?.role : undefined;
    if (typeof role === 'string' && role) return nodeClassRoleName(role);
  }
  return undefined;
}

/** What a deploy for these objects is given: the subnets' discovery tags and the node role its node classes name. */
export function deployedFor(objects: KubeObject[]): { discoveryTags: Record<string, string>; nodeRoleName?: string } {
  const role = nodeRoleOf(objects);
  return { discoveryTags: selectorTags(objects), ...(role ? { nodeRoleName: role } : {}) };
}

function selectorTags(objects: KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of objects) {
    if (o.kind !== 'EC2NodeClass') continue;
    const spec = (o.spec ?? {}) as Record<string, { tags?: Record<string, string> }[] | undefined>;
    for (const term of [...(spec.subnetSelectorTerms ?? []), ...(spec.securityGroupSelectorTerms ?? [])]) {
      for (const [k, v] of Object.entries(term.tags ?? {})) if (!(k in out)) out[k] = v === '*' ? 'true' : String(v);
    }
  }
  return out;
}
