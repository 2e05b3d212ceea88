/** The `nodewright plan -o json` contract (issue #2): other parts of the product and outside checks rely on it. */
import { isVirtualPod } from '../buffers/virtual-pods';
import { podKey } from '../model/kube';
import { formatResourceList } from '../model/resources';
import type { NodeSelectorRequirement } from '../model/kube';
import type { Plan } from '../scheduling/types';
import type { ExistingNode } from '../scheduling/types';
import type { InstanceType } from '../instance-types/types';
import { Label } from '../model/labels';
import type { StaticPoolPlan } from './offline-plan';
import type { RepackReport } from '../scheduling/optimize/repack';

export interface PlanJson {
  nodeClaims: {
    nodePool: string;
    instanceTypes: string[];
    capacityType: string;
    zone: string | null;
    requirements: NodeSelectorRequirement[];
    pods: string[];
    resources: Record<string, string>;
    pricePerHour: number;
    labels: Record<string, string>;
    /**
     * NodeOverlays that shaped the claim's first instance type (added field; absent when none): the overlay whose
     * price `pricePerHour` is, with the EC2 price it replaced, and the overlays that added extended resources.
     */
    overlays?: { price?: { nodeOverlay: string; ec2PricePerHour: number }; capacity?: string[] };
    /** CapacityBuffer chunks (virtual pods) this claim holds room for (added field; absent when none); not in `pods`. */
    bufferPods?: string[];
  }[];
  existingNodes: { name: string; pods: string[] }[];
  unschedulable: { pod: string; reason: string }[];
  summary: { pods: number; scheduled: number; nodeClaims: number; pricePerHour: number; unschedulable: number };
  /**
   * Static NodePools (spec.replicas; added field, absent when there are none): nodes kept, to launch or remove.
   * Their launches are not in `nodeClaims` or the summary; pods planned onto them are under `existingNodes`.
   */
  staticNodePools?: {
    nodePool: string;
    replicas: number;
    existing: number;
    launch: number;
    remove: number;
    instanceTypes: string[];
    capacityType?: string;
    pricePerHour: number;
    reason?: string;
  }[];
  /**
   * The cost optimization over the Karpenter-style plan (added field; absent with --no-optimize or when nothing
   * could move): what the greedy pass would have cost, what the plan costs, and a lower bound on the re-packed
   * part, per group of movable pods.
   */
  optimization?: {
    greedyPricePerHour: number;
    pricePerHour: number;
    groups: {
      nodePool: string;
      pods: number;
      greedyPricePerHour: number;
      pricePerHour: number;
      lowerBoundPerHour: number;
      kept: 'optimized' | 'greedy';
      why?: string;
    }[];
  };
  /** Where the prices come from (added field; absent when unknown). */
  pricing?: { region: string; onDemand: 'aws' | 'list' | 'estimate'; spot: 'aws' | 'estimate'; note?: string };
  /**
   * The nodes running now (added field; absent when there are none): how many, their $/h at the plan's prices (by
   * instance type, zone and capacity type), and how many could not be priced (a type no NodePool offers).
   */
  fleet?: { nodes: number; pricePerHour: number; unpriced: number };
  /**
   * What the disruption function would do now (added field; only for an input with nodes and NodeClaims): nodes
   * eligible per reason, the one budgeted command (reason, method, delete or replace, nodes, replacements, savings),
   * and the nodes expiring.
   */
  consolidation?: {
    eligible: { empty: number; drifted: number; underutilized: number };
    command?: {
      reason: string;
      method: string;
      action: 'delete' | 'replace' | 'reboot';
      nodes: string[];
      replacements: { instanceTypes: string[]; pricePerHour: number }[];
      savingsPerHour: number;
    };
    expiring: string[];
  };
}

