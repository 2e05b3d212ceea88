/**
 * NodeOverlays in the use cases: every pool's instance types come overlaid (prices, extended resources), the
 * disruption pass writes each overlay's ValidationSucceeded/Ready (Conflict naming the other overlay,
 * RuntimeValidation for one that cannot be read), only when it changed.
 */
import { describe, expect, it } from 'vitest';
import { poolInstanceTypes, reconcileNodeOverlayStatuses } from '../../../shared/core/lifecycle';
import type { NodeOverlay } from '../../../shared/core/model/karpenter';
import { fakes } from '../../fakes/lifecycle';

const overlay = (name: string, o: Partial<NodeOverlay> = {}): NodeOverlay => ({ name, weight: 0, requirements: [], capacity: {}, ...o });
const conditions = (o: NodeOverlay | undefined) => o?.observedConditions?.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe('NodeOverlays in the lifecycle', () => {
  it("should overlay every pool's types, then mark the ICE cache", async () => {
    // Prepare
    const f = fakes();
    f.cluster.nodeOverlays = [
      overlay('discount', { priceAdjustment: '-50%', requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }] }),
    ];
    await f.store.markUnavailable(
      { instanceType: 'm5.large', zone: f.cloud.types[0].offerings[0].zone, capacityType: f.cloud.types[0].offerings[0].capacityType },
      180,
      'ICE',
    );
    // Act
    const { types, overlays } = await poolInstanceTypes(f, await f.cluster.snapshot());
    // Assess
    const m5 = types.default.find((t) => t.name === 'm5.large')!;
    expect(m5.offerings[0]).toMatchObject({ price: f.cloud.types[0].offerings[0].price / 2, priceOverlay: 'discount', available: false });
    expect(types.default.find((t) => t.name === 'c5.large')!.offerings.some((o) => o.priceOverlay)).toBe(false);
    expect(overlays?.matched.has('discount')).toBe(true);
  });

  it('should write Ready and ValidationSucceeded, Conflict naming the other overlay, RuntimeValidation for an invalid one, each once', async () => {
    // Prepare
    const f = fakes();
    f.cluster.nodeOverlays = [
      overlay('a', { weight: 5, price: '1' }),
      overlay('b', { weight: 5, price: '2' }),
      overlay('c', { capacity: { 'example.com/x': 1 } }),
    ];
    const snapshot = await f.cluster.snapshot();
    snapshot.invalid = [{ kind: 'NodeOverlay', name: 'broken', reason: 'spec.price: price must be a non-negative decimal' }];
    const { overlays } = await poolInstanceTypes(f, snapshot);
    const writes: string[] = [];
    const patch = f.cluster.patchNodeOverlayStatus.bind(f.cluster);
    f.cluster.patchNodeOverlayStatus = async (name, c) => {
      writes.push(name);
      return patch(name, c);
    };
    // Act
    const first = await reconcileNodeOverlayStatuses(f, snapshot, overlays);
    const again = await reconcileNodeOverlayStatuses(f, await f.cluster.snapshot().then((s) => ({ ...s, invalid: snapshot.invalid })), overlays);
    // Assess
    const byName = (n: string) => f.cluster.nodeOverlays.find((o) => o.name === n);
    expect(first).toEqual(['a', 'b', 'c']);
    expect(conditions(byName('b'))).toEqual(['ValidationSucceeded=True/ValidationSucceeded', 'Ready=True/Ready']);
    expect(conditions(byName('a'))).toEqual(['ValidationSucceeded=False/Conflict', 'Ready=False/UnhealthyDependents']);
    expect(byName('a')?.observedConditions?.[0].message).toMatch(/NodeOverlay b \(same weight 5\)/);
    expect(writes).toEqual(['a', 'b', 'c', 'broken']);
    expect(again).toEqual([]);
  });
});
