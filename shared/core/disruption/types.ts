/** Inputs and outputs of the disruption core (docs/karpenter-reference.md §4): one decision per pass plus an audit trail. */
import type { InstanceType } from '../instance-types/types';
import type { Node, Pod } from '../model/kube';
import type { DisruptionReason, NodeClaim, NodePool } from '../model/karpenter';
import type { CapacityTypeValue } from '../model/labels';
import type { AuditRecord, ClusterSnapshot } from '../ports';
import type { Clock } from '../ports/clock';
import type { PlannedNodeClaim } from '../scheduling/types';
import type { EpochMs } from '../time';
import type { MoveScore } from './balanced';
import type { LpSolver } from '../ports/lp-solver';

export type DisruptionMethod = 'emptiness' | 'drift' | 'multi-node' | 'single-node' | 'expiration' | 'repair';
type CommandReason = 'empty' | 'drifted' | 'underutilized' | 'expired' | 'unhealthy';
/** The NodePool budget reason a command reason counts against (expiration has none). */
export const BudgetReasonOf = { empty: 'Empty', drifted: 'Drifted', underutilized: 'Underutilized' } as const;

export interface DisruptionOptions {
  /** Karpenter's SpotToSpotConsolidation feature gate (default false). */
  spotToSpotConsolidation?: boolean;
  /** Nodes a pending pod was planned onto recently (provisioner nominations); never candidates. */
  nominatedNodes?: readonly string[];
  /** Optional time source to bound the search (multi-node 1 min, single-node 3 min, as Karpenter). */
  clock?: Pick<Clock, 'now'>;
  multiNodeTimeoutMs?: number;
  singleNodeTimeoutMs?: number;
  /**
   * The NodeClaim a previous pass's single-node search stopped at (its timeout): this pass's search starts there and
   * wraps around, so on a cluster too large to search in one pass every candidate is evaluated in turn.
   */
  singleNodeResumeAt?: string;
  /** Karpenter's multi-node cap (100). */
  maxMultiNodeCandidates?: number;
  /** Try replacing several nodes by several cheaper ones (nodewright extension, default true). */
  multiReplacement?: boolean;
}

export interface DisruptionInput {
  snapshot: ClusterSnapshot;
  /** Instance types per NodePool (ICE cache applied), used for candidate prices and replacements. */
  instanceTypes: Record<string, InstanceType[]>;
  now: EpochMs;
  /** Cloud-provider drift (AMI, subnet, security group …) by NodeClaim name → reason, e.g. "AMIDrift". */
  drifted?: Record<string, string>;
  options?: DisruptionOptions;
  /** The LP solver when the function has it: consolidation re-packs replacements with it (else the heuristic). */
  lp?: LpSolver;
}

export interface Candidate {
  nodeClaim: NodeClaim;
  node: Node;
  nodePool: NodePool;
  instanceType: string;
  capacityType: CapacityTypeValue;
  zone: string;
  /** USD/h of the node's offering (0 when unknown, e.g. expiration of an unpriced type). */
  price: number;
  /** Pods that must move (not DaemonSet, not static, not terminal, not terminating). */
  pods: Pod[];
  /** Karpenter's disruption cost (docs/karpenter-reference.md §4.2); lower goes first. */
  disruptionCost: number;
}

export interface Command {
  method: DisruptionMethod;
  reason: CommandReason;
  /** `reboot`: node repair's first action for conditions a reboot can clear (no execution, an EC2 reboot). */
  action: 'delete' | 'replace' | 'reboot';
  candidates: Candidate[];
  replacements: PlannedNodeClaim[];
  /** Σ candidate prices − Σ replacement prices (cheapest option), USD/h. */
  savingsPerHour: number;
  /** Drift reason per candidate (drift only). */
  driftReasons?: Record<string, string>;
  /** Set on multi-node commands that replace by more than one node (nodewright extension). */
  multiReplacement?: boolean;
  /** Node repair: the unhealthy condition, since when, and how long the drain may wait for PDBs. */
  repair?: { condition: string; status: string; since: EpochMs; drainSeconds: number };
  /** consolidationPolicy Balanced: the move's score in each Balanced pool it disrupts (ConsolidationApproved events). */
  scores?: MoveScore[];
}

/** One line of the audit trail; a valid StateStore AuditRecord (kind "disruption"). */
export interface DisruptionAuditRecord extends AuditRecord {
  kind: 'disruption';
  /** "chosen", "rejected", "skipped" (not a candidate) or "expired". */
  action: 'chosen' | 'rejected' | 'skipped' | 'expired';
  detail: { method?: DisruptionMethod | 'candidates'; why: string; [k: string]: unknown };
}

export interface DisruptionDecision {
  /** At most one budgeted command per pass (emptiness → drift → multi-node → single-node). */
  command?: Command;
  /** Forceful deletes of expired claims (no budget, no pre-spin), independent of `command`. */
  expirations: Command[];
  /** Node repair: reboots and replacements of nodes unhealthy past their toleration (budgeted), independent of `command`. */
  repairs: Command[];
  /** Nodes due for repair that may not be repaired now, and why (NodeRepairBlocked events). */
  repairBlocked: { node: string; nodeClaim: string; nodePool: string; why: string }[];
  audit: DisruptionAuditRecord[];
  /** NodePools with nodes whose budget for a reason allows no disruption now (DisruptionBlocked on the NodePool). */
  blockedBudgets: { nodePool: string; reason: DisruptionReason }[];
  /** Nodes eligible for each budgeted method this pass (karpenter_voluntary_disruption_eligible_nodes{reason}). */
  eligible: { empty: number; drifted: number; underutilized: number };
  /**
   * Where the next pass's single-node search starts (its singleNodeResumeAt): the first candidate this pass's search
   * left unevaluated at its timeout; null when the search ended without a timeout; absent when it did not run.
   */
  singleNodeResumeAt?: string | null;
}

export type Validation = { valid: true } | { valid: false; reason: string };