/** The running nodes (in-flight claims aside) priced as the plan prices its own claims. */
export function fleetJson(existing: readonly ExistingNode[], instanceTypes: Readonly<Record<string, readonly InstanceType[]>>): PlanJson['fleet'] {
  const running = existing.filter((n) => !n.inFlight);
  if (running.length === 0) return undefined;
  const byName = new Map<string, InstanceType>();
  for (const types of Object.values(instanceTypes)) for (const t of types) if (!byName.has(t.name)) byName.set(t.name, t);
  let price = 0;
  let unpriced = 0;
  for (const n of running) {
    const type = byName.get(n.labels[Label.instanceType] ?? '');
    const capacityType = n.labels[Label.capacityType] ?? 'on-demand';
    const offering =
      type?.offerings.find((o) => o.zone === n.labels[Label.zone] && o.capacityType === capacityType) ??
      type?.offerings.find((o) => o.capacityType === capacityType);
    if (offering) price += offering.price;
    else unpriced++;
  }
  return { nodes: running.length, pricePerHour: round(price), unpriced };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The overlays behind a planned claim's first type: the offering its price came from, and the capacity overlays. */
function overlaysOf(c: Plan['nodeClaims'][number]): Pick<PlanJson['nodeClaims'][number], 'overlays'> {
  const it = c.instanceTypes[0];
  if (!it) return {};
  const offering = it.offerings
    .filter((o) => o.available && o.capacityType === c.capacityType && (c.zone === null || o.zone === c.zone))
    .sort((a, b) => a.price - b.price)[0];
  const price = offering?.priceOverlay ? { nodeOverlay: offering.priceOverlay, ec2PricePerHour: round(offering.basePrice ?? offering.price) } : undefined;
  const capacity = it.capacityOverlays?.length ? it.capacityOverlays : undefined;
  return price || capacity ? { overlays: { ...(price ? { price } : {}), ...(capacity ? { capacity } : {}) } } : {};
}

export function planToJson(
  plan: Plan,
  pendingCount: number,
  existing: ExistingNode[] = [],
  pricing?: PlanJson['pricing'],
  statics: StaticPoolPlan[] = [],
): PlanJson {
  const placed = new Map(plan.existingPlacements.map((e) => [e.node, e.pods.filter((p) => !isVirtualPod(p)).map(podKey)]));
  const nodeClaims = plan.nodeClaims.map((c) => ({
    nodePool: c.nodePool,
    instanceTypes: c.instanceTypes.map((t) => t.name),
    capacityType: c.capacityType,
    zone: c.zone,
    requirements: c.requirements,
    pods: c.pods.filter((p) => !isVirtualPod(p)).map(podKey),
    ...(c.pods.some(isVirtualPod) ? { bufferPods: c.pods.filter(isVirtualPod).map(podKey) } : {}),
    resources: formatResourceList(c.requests),
    pricePerHour: round(c.price),
    labels: c.labels,
    ...overlaysOf(c),
  }));
  const unschedulable = [...plan.unschedulable, ...plan.ignored].filter((u) => !isVirtualPod(u.pod)).map((u) => ({ pod: podKey(u.pod), reason: u.reason }));
  const scheduled = nodeClaims.reduce((n, c) => n + c.pods.length, 0) + [...placed.values()].reduce((n, p) => n + p.length, 0);
  const names = existing.length > 0 ? existing.map((n) => n.name) : [...placed.keys()];
  return {
    nodeClaims,
    existingNodes: names.map((name) => ({ name, pods: placed.get(name) ?? [] })),
    unschedulable,
    summary: {
      pods: pendingCount,
      scheduled,
      nodeClaims: nodeClaims.length,
      pricePerHour: round(nodeClaims.reduce((s, c) => s + c.pricePerHour, 0)),
      unschedulable: unschedulable.length,
    },
    ...(statics.length > 0
      ? {
          staticNodePools: statics.map((s) => ({
            nodePool: s.nodePool,
            replicas: s.replicas,
            existing: s.existing,
            launch: s.launch,
            remove: s.remove,
            instanceTypes: s.nodeClaim?.instanceTypes.map((t) => t.name) ?? [],
            ...(s.nodeClaim ? { capacityType: s.nodeClaim.capacityType } : {}),
            pricePerHour: round(s.nodeClaim?.price ?? 0),
            ...(s.reason ? { reason: s.reason } : {}),
          })),
        }
      : {}),
    ...(pricing ? { pricing } : {}),
  };
}

/** `planPricePerHour`: the (optimized) plan's total, as in `summary`. */
export function optimizationJson(report: RepackReport, planPricePerHour: number): NonNullable<PlanJson['optimization']> {
  const groups = report.groups.map((g) => ({
    nodePool: g.nodePool,
    pods: g.pods,
    greedyPricePerHour: round(g.greedyPerHour),
    pricePerHour: round(g.optimizedPerHour),
    lowerBoundPerHour: round(g.lowerBoundPerHour),
    kept: g.kept,
    ...(g.why ? { why: g.why } : {}),
  }));
  const saved = report.groups.reduce((s, g) => s + g.greedyPerHour - g.optimizedPerHour, 0);
  return { greedyPricePerHour: round(planPricePerHour + saved), pricePerHour: round(planPricePerHour), groups };
}
