/**
 * computeDisruption: one pass of Karpenter's disruption loop (docs/karpenter-reference.md §4.1). Expiration is forceful and
 * independent (no budget, no pre-spin); the budgeted methods run in order and the first that acts wins.
 */
import { clusterView, isDisrupting, toCandidate, type ClusterView } from './candidates';
import { drift, emptiness, multiNode, multiReplacement, singleNode, singleNodeSplit } from './methods';
import { allowedDisruptions } from './budgets';
import { Pass } from './pass';
import { repairs } from './repair';
import type { Command, DisruptionDecision, DisruptionInput } from './types';
import { addSeconds } from '../time';

const money = (n: number) => `$${n.toFixed(4)}/h`;

/** The budgeted disruption reasons, in Karpenter's order of methods. */
const DISRUPTION_REASONS = ['Empty', 'Drifted', 'Underutilized'] as const;

/** Claims past creation + expireAfter, each a forceful delete (docs/karpenter-reference.md §4.1 Expiration). */
function expirations(view: ClusterView, pass: Pass): Command[] {
  const out: Command[] = [];
  for (const v of view.views) {
    const after = v.claim.spec.expireAfter;
    if (after === null || isDisrupting(v) || !v.pool) continue;
    if (view.input.now < addSeconds(v.claim.creationTimestamp, after)) continue;
    const c = toCandidate(view, v, true);
    if (typeof c === 'string') continue;
    const cmd: Command = { method: 'expiration', reason: 'expired', action: 'delete', candidates: [c], replacements: [], savingsPerHour: 0 };
    pass.choose(
      cmd,
      `expired: created ${new Date(v.claim.creationTimestamp).toISOString()}, expireAfter ${after}s (forceful, budgets do not apply)`,
      'expired',
    );
    out.push(cmd);
  }
  return out;
}

function describe(cmd: Command): string {
  const what = cmd.action === 'delete' ? 'delete' : `replace by ${cmd.replacements.length} node(s)`;
  return (
    `${cmd.method}: ${what} of ${cmd.candidates.length} node(s) (${cmd.candidates.reduce((n, c) => n + c.pods.length, 0)} pods), saving ${money(cmd.savingsPerHour)}` +
    (cmd.multiReplacement ? ' — multi-replacement (nodewright extension: Karpenter replaces by one node at most)' : '')
  );
}

export function computeDisruption(input: DisruptionInput): DisruptionDecision {
  const view = clusterView(input);
  const probe = new Pass({ ...view, views: [] }, new Set());
  const expired = expirations(view, probe);
  const repaired = repairs(view, probe);
  // What repair took this pass comes off the budgets (and rates) of the methods below.
  for (const r of repaired.repairs) {
    const c = view.counts.get(r.candidates[0].nodePool.name);
    if (c) Object.assign(c, { disrupting: c.disrupting + 1, started: (c.started ?? 0) + 1 });
  }
  const pass = new Pass(view, new Set([...expired, ...repaired.repairs].map((c) => c.candidates[0].nodeClaim.name)));
  pass.audit.unshift(...probe.audit);
  let command = emptiness(pass) ?? drift(pass) ?? multiNode(pass);
  if (!command) {
    const single = singleNode(pass);
    let multi = input.options?.multiReplacement === false ? undefined : multiReplacement(pass);
    const split = input.options?.multiReplacement === false ? undefined : singleNodeSplit(pass);
    if (split && (!multi || split.savingsPerHour > multi.savingsPerHour)) {
      if (multi) pass.reject('multi-node', multi.candidates, `superseded by a split of one node saving ${money(split.savingsPerHour)}`);
      multi = split;
    }
    if (multi && (!single || multi.savingsPerHour > single.savingsPerHour)) {
      if (single)
        pass.reject(
          'single-node',
          single.candidates,
          `superseded by a multi-replacement saving ${money(multi.savingsPerHour)} (this one saves ${money(single.savingsPerHour)})`,
        );
      command = multi;
    } else {
      if (multi)
        pass.reject(
          'multi-node',
          multi.candidates,
          `multi-replacement saving ${money(multi.savingsPerHour)} not better than single-node (${money(single!.savingsPerHour)})`,
        );
      command = single;
    }
  }
  if (command) pass.choose(command, describe(command));
  // As Karpenter's budget mapping: a pool with nodes whose budget for a reason is 0 now.
  const blockedBudgets = view.input.snapshot.nodePools.flatMap((p) => {
    const counts = view.counts.get(p.name);
    if (!counts || counts.total === 0) return [];
    return DISRUPTION_REASONS.filter((reason) => allowedDisruptions(p, reason, counts, view.input.now).allowed === 0).map((reason) => ({
      nodePool: p.name,
      reason,
    }));
  });
  const eligible = {
    empty: pass.consolidatable.filter((c) => c.pods.length === 0).length,
    drifted: pass.drifted.length,
    underutilized: pass.underutilized.length,
  };
  return {
    command,
    expirations: expired,
    ...repaired,
    audit: pass.audit,
    blockedBudgets,
    eligible,
    ...(pass.singleNodeResumeAt !== undefined ? { singleNodeResumeAt: pass.singleNodeResumeAt } : {}),
  };
}
