/**
 * The shipped scenario examples/scenarios/balanced-consolidation.yaml (issue #29 item 4): the same fleet consolidated
 * under Balanced and under WhenEmptyOrUnderutilized, through the production handlers. The simulate summary's
 * `consolidation` figures (measured on the world: $ the moves removed, pods they evicted) show the trade-off.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario balanced-consolidation', () => {
  it('should refuse the marginal moves WhenEmptyOrUnderutilized takes, evicting no pod for them', async () => {
    // Act
    const balanced = await runShipped('balanced-consolidation');
    const text = readFileSync(new URL('../../../examples/scenarios/balanced-consolidation.yaml', import.meta.url), 'utf8');
    const any = await runScenario(parseScenario(text.replace('consolidationPolicy: Balanced', 'consolidationPolicy: WhenEmptyOrUnderutilized'), 'any.yaml'));

    // Assess
    expectClean(balanced);
    expectClean(any);
    expect(any.consolidation.moves).toBeGreaterThan(0);
    expect(any.consolidation.podsEvicted).toBeGreaterThan(0);
    expect(any.consolidation.savedPerMonth).toBeGreaterThan(0);
    expect(balanced.consolidation).toEqual({ moves: 0, savedPerMonth: 0, podsEvicted: 0, evictionsPer100PerMonth: null });
    expect(balanced.final.pendingPods).toBe(0);
  }, 300_000);
});
