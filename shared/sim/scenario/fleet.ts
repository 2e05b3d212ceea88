/**
 * A scenario's `fleet`: nodes already running at t=0, as a deployed nodewright leaves them after launching them —
 * without simulating each launch. Each node goes through the production code that makes it, in process and with
 * no HTTP: the NodeClaim is planned and built as the provisioner builds a claim (staticNodeClaim,
 * plannedClaimToNodeClaim: requirements, requests, nodepool hash, finalizer, owner), the instance is launched by
 * the production Ec2CloudProvider (CreateFleet with its tags and launch template, against the simulated EC2),
 * the claim gets the labels, annotations and status launch, registration and initialization write
 * (launchedClaimLabels / launchedClaimAnnotations, registeredNodePatch, conditions), and the Node is the simulated
 * kubelet's (nodeObjectFor) with registration's patch applied and the initialized label. DaemonSet pods are then
 * made by the simulated DaemonSet controller. Objects are written straight into the store (schema-validated).
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { SSMClient } from '@aws-sdk/client-ssm';
import { awsClientConfig } from '../../adapters/aws/client-config';
import { Ec2CloudProvider } from '../../adapters/aws/ec2';
import { describeCluster } from '../../adapters/aws/eks/describe-cluster';
import { InstanceProfiles } from '../../adapters/aws/iam/instance-profiles';
import { MemoryStateStore } from '../../adapters/aws/state-store';
import type { InstanceType } from '../../core/instance-types/types';
import { condition, instanceTypesForClaim } from '../../core/lifecycle/claims';
import { launchedClaimAnnotations, launchedClaimLabels } from '../../core/lifecycle/launch';
import { nodeClaimName } from '../../core/lifecycle/names';
import { registeredNodePatch } from '../../core/lifecycle/registration';
import { daemonSetFromKube, nodeClaimToKube, nodeClassFromKube, nodeFromKube, nodePoolFromKube } from '../../core/model/from-kube';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../core/model/karpenter';
import type { DaemonSet, Taint } from '../../core/model/kube';
import { Label } from '../../core/model/labels';
import { plannedClaimToNodeClaim } from '../../core/provisioning/from-snapshot';
import { staticNodeClaim } from '../../core/scheduling/static-claim';
import type { PlannedNodeClaim } from '../../core/scheduling/types';
import { epochMs } from '../../core/time';
import { kubeTypes } from '../cluster/kube-objects';
import { nodeObjectFor, reconcileDaemonSets } from '../cluster';
import type { KubeObject } from '../kube/types';
import { fleetZones, type FleetEntry } from './fleet-check';
import type { Scenario } from './schema';
import type { SimWorld } from './world';
import { KarpenterExtraConditions, karpenterClaimAnnotations, karpenterClaimName, stampKarpenterHashes } from './karpenter-made';

class FleetSeedError extends Error {
  override readonly name = 'FleetSeedError' as const;
}

/** What one (entry, zone) launches: the claim as planned, and the instance types its launch is offered. */
interface Template {
  planned: PlannedNodeClaim;
  pool: NodePool;
  nodeClass: EC2NodeClass;
  /** Every type of the node class, as the launch function reads them (instanceTypesForClaim narrows them). */
  types: InstanceType[];
  launchTypes?: InstanceType[];
}

interface Seeding {
  world: SimWorld;
  provider: Ec2CloudProvider;
  pools: Map<string, NodePool>;
  classes: Map<string, EC2NodeClass>;
  daemonSets: DaemonSet[];
  typesByClass: Map<string, InstanceType[]>;
  names: Set<string>;
}

const read = <T>(world: SimWorld, apiVersion: string, kind: string, map: (o: never) => T): T[] =>
  world.api.store.scan(world.api.store.typeOf(apiVersion, kind)).map((o) => map(structuredClone(o) as never));

