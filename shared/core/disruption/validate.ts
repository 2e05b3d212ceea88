/**
 * The validation re-check before acting (docs/karpenter-reference.md §4.4): after the wait, each candidate must still be a
 * candidate (not nominated, not blocked, within budget) and the re-simulation must agree with the command.
 */
import { budgets, clusterView, consolidatable, consolidationCheck, isDisrupting, nodeCheck, podCheck, toCandidate, type ClusterView } from './candidates';
import { computeConsolidation } from './consolidate';
import { driftReason } from './drift';
import { simulate } from './simulate';
import { BudgetReasonOf, type Candidate, type Command, type DisruptionInput, type Validation } from './types';

const invalid = (reason: string): Validation => ({ valid: false, reason });

function freshCandidates(view: ClusterView, cmd: Command): Candidate[] | string {
  const out: Candidate[] = [];
  for (const old of cmd.candidates) {
    const v = view.views.find((x) => x.claim.name === old.nodeClaim.name);
    if (!v) return `nodeclaim ${old.nodeClaim.name} is gone`;
    if (cmd.method === 'expiration') {
      if (isDisrupting(v)) return `nodeclaim ${old.nodeClaim.name} is already being deleted`;
    } else {
      const nc = nodeCheck(view, v);
      if (nc) return `nodeclaim ${old.nodeClaim.name}: ${nc}`;
      const block = podCheck(view, v, cmd.method === 'drift');
      if (block) return `nodeclaim ${old.nodeClaim.name}: ${block.why}`;
      const dnc = cmd.method === 'drift' ? undefined : consolidationCheck(v);
      if (dnc) return `nodeclaim ${old.nodeClaim.name}: ${dnc}`;
    }
    if (cmd.method === 'drift') {
      const pool = v.pool!;
      const cls = view.input.snapshot.nodeClasses.find((c) => c.name === pool.template.nodeClassRef.name);
      if (!driftReason(v, pool, cls, view.input.drifted)) return `nodeclaim ${old.nodeClaim.name} is no longer drifted`;
    }
    if (cmd.reason === 'empty' || cmd.reason === 'underutilized') {
      const notYet = consolidatable(v, view.input.now);
      if (notYet) return `nodeclaim ${old.nodeClaim.name}: ${notYet} (a pod event happened since the command was computed)`;
    }
    const c = toCandidate(view, v, cmd.method === 'drift' || cmd.method === 'expiration');
    if (typeof c === 'string') return `nodeclaim ${old.nodeClaim.name}: ${c}`;
    if (cmd.reason === 'empty' && c.pods.length > 0)
      return `nodeclaim ${old.nodeClaim.name} is no longer empty: pod ${c.pods[0].namespace}/${c.pods[0].name} arrived`;
    out.push(c);
  }
  return out;
}

const superset = (now: string[], before: string[]) => {
  const s = new Set(now);
  return before.every((n) => s.has(n));
};

/** Re-checks a command against a fresh snapshot; invalid means abandon it (nothing was done yet). */
export function validateCommand(cmd: Command, fresh: DisruptionInput): Validation {
  const view = clusterView(fresh);
  const cs = freshCandidates(view, cmd);
  if (typeof cs === 'string') return invalid(cs);
  if (cmd.method === 'expiration') return { valid: true };
  const budget = budgets(view, BudgetReasonOf[cmd.reason as keyof typeof BudgetReasonOf]);
  const perPool = new Map<string, number>();
  for (const c of cs) perPool.set(c.nodePool.name, (perPool.get(c.nodePool.name) ?? 0) + 1);
  for (const [pool, n] of perPool)
    if (!budget.fits(pool, n)) return invalid(`budget: nodepool ${pool} allows fewer than ${n} more disruption(s) now (${budget.why(pool)})`);
  if (cmd.method === 'emptiness') return { valid: true };
  if (cmd.method === 'drift') {
    if (cs[0].pods.length === 0) return { valid: true };
    const sim = simulate(view, cs);
    return sim.failure ? invalid(sim.failure) : { valid: true };
  }
  const o = computeConsolidation(view, cs, {
    method: cmd.method === 'single-node' ? 'single-node' : 'multi-node',
    maxReplacements: cmd.multiReplacement ? Math.max(cs.length, cmd.replacements.length) : 1,
    spotToSpot: fresh.options?.spotToSpotConsolidation === true,
    split: cmd.multiReplacement === true,
  });
  if (!o.ok) return invalid(`re-simulation: ${o.why}`);
  if (cmd.action === 'delete') return o.action === 'delete' ? { valid: true } : invalid(`a delete now needs ${o.replacements.length} new node(s)`);
  if (o.replacements.length !== cmd.replacements.length)
    return invalid(`the replacement list changed: ${cmd.replacements.length} node(s) before, ${o.replacements.length} now`);
  for (let i = 0; i < cmd.replacements.length; i++) {
    const before = cmd.replacements[i].instanceTypes.map((t) => t.name);
    const now = o.replacements[i].instanceTypes.map((t) => t.name);
    if (!superset(now, before)) return invalid(`the replacement options changed: ${before.filter((n) => !now.includes(n)).join(', ')} no longer valid`);
  }
  return { valid: true };
}
