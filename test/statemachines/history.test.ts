/**
 * Step Functions Standard workflows fail an execution at 25,000 history events. A drain loops EvictPods →
 * DrainDecision → WaitForDrain for as long as a PDB holds (terminationGracePeriod may be days): the terminate
 * machine must continue in a fresh execution before the limit. Events are counted from the ASL itself, per
 * state type, as Step Functions writes them (a Lambda Task: Entered, Scheduled, Started, Succeeded, Exited).
 */
import { describe, expect, it } from 'vitest';
import { loadDefinition } from '../../shared/sim/sfn';
import { DRAIN_PASSES_PER_EXECUTION } from '../../shared/core/lifecycle';

const HISTORY_LIMIT = 25_000;
const EVENTS: Record<string, number> = { Task: 5, Choice: 2, Wait: 2, Pass: 2, Succeed: 2, Fail: 2 };
/** A failed attempt that is retried adds TaskScheduled, TaskStarted, TaskFailed. */
const RETRY_EVENTS = 3;

type State = { Type: string; Next?: string; Default?: string; Choices?: { Variable?: string; NumericGreaterThanEquals?: number; Next: string }[] };

describe('the terminate machine and the 25,000-event history limit', () => {
  const def = loadDefinition('terminate') as unknown as { StartAt: string; States: Record<string, State> };
  const states = def.States;
  const events = (name: string) => EVENTS[states[name].Type] ?? 0;

  it('should continue in a fresh execution after the drain passes that fit, with room left for retries', () => {
    // Prepare: the loop and where it leaves
    const decision = states.DrainDecision;
    const rule = decision.Choices?.find((c) => c.Variable === '$.passes' && c.NumericGreaterThanEquals !== undefined);
    const loop: string[] = [];
    for (let s = decision.Default!; s !== 'EvictPods'; s = states[s].Next!) loop.push(s);
    loop.push('EvictPods', 'DrainDecision');
    // Act
    const perPass = loop.reduce((n, s) => n + events(s), 0);
    const before = 1 + events('ValidateTerminateInput') + events('TaintNode');
    const after = events(rule!.Next) + events(states[rule!.Next].Next!) + 1;
    const worst = before + rule!.NumericGreaterThanEquals! * perPass + after;
    // Assess
    expect(rule?.NumericGreaterThanEquals).toBe(DRAIN_PASSES_PER_EXECUTION);
    expect(perPass).toBe(9);
    expect(worst).toBeLessThan(HISTORY_LIMIT);
    // At least one retried failure every three passes still fits.
    expect(worst + Math.ceil(DRAIN_PASSES_PER_EXECUTION / 3) * RETRY_EVENTS).toBeLessThan(HISTORY_LIMIT);
  });
});
