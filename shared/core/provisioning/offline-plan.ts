/**
 * `nodewright plan`: what the provisioner would launch for a set of manifests, with no cluster and no AWS.
 * Every pod without spec.nodeName (and not owned by a DaemonSet) is pending; pods with a nodeName run there.
 */
import { resolveBuffer, type BufferLookup } from '../buffers/resolve';
import type { ResolvedBuffer } from '../model/capacity-buffer';
import { virtualPods } from '../buffers/virtual-pods';
import { applyOverlays, resolveOverlays } from '../instance-types/overlays';
import { buildInstanceTypes } from '../instance-types/build';
import { FALLBACK_PRICE_REGION } from '../instance-types/offerings';
import type { CatalogEntry, InstanceType } from '../instance-types/types';
import type { ManifestSet } from '../model/manifests';
import type { EC2NodeClass } from '../model/karpenter';
import { legacyAnnotationWarnings } from '../model/legacy-annotations';
import type { ClusterSnapshot } from '../ports/cluster-client';
import { solve } from '../scheduling/solve';
import { isStatic, staticNodeClaim } from '../scheduling/static-claim';
import type { ExistingNode, Plan, PlannedNodeClaim, SchedulingInput, SchedulingOptions } from '../scheduling/types';
import { Label } from '../model/labels';
import { existingNodesFromSnapshot, minAllocatable } from './from-snapshot';

export interface OfflinePlanOptions {
  region: string;
  /** Zones to offer; default: the node class's resolved subnets, else <region>a/b/c. */
  zones?: string[];
  /**
   * Replaces the catalog (`--instance-types FILE.json`), for every pool: the types as built for the pool's node class
   * (its kubelet, AMI family and block devices apply to catalog-form entries, as to bundled types).
   */
  instanceTypes?: (nodeClass: EC2NodeClass | undefined) => InstanceType[];
  catalog: CatalogEntry[];
  /** Instance types and prices from AWS, replacing the catalog's (still used for what AWS did not answer). */
  aws?: AwsPlanInputs;
  scheduling?: SchedulingOptions;
}

export interface OfflinePlan {
  plan: Plan;
  pending: ManifestSet['pods'];
  warnings: string[];
  /** NodePools that could not be used, with why. */
  unusablePools: { nodePool: string; reason: string }[];
  /** What the plan was computed from (for explanations). */
  input: SchedulingInput;
  /** Where its prices come from: the bundled list prices of the region, or estimates. */
  pricing: PlanPricing;
  /** Static NodePools (spec.replicas): the nodes they keep, what would be launched or removed to get there. */
  staticPools: StaticPoolPlan[];
  /** The input's CapacityBuffers, resolved against its PodTemplates and workloads. */
  buffers: ResolvedBuffer[];
}

export interface StaticPoolPlan {
  nodePool: string;
  replicas: number;
  /** Nodes (or live NodeClaims) of the pool in the input. */
  existing: number;
  /** Nodes to launch (capped by limits.nodes); they are in-flight capacity pending pods may use. */
  launch: number;
  /** Nodes a scale-down would remove. */
  remove: number;
  /** What one launched node would be (absent when none can be made, with `reason`). */
  nodeClaim?: PlannedNodeClaim;
  reason?: string;
}

interface PlanPricing {
  region: string;
  /**
   * `aws` when read from the Price List API (`plan --kubeconfig` with AWS credentials); `list` when the bundled catalog
   * has the region's on-demand prices; `estimate` otherwise (us-east-1 list prices).
   */
  onDemand: 'aws' | 'list' | 'estimate';
  /** `aws` when read from DescribeSpotPriceHistory; otherwise nodewright's estimate. */
  spot: 'aws' | 'estimate';
  note?: string;
}

/** Instance types and prices read from AWS for a live plan (the inputs the deployed provider builds its types from). */
export interface AwsPlanInputs {
  /** DescribeInstanceTypes, as catalog entries. */
  entries: CatalogEntry[];
  onDemandPrices?: Record<string, number>;
  spotPrices?: Record<string, number>;
  zonesByType?: Record<string, string[]>;
}

/** AWS region codes: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`, `ap-southeast-7`… */
const REGION_RE = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;

export class PlanRegionInvalidError extends Error {
  override readonly name = 'PlanRegionInvalidError' as const;
}

