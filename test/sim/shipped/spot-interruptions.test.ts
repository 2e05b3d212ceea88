/**
 * The shipped scenario examples/scenarios/spot-interruptions.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario spot-interruptions', () => {
  it('should provision, interrupt, consolidate and expire in the spot-interruptions scenario without breaking the PDB', async () => {
    // Act
    const r = await runShipped('spot-interruptions');
    // Assess
    expectClean(r);
    expect(r.nodes.every((n) => n.capacityType === 'spot')).toBe(true);
    expect(r.disruptions.filter((d) => d.reason === 'interrupted').length).toBeGreaterThanOrEqual(2);
    expect(r.nodes.filter((n) => n.interruptedAt !== undefined).every((n) => n.terminatedAt !== undefined && n.terminatedAt - n.interruptedAt! <= 130)).toBe(
      true,
    );
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
