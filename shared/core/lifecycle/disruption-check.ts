/**
 * The disrupt input checked against the cluster before any side effect (disruption.ts' prepareDisruption):
 * candidates are existing, managed NodeClaims not already being deleted; replacements fit their NodePool.
 */
import { ExecutionInputInvalidError } from '../errors';
import type { InstanceType } from '../instance-types/types';
import type { NodeClaim, NodePool } from '../model/karpenter';
import type { NodeSelectorRequirement } from '../model/kube';
import { Annotation, Finalizer, Label } from '../model/labels';
import type { ClusterSnapshot } from '../ports';

/** What checking a `disrupt` input reads of the cluster: the candidates' claims (and nodes), the pools and classes. */
export type CandidateView = Pick<ClusterSnapshot, 'nodeClaims' | 'nodes' | 'nodePools' | 'nodeClasses' | 'nodeOverlays'>;
import { Requirement, Requirements } from '../scheduling/requirements';
import { offeringMatches, typeMatches } from '../scheduling/template';
import { cheapestAvailablePrice } from './claims';
import { nodeClaimName } from './names';
import type { DisruptInput } from './manual-input';

const MAX_INSTANCE_TYPES = 60;

/** The name of a disruption's `index`-th replacement: derived from the disruption id only. */
export function replacementClaimName(nodePool: string, disruptionId: string, index: number): string {
  return nodeClaimName(nodePool, [`disruption:${disruptionId}`], 0, index);
}

export const invalidDisruptInput = (field: string, message: string) => new ExecutionInputInvalidError(`disrupt execution input ${field}: ${message}`);

/** A NodeClaim nodewright manages: it names a NodePool and an EC2NodeClass. */
function isManaged(claim: NodeClaim): boolean {
  return !!claim.nodePool && claim.spec.nodeClassRef?.group === 'karpenter.k8s.aws' && claim.spec.nodeClassRef.kind === 'EC2NodeClass';
}

/** The pool's template requirements as the scheduler builds them (requirements ∪ labels ∪ nodepool). */
function poolRequirements(pool: NodePool): Requirements {
  const reqs = Requirements.fromNodeSelector(pool.template.requirements);
  for (const [k, v] of Object.entries(pool.template.labels)) reqs.addInPlace(Requirement.in(k, [v]));
  return reqs.addInPlace(Requirement.in(Label.nodePool, [pool.name]));
}

const show = (r: Requirement | undefined) => (r ? JSON.stringify(r.toNodeSelector()) : 'none');

/** The replacement's NodePool: it exists, is not being deleted, is ready, and has the replacement's EC2NodeClass. */
function replacementPool(snapshot: Pick<CandidateView, 'nodePools'>, r: NodeClaim, field: string): NodePool {
  const pool = snapshot.nodePools.find((p) => p.name === r.nodePool);
  if (!pool) throw invalidDisruptInput(`${field}.nodePool`, `nodepool "${r.nodePool}" does not exist`);
  if (pool.deleting) throw invalidDisruptInput(`${field}.nodePool`, `nodepool "${pool.name}" is being deleted`);
  if (pool.ready === false) throw invalidDisruptInput(`${field}.nodePool`, `nodepool "${pool.name}" is not ready`);
  const ref = r.spec.nodeClassRef ?? pool.template.nodeClassRef;
  const want = pool.template.nodeClassRef;
  if (ref.group !== want.group || ref.kind !== want.kind || ref.name !== want.name) {
    throw invalidDisruptInput(
      `${field}.spec.nodeClassRef`,
      `${ref.group}/${ref.kind}/${ref.name} is not nodepool "${pool.name}"'s ${want.group}/${want.kind}/${want.name}`,
    );
  }
  return pool;
}

/** The replacement's own requirements and labels checked against the pool's requirements. */
function checkWithinPool(field: string, pool: NodePool, poolReqs: Requirements, own: Requirements, labels: NodeClaim['labels']): void {
  for (const [key, req] of own.byKey) {
    const p = poolReqs.get(key);
    if (p && !p.intersects(req)) throw invalidDisruptInput(`${field}.spec.requirements`, `${show(req)} is outside nodepool "${pool.name}"'s ${show(p)}`);
  }
  for (const [key, value] of Object.entries(labels ?? {})) {
    const p = poolReqs.get(key);
    if (p && !p.has(value)) throw invalidDisruptInput(`${field}.labels`, `${key}=${value} is outside nodepool "${pool.name}"'s ${show(p)}`);
  }
}

/**
 * The replacement's explicit instance-type list: the listed types (each offered by the pool's EC2NodeClass and
 * satisfying the merged requirements), or the pool's compatible available types cheapest first.
 */