/** How the catalog prices `region`. Throws PlanRegionInvalidError for a string that is not a region code. */
function planPricing(catalog: readonly CatalogEntry[], region: string, aws?: AwsPlanInputs): PlanPricing {
  if (!REGION_RE.test(region)) throw new PlanRegionInvalidError(`--region: ${JSON.stringify(region)} is not an AWS region code (e.g. us-east-1, eu-west-1)`);
  const listed = catalog.some((e) => e.onDemandUsdPerHour[region] !== undefined);
  if (aws && (aws.onDemandPrices || aws.spotPrices)) {
    const onDemand = aws.onDemandPrices ? 'aws' : listed ? 'list' : 'estimate';
    return { region, onDemand, spot: aws.spotPrices && Object.keys(aws.spotPrices).length ? 'aws' : 'estimate' };
  }
  if (listed) return { region, onDemand: 'list', spot: 'estimate' };
  return {
    region,
    onDemand: 'estimate',
    spot: 'estimate',
    note: `prices for ${region} are estimates: on-demand at the bundled ${FALLBACK_PRICE_REGION} list prices, spot at nodewright's estimate (deployed, nodewright reads the Price List API and DescribeSpotPriceHistory)`,
  };
}

export function snapshotFromManifests(set: ManifestSet): ClusterSnapshot {
  return {
    pods: set.pods,
    nodes: set.nodes,
    nodeClaims: set.nodeClaims,
    nodePools: set.nodePools,
    nodeClasses: set.nodeClasses,
    pdbs: set.pdbs,
    daemonSets: set.daemonSets,
    persistentVolumes: set.persistentVolumes,
    persistentVolumeClaims: set.persistentVolumeClaims,
    storageClasses: set.storageClasses,
    namespaces: set.namespaces,
  };
}

/** A buffer's references among the manifests: PodTemplates and workloads of the set. */
function manifestLookup(set: ManifestSet): BufferLookup {
  return {
    podTemplate: (ns, name) => set.podTemplates.find((t) => t.namespace === ns && t.name === name)?.template,
    scalable: (ns, kind, name) => {
      const w = set.deployments.find((d) => d.kind === kind && d.namespace === ns && d.name === name);
      return w ? { template: w.template, replicas: w.replicas } : undefined;
    },
  };
}

function zonesFor(nodeClass: EC2NodeClass | undefined, opts: OfflinePlanOptions): string[] {
  if (opts.zones?.length) return opts.zones;
  const fromStatus = [...new Set((nodeClass?.status?.subnets ?? []).map((s) => s.zone))];
  if (fromStatus.length) return fromStatus.sort();
  return ['a', 'b', 'c'].map((z) => `${opts.region}${z}`);
}

