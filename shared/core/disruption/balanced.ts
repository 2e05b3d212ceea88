/**
 * consolidationPolicy Balanced (Karpenter v1.14, kubernetes-sigs/karpenter designs/balanced-consolidation.md): a
 * consolidation move passes when its share of the NodePool's cost saved, over its share of the NodePool's
 * disruption cost, is at least 1/k. Karpenter fixes k = 2; nodewright reads k per pool from the NodePool's
 * `nodewright.io/balanced-k` annotation. A node's disruption cost is 1 (draining it at all) plus its reschedulable
 * pods' eviction costs, negatives counted as 0; the pool totals are over all of its nodes, candidates or not.
 */
import type { NodePool } from '../model/karpenter';
import type { ClusterView } from './candidates';
import { toCandidate } from './candidates';
import { isReschedulable, podCost } from './pods';
import type { Candidate } from './types';
import type { Pod } from '../model/kube';

/** Karpenter's k for Balanced. */
const BalancedK = 2;
const PerNodeBaseDisruptionCost = 1;

/** 1 + Σ max(0, eviction cost) over the pods that would be rescheduled (Karpenter's RescheduleDisruptionCost). */
function rescheduleDisruptionCost(pods: readonly Pod[]): number {
  let cost = PerNodeBaseDisruptionCost;
  for (const p of pods) cost += Math.max(0, podCost(p));
  return cost;
}

export interface PoolTotals {
  /** Σ $/h of the pool's nodes. */
  cost: number;
  /** Σ of its nodes' disruption costs. */
  disruption: number;
}

export interface MoveScore {
  nodePool: string;
  k: number;
  savingsFraction: number;
  disruptionFraction: number;
  score: number;
  approved: boolean;
}

/** The k a pool's moves are scored with, or undefined when its policy is not Balanced. */
function balancedK(pool: NodePool): number | undefined {
  return pool.disruption.consolidationPolicy === 'Balanced' ? (pool.disruption.balancedK ?? BalancedK) : undefined;
}

export function poolTotals(view: ClusterView): Map<string, PoolTotals> {
  const out = new Map<string, PoolTotals>();
  for (const v of view.views) {
    if (!v.pool || balancedK(v.pool) === undefined) continue;
    const t = out.get(v.pool.name) ?? { cost: 0, disruption: 0 };
    const c = toCandidate(view, v, true);
    if (typeof c !== 'string') t.cost += c.price;
    t.disruption += rescheduleDisruptionCost(typeof c === 'string' ? v.pods.filter(isReschedulable) : c.pods);
    out.set(v.pool.name, t);
  }
  return out;
}

function score(nodePool: string, k: number, savings: number, disruption: number, totals: PoolTotals | undefined): MoveScore {
  const sf = totals && totals.cost > 0 ? savings / totals.cost : 0;
  const df = totals && totals.disruption > 0 ? disruption / totals.disruption : 0;
  const s = sf <= 0 ? 0 : df === 0 ? Infinity : sf / df;
  return { nodePool, k, savingsFraction: sf, disruptionFraction: df, score: s, approved: s >= 1 / k };
}

/** Per Balanced pool among the candidates, the move's score; net savings are shared by each pool's part of the cost removed. */
export function scoreMove(totals: Map<string, PoolTotals>, candidates: readonly Candidate[], savingsPerHour: number): MoveScore[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of candidates) byPool.set(c.nodePool.name, [...(byPool.get(c.nodePool.name) ?? []), c]);
  const removed = candidates.reduce((s, c) => s + c.price, 0);
  const out: MoveScore[] = [];
  for (const [name, cs] of byPool) {
    const k = balancedK(cs[0].nodePool);
    if (k === undefined) continue;
    const poolCost = cs.reduce((s, c) => s + c.price, 0);
    const savings = byPool.size > 1 && removed > 0 ? savingsPerHour * (poolCost / removed) : savingsPerHour;
    const disruption = cs.reduce((s, c) => s + rescheduleDisruptionCost(c.pods), 0);
    out.push(score(name, k, savings, disruption, totals.get(name)));
  }
  return out;
}

/** A delete saves the whole node and is the best any move of it can score: when even that fails, nothing will pass. */
export function canPassThreshold(totals: Map<string, PoolTotals>, c: Candidate): MoveScore | undefined {
  const k = balancedK(c.nodePool);
  if (k === undefined) return undefined;
  return score(c.nodePool.name, k, c.price, rescheduleDisruptionCost(c.pods), totals.get(c.nodePool.name));
}

/** Karpenter's event wording: "score 3.33 >= threshold 0.50 (k: 2, savings 12.5%, disruption 3.8%)". */
export function describeScore(s: MoveScore): string {
  const k = Number.isInteger(s.k) ? String(s.k) : s.k.toFixed(2);
  const shown = s.score === Infinity ? '+Inf' : s.score.toFixed(2);
  return `score ${shown} ${s.approved ? '>=' : '<'} threshold ${(1 / s.k).toFixed(2)} (k: ${k}, savings ${(s.savingsFraction * 100).toFixed(1)}%, disruption ${(s.disruptionFraction * 100).toFixed(1)}%)`;
}
