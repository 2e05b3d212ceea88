/**
 * Recovery per fault kind (docs/reliability.md): runs examples/scenarios/chaos.yaml once per fault, with only
 * that fault injected, and prints how long pods waited beyond the fault's end. `node --import tsx bench/faults.ts`
 */
import { readFileSync } from 'node:fs';
import { parseScenario, runScenario } from '../shared/sim';

const path = new URL('../examples/scenarios/chaos.yaml', import.meta.url);
const base = parseScenario(readFileSync(path, 'utf8'), 'chaos.yaml');

// Target (issue #9): no pod waits more than 2 min beyond the fault's end. A pod waits at most the fault's
// length + 2 min for capacity, plus a node's boot (≈ 46 s in the scenario) to run.
const rows: string[] = [
  '| fault (alone) | injected | worst pod → CreateFleet | worst pending | within for + 2 min + boot | lost / orphans / leaked | invocation errors |',
  '|---|---|---|---|---|---|---|',
];
for (const fault of base.faults) {
  const run = await runScenario({ ...base, faults: [fault] });
  const within = run.pods.maxPendingSeconds <= fault.for + 120 + 46;
  const injected = run.faults?.reduce((n, f) => n + f.count, 0) ?? 0;
  rows.push(
    `| ${fault.target} ${fault.kind}${fault.rate !== undefined ? ` ×${fault.rate * 100} %` : ''} for ${fault.for} s | ${injected} | ${run.pods.maxLaunchLatencySeconds} s | ${run.pods.maxPendingSeconds} s | ${within ? 'yes' : 'NO'} | ${run.violations.podsLost} / ${run.final.orphanInstances} / ${run.final.leakedNodeClaims} | ${run.invocationErrors.length} |`,
  );
  process.stderr.write(`${fault.target} ${fault.kind}: done\n`);
}
console.log(rows.join('\n'));