export function planOffline(set: ManifestSet, opts: OfflinePlanOptions): OfflinePlan {
  const pricing = planPricing(opts.catalog, opts.region, opts.aws);
  const aws = opts.aws;
  const priced = aws
    ? {
        ...(aws.onDemandPrices ? { onDemandPrices: aws.onDemandPrices } : {}),
        ...(aws.spotPrices ? { spotPrices: aws.spotPrices } : {}),
        ...(aws.zonesByType ? { zonesByType: aws.zonesByType } : {}),
      }
    : {};
  const warnings = set.warnings.map((w) => (typeof w === 'string' ? w : JSON.stringify(w)));
  if (pricing.note && !opts.instanceTypes) warnings.push(pricing.note);
  warnings.push(...legacyAnnotationWarnings(set));
  const unusablePools: OfflinePlan['unusablePools'] = [];
  const instanceTypes: Record<string, InstanceType[]> = {};
  for (const pool of set.nodePools) {
    const ref = pool.template.nodeClassRef.name;
    const nodeClass = set.nodeClasses.find((c) => c.name === ref);
    if (!nodeClass && set.nodeClasses.length > 0) {
      unusablePools.push({ nodePool: pool.name, reason: `EC2NodeClass "${ref}" not found` });
      continue;
    }
    if (!nodeClass) warnings.push(`nodepool "${pool.name}": EC2NodeClass "${ref}" is not in the input; using EC2NodeClass defaults (AL2023)`);
    instanceTypes[pool.name] = opts.instanceTypes
      ? opts.instanceTypes(nodeClass)
      : buildInstanceTypes(aws?.entries ?? opts.catalog, { region: opts.region, zones: zonesFor(nodeClass, opts), nodeClass, ...priced });
  }
  const usable = set.nodePools.filter((p) => instanceTypes[p.name] !== undefined);
  if (set.nodeOverlays.length > 0) {
    const overlays = resolveOverlays(set.nodeOverlays, usable, instanceTypes);
    for (const pool of usable) instanceTypes[pool.name] = applyOverlays(overlays, pool.name, instanceTypes[pool.name]);
    for (const [name, r] of overlays.rejected) warnings.push(`nodeoverlay "${name}" is not applied (${r.reason}): ${r.message}`);
    for (const o of set.nodeOverlays)
      if (!overlays.rejected.has(o.name) && !overlays.matched.has(o.name)) warnings.push(`nodeoverlay "${o.name}" matches no instance type of any nodepool`);
  }
  const snapshot = snapshotFromManifests(set);
  const pending = set.pods.filter((p) => !p.nodeName && p.owner?.kind !== 'DaemonSet' && p.deletionTimestamp === undefined);
  const existingNodes = existingNodesFromSnapshot(snapshot, instanceTypes);
  const staticPools = planStaticPools(set, usable, instanceTypes);
  existingNodes.push(...staticPools.flatMap(staticInFlight));
  const input: SchedulingInput = {
    pods: pending,
    nodePools: usable,
    instanceTypes,
    existingNodes,
    daemonSets: set.daemonSets,
    persistentVolumes: set.persistentVolumes,
    persistentVolumeClaims: set.persistentVolumeClaims,
    storageClasses: set.storageClasses,
    namespaces: set.namespaces,
    options: opts.scheduling,
  };
  // CapacityBuffers: their chunks planned as the provisioner plans them (after the pending pods).
  const buffers = set.capacityBuffers.map((b) => resolveBuffer(b, manifestLookup(set)));
  for (const r of buffers) if (r.unresolved) warnings.push(`capacitybuffer "${r.buffer.namespace}/${r.buffer.name}": ${r.unresolved.message}`);
  input.pods = [...input.pods, ...virtualPods(buffers)];
  const plan = solve(input);
  if (unusablePools.length > 0) {
    for (const u of plan.unschedulable) u.reason += `; ${unusablePools.map((p) => `nodepool "${p.nodePool}": ${p.reason}`).join('; ')}`;
  }
  return { plan, pending, warnings, unusablePools, input, pricing, staticPools, buffers };
}

/** Each static pool's replicas against the nodes the manifests hold (claims, else nodes labelled with the pool). */
function planStaticPools(set: ManifestSet, pools: ManifestSet['nodePools'], instanceTypes: Record<string, InstanceType[]>): StaticPoolPlan[] {
  return pools.filter(isStatic).map((pool) => {
    const claims = set.nodeClaims.filter((c) => c.nodePool === pool.name && c.deletionTimestamp === undefined).length;
    const nodes = set.nodes.filter((n) => n.labels[Label.nodePool] === pool.name && n.deletionTimestamp === undefined).length;
    const existing = Math.max(claims, nodes);
    const replicas = pool.replicas!;
    const limit = pool.limits.nodes ?? Infinity;
    const out: StaticPoolPlan = {
      nodePool: pool.name,
      replicas,
      existing,
      launch: Math.max(0, Math.min(replicas, limit) - existing),
      remove: Math.max(0, existing - replicas),
    };
    const claim = staticNodeClaim(pool, instanceTypes[pool.name] ?? [], set.daemonSets);
    if (typeof claim === 'string') {
      out.reason = claim;
      out.launch = 0;
    } else out.nodeClaim = claim;
    return out;
  });
}

/** A static node still to launch, as in-flight capacity (Karpenter: pods may land on static capacity not yet launched). */
function staticInFlight(p: StaticPoolPlan): ExistingNode[] {
  const c = p.nodeClaim;
  if (!c || p.launch === 0) return [];
  const allocatable = minAllocatable(
    c.instanceTypes,
    c.instanceTypes.map((t) => t.name),
  )!;
  return Array.from({ length: p.launch }, (_, i) => {
    const name = `${p.nodePool}-replica-${i + 1}`;
    return {
      name,
      labels: { ...c.labels, [Label.nodePool]: p.nodePool, [Label.hostname]: name },
      taints: c.taints,
      allocatable,
      capacity: allocatable,
      pods: [],
      nodePool: p.nodePool,
      initialized: false,
      inFlight: true,
      price: c.price,
    };
  });
}
