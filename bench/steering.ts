/**
 * `npm run bench -- steering` (issue #29 item 5): examples/scenarios/scale-down-steering.yaml — 70 pods on ten
 * nodes scaled in to 35 — through the production handlers, with and without PodDeletionCostManagement, at the
 * default budget and at 50 %. Per run: what consolidation saved, the pods it evicted for it, and the run's bill.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCENARIO = fileURLToPath(new URL('../examples/scenarios/scale-down-steering.yaml', import.meta.url));

export async function suiteSteering(): Promise<Record<string, string | number>[]> {
  const { parseScenario, runScenario } = await import('../shared/sim');
  const text = readFileSync(SCENARIO, 'utf8');
  const rows: Record<string, string | number>[] = [];
  for (const budget of ['10% (default)', '50%']) {
    for (const gate of [true, false]) {
      let yaml = text.replace('PodDeletionCostManagement=true', `PodDeletionCostManagement=${gate}`);
      if (budget === '50%') yaml = yaml.replace('consolidateAfter: 1m', 'consolidateAfter: 1m\n      budgets: [{nodes: "50%"}]');
      const r = await runScenario(parseScenario(yaml, 'scale-down-steering.yaml'));
      rows.push({
        budget,
        PodDeletionCostManagement: String(gate),
        moves: r.consolidation.moves,
        'saved $/month': r.consolidation.savedPerMonth,
        'pods evicted': r.consolidation.podsEvicted,
        'evictions per $100/month': r.consolidation.evictionsPer100PerMonth ?? 0,
        'run $': r.cost.total,
        'pods lost': r.violations.podsLost,
      });
    }
  }
  return rows;
}