function replacementTypes(field: string, pool: NodePool, poolReqs: Requirements, merged: Requirements, catalog: InstanceType[]): string[] {
  const fits = (it: InstanceType) => typeMatches(it, merged) && it.offerings.some((o) => offeringMatches(o, merged));
  const listed = merged.get(Label.instanceType);
  let types: string[];
  if (listed && !listed.complement && listed.gte === undefined && listed.lte === undefined) {
    types = [...listed.values].sort();
    const unknown = types.filter((t) => !catalog.some((it) => it.name === t));
    if (unknown.length)
      throw invalidDisruptInput(
        `${field}.spec.requirements`,
        `instance type(s) ${unknown.join(', ')} are not offered by nodepool "${pool.name}"'s ec2nodeclass`,
      );
    const outside = types.filter((t) => !fits(catalog.find((it) => it.name === t)!));
    if (outside.length)
      throw invalidDisruptInput(
        `${field}.spec.requirements`,
        `instance type(s) ${outside.join(', ')} do not satisfy nodepool "${pool.name}"'s requirements (${poolReqs
          .toNodeSelector()
          .map((x) => JSON.stringify(x))
          .join(', ')})`,
      );
  } else {
    types = catalog
      .filter(fits)
      .filter((it) => it.offerings.some((o) => o.available))
      .sort((a, b) => cheapestAvailablePrice(a) - cheapestAvailablePrice(b) || a.name.localeCompare(b.name))
      .slice(0, MAX_INSTANCE_TYPES)
      .map((it) => it.name);
    if (types.length === 0) throw invalidDisruptInput(`${field}.spec.requirements`, `no instance type of nodepool "${pool.name}" satisfies them`);
  }
  return types;
}

/**
 * One replacement checked against its pool (pure) and rewritten: the name and annotation of this disruption,
 * the pool's requirements intersected in (a key the replacement leaves open is the pool's), an explicit
 * instance-type list (the listed types, or the pool's compatible types cheapest first), the pool's taints, annotations and
 * labels, a fresh status. Throws ExecutionInputInvalidError on anything outside the pool.
 */
export function checkReplacement(
  snapshot: Pick<CandidateView, 'nodePools'>,
  typesByPool: Record<string, InstanceType[]>,
  r: NodeClaim,
  index: number,
  disruptionId: string,
): NodeClaim {
  const field = `replacements[${index}]`;
  const pool = replacementPool(snapshot, r, field);
  const poolReqs = poolRequirements(pool);
  const own = Requirements.fromNodeSelector(r.spec.requirements as NodeSelectorRequirement[]);
  checkWithinPool(field, pool, poolReqs, own, r.labels);
  const merged = poolReqs.intersect(own);
  const types = replacementTypes(field, pool, poolReqs, merged, typesByPool[pool.name] ?? []);
  const requirements = [...merged.byKey.values()].filter((x) => x.key !== Label.instanceType).map((x) => x.toNodeSelector());
  requirements.push({ key: Label.instanceType, operator: 'In', values: types });
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    name: replacementClaimName(pool.name, disruptionId, index),
    labels: { ...r.labels, ...pool.template.labels, [Label.nodePool]: pool.name },
    annotations: { ...pool.template.annotations, ...r.annotations, [Annotation.disruptionId]: disruptionId },
    nodePool: pool.name,
    spec: {
      ...r.spec,
      taints: pool.template.taints,
      startupTaints: pool.template.startupTaints,
      requirements,
      resources: r.spec.resources ?? { requests: {} },
      nodeClassRef: pool.template.nodeClassRef,
      expireAfter: r.spec.expireAfter ?? pool.template.expireAfter,
      terminationGracePeriod: r.spec.terminationGracePeriod ?? pool.template.terminationGracePeriod,
    },
    status: { conditions: [] },
    creationTimestamp: r.creationTimestamp,
    finalizers: [Finalizer.termination],
  };
}

/** Candidates checked (exist, managed, not being deleted, node is their own); returns them with their node. */
export function checkCandidates(snapshot: Pick<CandidateView, 'nodeClaims' | 'nodes'>, candidates: DisruptInput['candidates']): DisruptInput['candidates'] {
  const seen = new Set<string>();
  return candidates.map((c, i) => {
    const field = `candidates[${i}]`;
    if (seen.has(c.nodeClaimName)) throw invalidDisruptInput(field, `nodeclaim "${c.nodeClaimName}" is listed twice`);
    seen.add(c.nodeClaimName);
    const claim = snapshot.nodeClaims.find((x) => x.name === c.nodeClaimName);
    if (!claim) throw invalidDisruptInput('candidates', `nodeclaim "${c.nodeClaimName}" does not exist`);
    if (!isManaged(claim)) throw invalidDisruptInput(field, `nodeclaim "${c.nodeClaimName}" is not managed by nodewright (no nodepool or EC2NodeClass)`);
    if (claim.deletionTimestamp !== undefined) throw invalidDisruptInput(field, `nodeclaim "${c.nodeClaimName}" is already being deleted`);
    const nodeName =
      claim.status.nodeName ?? (claim.status.providerID ? snapshot.nodes.find((n) => n.providerID === claim.status.providerID)?.name : undefined);
    if (c.nodeName !== undefined && c.nodeName !== nodeName) {
      throw invalidDisruptInput(
        `${field}.nodeName`,
        `node "${c.nodeName}" is not nodeclaim "${c.nodeClaimName}"'s node (${nodeName ? `that is "${nodeName}"` : 'it has none yet'})`,
      );
    }
    return { nodeClaimName: c.nodeClaimName, ...(nodeName ? { nodeName } : {}) };
  });
}
