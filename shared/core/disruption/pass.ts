/**
 * One disruption pass: which nodes are candidates for which method (with the reason for every node that is
 * not), the audit trail, and the search deadlines.
 */
import type { EC2NodeClass } from '../model/karpenter';
import {
  consolidatable,
  consolidationCheck,
  isDisrupting,
  nodeCheck,
  podCheck,
  toCandidate,
  byDisruptionCost,
  type ClusterView,
  type NodeView,
} from './candidates';
import { canPassThreshold, describeScore, type MoveScore, poolTotals, type PoolTotals, scoreMove } from './balanced';
import { driftedSince, driftReason } from './drift';
import { isStatic } from '../scheduling/static-claim';
import type { Candidate, Command, DisruptionAuditRecord, DisruptionMethod } from './types';
import type { EpochMs } from '../time';

export interface DriftedCandidate {
  candidate: Candidate;
  reason: string;
  since: EpochMs;
}

type Who = { nodeClaim: { name: string }; node: { name: string } };

export class Pass {
  readonly audit: DisruptionAuditRecord[] = [];
  /** Empty or not, consolidateAfter elapsed, pods not blocking, priced. */
  readonly consolidatable: Candidate[] = [];
  /** Non-empty consolidatable candidates under WhenEmptyOrUnderutilized, cheapest to disrupt first. */
  readonly underutilized: Candidate[] = [];
  readonly drifted: DriftedCandidate[] = [];
  readonly spotToSpot: boolean;
  /** The first candidate single-node consolidation left unevaluated at its timeout; null once it ran without one. */
  singleNodeResumeAt?: string | null;
  private readonly starts = new Map<string, number>();
  private budgeted?: Candidate[];
  private totals?: Map<string, PoolTotals>;

  constructor(
    readonly view: ClusterView,
    excluded: ReadonlySet<string>,
  ) {
    this.spotToSpot = view.input.options?.spotToSpotConsolidation === true;
    const classes = new Map<string, EC2NodeClass>(view.input.snapshot.nodeClasses.map((c) => [c.name, c]));
    for (const v of view.views) {
      if (excluded.has(v.claim.name) || isDisrupting(v)) continue;
      const nc = nodeCheck(view, v);
      if (nc) {
        this.record('skipped', 'candidates', [this.who(v)], nc);
        continue;
      }
      const pool = v.pool!;
      const dr = driftReason(v, pool, classes.get(pool.template.nodeClassRef.name), view.input.drifted);
      if (dr) this.addDrifted(v, dr);
      if (isStatic(pool)) {
        this.record('skipped', 'candidates', [this.who(v)], `static NodePool (replicas ${pool.replicas}): its nodes are not consolidated`);
        continue;
      }
      const dnc = consolidationCheck(v);
      if (dnc) {
        this.record('skipped', 'candidates', [this.who(v)], dnc);
        continue;
      }
      const block = podCheck(view, v, false);
      if (block) {
        this.record('skipped', 'candidates', [this.who(v)], block.why, { deadlock: block.deadlock, blocker: block.kind });
        continue;
      }
      const c = toCandidate(view, v);
      if (typeof c === 'string') {
        this.record('skipped', 'candidates', [this.who(v)], c);
        continue;
      }
      const notYet = consolidatable(v, view.input.now);
      if (notYet) {
        this.record('skipped', 'candidates', [this.who(v)], notYet);
        continue;
      }
      if (c.pods.length > 0 && pool.disruption.consolidationPolicy === 'WhenEmpty') {
        this.record('skipped', 'candidates', [this.who(v)], 'consolidationPolicy WhenEmpty and the node is not empty');
        continue;
      }
      this.consolidatable.push(c);
      if (c.pods.length > 0) this.underutilized.push(c);
    }
    this.underutilized.sort(byDisruptionCost);
  }