/** The production cloud provider, on the simulated AWS in this process (EC2, SSM, IAM, EKS mocks), with no ICE marks. */
function cloudProvider(world: SimWorld, s: Pick<Scenario, 'clusterName' | 'region'>): Ec2CloudProvider {
  const config = awsClientConfig(s.region);
  const now = () => world.clock.now();
  return new Ec2CloudProvider({
    ec2: new EC2Client(config),
    ssm: new SSMClient(config),
    clusterName: s.clusterName,
    region: s.region,
    stateStore: new MemoryStateStore({ now: () => epochMs(now()) }),
    clock: { now: () => epochMs(now()) },
    catalog: world.ec2.catalog(),
    cluster: () => describeCluster(new EKSClient(config), s.clusterName),
    instanceProfiles: new InstanceProfiles({ iam: new IAMClient(config), clusterName: s.clusterName, region: s.region, now }),
  });
}

/** The entry's claim for one zone, planned once: the pool's requirements narrowed to the type, zone and capacity type. */
async function template(seed: Seeding, e: FleetEntry, index: number, zone: string): Promise<Template> {
  const pool = seed.pools.get(e.nodePool)!;
  const nodeClass = seed.classes.get(pool.template.nodeClassRef.name)!;
  let types = seed.typesByClass.get(nodeClass.name);
  if (!types) seed.typesByClass.set(nodeClass.name, (types = await seed.provider.instanceTypes(nodeClass, pool)));
  const type = types.find((t) => t.name === e.instanceType);
  if (!type)
    throw new FleetSeedError(`fleet.${index}.instanceType: EC2NodeClass "${nodeClass.name}" offers no ${e.instanceType} (no AMI for its architecture?)`);
  const narrowed: NodePool = {
    ...pool,
    template: {
      ...pool.template,
      requirements: [
        ...pool.template.requirements,
        { key: Label.instanceType, operator: 'In', values: [e.instanceType] },
        { key: Label.zone, operator: 'In', values: [zone] },
        { key: Label.capacityType, operator: 'In', values: [e.capacityType] },
      ],
    },
  };
  const planned = staticNodeClaim(narrowed, [type], seed.daemonSets);
  if (typeof planned === 'string') throw new FleetSeedError(`fleet.${index}: ${planned} (${e.instanceType} in ${zone}, ${e.capacityType})`);
  return { planned, pool, nodeClass, types };
}

function uniqueName(seed: Seeding, pool: string, index: number, k: number, nowMs: number): string {
  let name = nodeClaimName(pool, [`fleet-${index}-${k}`], nowMs, k);
  for (let n = 1; seed.names.has(name); n++) name = nodeClaimName(pool, [`fleet-${index}-${k}-${n}`], nowMs, k);
  seed.names.add(name);
  return name;
}

const toKubeTaint = (t: Taint) => (t.value !== undefined ? { key: t.key, value: t.value, effect: t.effect } : { key: t.key, effect: t.effect });

