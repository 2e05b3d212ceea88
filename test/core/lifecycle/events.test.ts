import { describe, expect, it } from 'vitest';
import { recordEvents } from '../../../shared/core/lifecycle/events';
import type { KubeEvent } from '../../../shared/core/ports';
import { fakes } from '../../fakes/lifecycle';

const blocked = (i: number): KubeEvent => ({
  object: { kind: 'Node', name: `ip-10-0-0-${i}` },
  type: 'Normal',
  reason: 'DisruptionBlocked',
  message: 'Pdb "default/web" prevents pod evictions',
});

describe('recording events', () => {
  it('should write every event, a few at a time, when not bounded', async () => {
    // Prepare
    const f = fakes();
    // Act
    await recordEvents(f, [blocked(1), blocked(2), blocked(3)]);
    // Assess
    expect(f.cluster.events).toHaveLength(3);
  });

  it('should start no event once its time is up, so the work the events describe is not held up', async () => {
    // Prepare: each write takes 100 ms; 1,000 events would take 12.5 s at 8 at a time
    const f = fakes();
    const write = f.cluster.recordEvent.bind(f.cluster);
    f.cluster.recordEvent = async (e) => {
      f.clock.advance(100);
      await write(e);
    };
    // Act
    await recordEvents(
      f,
      Array.from({ length: 1000 }, (_, i) => blocked(i)),
      { ms: 500 },
    );
    // Assess
    expect(f.cluster.events.length).toBeGreaterThan(0);
    expect(f.cluster.events.length).toBeLessThanOrEqual(16);
  });
});