  private addDrifted(v: NodeView, reason: string): void {
    const block = podCheck(this.view, v, true);
    if (block) {
      this.record('rejected', 'drift', [this.who(v)], block.why, { drift: reason, deadlock: block.deadlock, blocker: block.kind });
      return;
    }
    const c = toCandidate(this.view, v, true);
    if (typeof c === 'string') {
      this.record('rejected', 'drift', [this.who(v)], c, { drift: reason });
      return;
    }
    this.drifted.push({ candidate: c, reason, since: driftedSince(v, this.view.input.now) });
  }

  private who(v: NodeView): Who {
    return { nodeClaim: v.claim, node: v.node };
  }

  record(
    action: DisruptionAuditRecord['action'],
    method: DisruptionMethod | 'candidates',
    who: Who[],
    why: string,
    extra: Record<string, unknown> = {},
    savingsPerHour?: number,
    reason?: string,
  ): void {
    this.audit.push({
      at: this.view.input.now,
      kind: 'disruption',
      action,
      ...(reason ? { reason } : {}),
      nodeClaims: who.map((w) => w.nodeClaim.name),
      nodes: who.map((w) => w.node.name),
      ...(savingsPerHour !== undefined ? { savingsPerHour } : {}),
      detail: { method, why, ...extra },
    });
  }

  reject(method: DisruptionMethod, cs: Candidate[], why: string, extra: Record<string, unknown> = {}): void {
    this.record('rejected', method, cs, why, extra);
  }

  note(method: DisruptionMethod, cs: Candidate[], why: string): void {
    this.record('rejected', method, cs, `considered: ${why}`, { considered: true });
  }

  choose(cmd: Command, why: string, action: 'chosen' | 'expired' = 'chosen'): void {
    this.record(
      action,
      cmd.method,
      cmd.candidates,
      why,
      {
        action: cmd.action,
        replacements: cmd.replacements.map((r) => ({
          nodePool: r.nodePool,
          capacityType: r.capacityType,
          instanceTypes: r.instanceTypes.slice(0, 10).map((t) => t.name),
          price: r.price,
        })),
        candidates: cmd.candidates.map((c) => ({
          nodeClaim: c.nodeClaim.name,
          instanceType: c.instanceType,
          capacityType: c.capacityType,
          zone: c.zone,
          price: c.price,
          pods: c.pods.length,
        })),
        ...(cmd.driftReasons ? { drift: cmd.driftReasons } : {}),
        ...(cmd.multiReplacement ? { multiReplacement: true } : {}),
      },
      cmd.savingsPerHour,
      cmd.reason,
    );
  }

  /** consolidationPolicy Balanced: the move's scores (none when no candidate's pool is Balanced), and why one rejects it. */
  balanced(cs: Candidate[], savingsPerHour: number): { scores: MoveScore[]; why?: string } {
    this.totals ??= poolTotals(this.view);
    const scores = scoreMove(this.totals, cs, savingsPerHour);
    const bad = scores.find((x) => !x.approved);
    return bad ? { scores, why: `Balanced: ${describeScore(bad)} in NodePool ${bad.nodePool}` } : { scores };
  }

  /** Why no move of this candidate can pass its Balanced pool (even deleting it scores too low), or undefined. */
  balancedHopeless(c: Candidate): string | undefined {
    this.totals ??= poolTotals(this.view);
    const best = canPassThreshold(this.totals, c);
    return best && !best.approved ? `Balanced: even deleting it would score ${describeScore(best)}` : undefined;
  }

  /** Underutilized candidates within the Underutilized budget, at most `cap` (computed once per pass). */
  budgetedUnderutilized(take: (list: Candidate[]) => Candidate[]): Candidate[] {
    this.budgeted ??= take(this.underutilized);
    return this.budgeted;
  }

  /** True once the method's search ran past its timeout (only with an injected clock). */
  expired(kind: 'multi' | 'single'): boolean {
    const clock = this.view.input.options?.clock;
    if (!clock) return false;
    const now = clock.now();
    const start = this.starts.get(kind) ?? now;
    this.starts.set(kind, start);
    const limit = kind === 'multi' ? (this.view.input.options?.multiNodeTimeoutMs ?? 60_000) : (this.view.input.options?.singleNodeTimeoutMs ?? 180_000);
    return now - start > limit;
  }
}