/** One node: launched through the production provider, its NodeClaim and Node written as after initialization. */
async function seedNode(seed: Seeding, t: Template, name: string, byKarpenter: boolean): Promise<void> {
  const { world } = seed;
  const store = world.api.store;
  const types = kubeTypes(store);
  const now = epochMs(world.clock.now());
  const nowIso = store.timestamp();
  const planned = plannedClaimToNodeClaim(t.planned, name, now, t.pool);
  t.launchTypes ??= instanceTypesForClaim(planned, t.types);
  const launched = await seed.provider.create({ nodeClaim: planned, nodePool: t.pool, nodeClass: t.nodeClass, instanceTypes: t.launchTypes });
  const instance = world.ec2.instances.get(launched.instanceId)!;
  world.ec2.markRunning(instance);
  const type = t.launchTypes.find((it) => it.name === launched.instanceType);
  const claim: NodeClaim = {
    ...planned,
    labels: launchedClaimLabels(planned, type, launched),
    annotations: { ...planned.annotations, ...launchedClaimAnnotations(t.nodeClass) },
  };
  if (byKarpenter) claim.annotations = karpenterClaimAnnotations(claim, t.pool, t.nodeClass);
  const created = store.create(types.nodeClaim, undefined, nodeClaimToKube(claim) as KubeObject);
  claim.uid = created.metadata.uid as string;
  const nodeObject = nodeObjectFor(world.ec2, instance, nowIso);
  const node = nodeFromKube(nodeObject as never);
  const patch = registeredNodePatch(node, claim);
  // Initialized: whatever removes the startup taints (a CNI, a device plugin) has done so.
  const startup = claim.spec.startupTaints;
  const meta = nodeObject.metadata;
  const labels = Object.entries({ ...patch.labels, [Label.initialized]: 'true' }).filter((kv): kv is [string, string] => kv[1] !== null);
  meta.labels = { ...meta.labels, ...Object.fromEntries(labels) };
  const annotations = Object.entries(patch.annotations ?? {}).filter((kv): kv is [string, string] => kv[1] !== null);
  meta.annotations = { ...meta.annotations, ...Object.fromEntries(annotations) };
  if (patch.finalizers) meta.finalizers = patch.finalizers;
  if (patch.ownerReferences) meta.ownerReferences = patch.ownerReferences.map((r) => ({ ...r }));
  const taints = (patch.taints ?? []).filter((x) => !startup.some((s) => s.key === x.key && s.effect === x.effect));
  nodeObject.spec = { ...nodeObject.spec, taints: taints.map(toKubeTaint) };
  store.create(types.node, undefined, nodeObject);
  claim.status = {
    providerID: launched.providerID,
    ...(launched.imageId ? { imageID: launched.imageId } : {}),
    nodeName: node.name,
    capacity: node.capacity,
    allocatable: node.allocatable,
    conditions: ['Launched', 'Registered', 'Initialized', 'Ready', ...(byKarpenter ? KarpenterExtraConditions : [])].map((c) => condition(c, 'True', now)),
  };
  store.update(types.nodeClaim, undefined, name, { ...created, status: nodeClaimToKube(claim).status } as KubeObject, { subresource: 'status' });
}

/**
 * Seeds the scenario's fleet into the world, after its objects are applied and before anything runs (no fault is
 * injected meanwhile). Entries in order; each entry's nodes round-robin over its zones. Returns the nodes seeded.
 */
export async function seedFleet(world: SimWorld, s: Pick<Scenario, 'fleet' | 'clusterName' | 'region' | 'zones'>): Promise<number> {
  if (s.fleet.length === 0) return 0;
  const seed: Seeding = {
    world,
    provider: cloudProvider(world, s),
    pools: new Map(read(world, 'karpenter.sh/v1', 'NodePool', nodePoolFromKube).map((p) => [p.name, p])),
    classes: new Map(read(world, 'karpenter.k8s.aws/v1', 'EC2NodeClass', nodeClassFromKube).map((c) => [c.name, c])),
    daemonSets: read(world, 'apps/v1', 'DaemonSet', daemonSetFromKube),
    typesByClass: new Map(),
    names: new Set(world.api.store.scan(kubeTypes(world.api.store).nodeClaim).map((c) => c.metadata.name as string)),
  };
  let seeded = 0;
  const karpenterPools = s.fleet
    .filter((e) => e.launchedBy === 'karpenter')
    .map((e) => seed.pools.get(e.nodePool)!)
    .filter(Boolean);
  stampKarpenterHashes(world, karpenterPools, karpenterPools.map((p) => seed.classes.get(p.template.nodeClassRef.name)!).filter(Boolean));
  await world.faults.without(async () => {
    for (const [index, e] of s.fleet.entries()) {
      const pool = seed.pools.get(e.nodePool);
      if (!pool || !seed.classes.has(pool.template.nodeClassRef.name))
        throw new FleetSeedError(`fleet.${index}.nodePool: NodePool "${e.nodePool}" or its EC2NodeClass is not in the cluster`);
      const zones = fleetZones(e, pool, s.zones);
      const templates = new Map<string, Template>();
      for (let k = 0; k < e.count; k++) {
        const zone = zones[k % zones.length];
        let t = templates.get(zone);
        if (!t) templates.set(zone, (t = await template(seed, e, index, zone)));
        const byKarpenter = e.launchedBy === 'karpenter';
        const name = byKarpenter ? karpenterClaimName(pool.name, seed.names, index, k) : uniqueName(seed, pool.name, index, k, world.clock.now());
        await seedNode(seed, t, name, byKarpenter);
        seeded++;
      }
    }
  });
  reconcileDaemonSets(world.api.store);
  return seeded;
}
