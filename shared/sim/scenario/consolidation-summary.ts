/**
 * What consolidation bought over a run (issue #29 item 5), measured on the simulated world rather than taken from
 * the commands' estimates: per disrupt execution for an empty or underutilized node that succeeded, the $/h of
 * the candidates' instances it ended minus the $/h of the replacements it launched, and the running pods evicted
 * from those nodes through the eviction API. Evictions per $100/month saved is the trade-off a consolidation
 * policy (Balanced and its k) moves.
 */
import { disruptionReason, round } from './result';
import type { SimWorld } from './world';

export interface ConsolidationSummary {
  /** Consolidation commands that completed. */
  moves: number;
  /** $/h removed net of replacements, × 730 h. */
  savedPerMonth: number;
  podsEvicted: number;
  /** Pods evicted per $100/month saved; null when nothing was saved. */
  evictionsPer100PerMonth: number | null;
}

const HOURS_PER_MONTH = 730;

export function consolidationSummary(world: SimWorld): ConsolidationSummary {
  const byClaim = new Map<string, { price: number; ended: boolean; node: string }>();
  for (const i of world.ec2.instances.values()) {
    const claim = i.tags['karpenter.sh/nodeclaim'];
    if (claim) byClaim.set(claim, { price: i.pricePerHour, ended: i.state === 'terminated' || i.state === 'shutting-down', node: i.privateDnsName });
  }
  let moves = 0;
  let saved = 0;
  let evicted = 0;
  for (const e of world.stepFunctions.executions) {
    if (e.machine !== 'disrupt' || e.status !== 'SUCCEEDED') continue;
    let input: { reason?: string; candidates?: { nodeClaimName?: string; nodeName?: string }[]; replacements?: { name?: string }[] };
    try {
      input = JSON.parse(e.input);
    } catch {
      continue;
    }
    const reason = disruptionReason(String(input.reason ?? ''));
    if (reason !== 'empty' && reason !== 'underutilized') continue;
    moves++;
    for (const c of input.candidates ?? []) {
      const i = c.nodeClaimName ? byClaim.get(c.nodeClaimName) : undefined;
      if (i?.ended) saved += i.price;
      evicted += world.api.store.evictionsByNode.get(c.nodeName ?? i?.node ?? '') ?? 0;
    }
    for (const r of input.replacements ?? []) saved -= (r.name ? byClaim.get(r.name)?.price : undefined) ?? 0;
  }
  const perMonth = saved * HOURS_PER_MONTH;
  return {
    moves,
    savedPerMonth: round(perMonth),
    podsEvicted: evicted,
    evictionsPer100PerMonth: perMonth > 0 ? round((evicted / perMonth) * 100) : null,
  };
}
