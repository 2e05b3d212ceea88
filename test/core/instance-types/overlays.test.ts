/**
 * NodeOverlay resolution and application, with the cases of kubernetes-sigs/karpenter
 * pkg/controllers/nodeoverlay/suite_test.go (Karpenter's fake instance types and offerings): weights, equal-weight
 * conflicts (the name later in the alphabet wins, the other is set aside everywhere), offering requirements
 * (zone, capacity type), NodePool name and template labels, capacity merged per resource, AdjustedPrice.
 */
import { describe, expect, it } from 'vitest';
import {
  adjustedPrice,
  applyOverlays,
  capacityOverlaid,
  orderByWeight,
  overlaidPoolTypes,
  priceOverlaid,
  resolveOverlays,
} from '../../../shared/core/instance-types/overlays';
import type { NodeOverlay } from '../../../shared/core/model/karpenter';
import { Label } from '../../../shared/core/model/labels';
import { fakeInstanceTypes, nodePool } from '../../fixtures/builders';

const overlay = (name: string, o: Partial<NodeOverlay> = {}): NodeOverlay => ({ name, weight: 0, requirements: [], capacity: {}, ...o });
const typeIn = (...values: string[]) => ({ key: Label.instanceType, operator: 'In' as const, values });

function resolve(overlays: NodeOverlay[], pools = [nodePool()]) {
  const types = fakeInstanceTypes();
  const byPool = Object.fromEntries(pools.map((p) => [p.name, types]));
  const res = resolveOverlays(overlays, pools, byPool);
  const applied = (pool = 'default') => applyOverlays(res, pool, types);
  const type = (name: string, pool = 'default') => applied(pool).find((t) => t.name === name)!;
  return { res, types, applied, type };
}

describe('NodeOverlay resolution (Karpenter nodeoverlay controller)', () => {
  it('should return the same instance types when no overlay applies', () => {
    const { types, applied } = resolve([overlay('x', { requirements: [typeIn('no-such-type')], price: '1' })]);
    expect(applied()).toBe(types);
  });

  it('should order by weight, then the name later in the alphabet first', () => {
    const order = orderByWeight([overlay('a', { weight: 10 }), overlay('b', { weight: 10 }), overlay('c'), overlay('d', { weight: 50 })]);
    expect(order.map((o) => o.name)).toEqual(['d', 'b', 'a', 'c']);
  });

  it('should set aside the earlier-named overlay when two of the same weight price the same offering, and apply it nowhere', () => {
    // Karpenter: "should fail with requirements overlays overlap" on zone vs capacity type (spot in test-zone-1).
    const a = overlay('overlay-a', { weight: 10, price: '1.03', requirements: [{ key: Label.zone, operator: 'In', values: ['test-zone-1', 'test-zone-4'] }] });
    const b = overlay('overlay-b', { weight: 10, price: '23', requirements: [{ key: Label.capacityType, operator: 'In', values: ['spot'] }] });
    const { res, type } = resolve([a, b]);
    expect(res.rejected.get('overlay-a')?.reason).toBe('Conflict');
    expect(res.rejected.get('overlay-a')?.message).toContain('overlay-b');
    expect(res.rejected.has('overlay-b')).toBe(false);
    const offerings = type('small-instance-type').offerings;
    expect(offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price)).toEqual([23, 23]);
    // Not partially applied: the on-demand offering in test-zone-1 keeps its price.
    expect(offerings.find((o) => o.capacityType === 'on-demand' && o.zone === 'test-zone-1')?.priceOverlay).toBeUndefined();
  });

  it('should apply both when overlays of the same weight touch different offerings', () => {
    const a = overlay('a', { weight: 10, price: '1', requirements: [{ key: Label.capacityType, operator: 'In', values: ['on-demand'] }] });
    const b = overlay('b', { weight: 10, price: '2', requirements: [{ key: Label.capacityType, operator: 'In', values: ['spot'] }] });
    const { res, type } = resolve([a, b]);
    expect(res.rejected.size).toBe(0);
    const prices = type('default-instance-type').offerings.map((o) => [o.capacityType, o.price, o.priceOverlay]);
    expect(prices).toContainEqual(['on-demand', 1, 'a']);
    expect(prices).toContainEqual(['spot', 2, 'b']);
  });

  it('should let the higher weight win and the lower one fill only what is left', () => {
    const low = overlay('low', { priceAdjustment: '-50%' });
    const high = overlay('high', { weight: 5, price: '9', requirements: [typeIn('small-instance-type')] });
    const { res, type } = resolve([low, high]);
    expect(res.rejected.size).toBe(0);
    expect(type('small-instance-type').offerings.every((o) => o.price === 9 && o.priceOverlay === 'high')).toBe(true);
    const base = fakeInstanceTypes().find((t) => t.name === 'default-instance-type')!.offerings[2].price;
    const od = type('default-instance-type').offerings[2];
    expect(od.price).toBeCloseTo(base / 2, 10);
    expect(od.basePrice).toBe(base);
  });

  it('should merge capacity per resource: the higher weight keeps its value, a lower one adds other resources', () => {
    const base = overlay('base', { capacity: { 'smarter-devices/fuse': 1, 'hugepages-2Mi': 100 * 2 ** 20 } });
    const specific = overlay('specific', { weight: 1, requirements: [typeIn('small-instance-type')], capacity: { 'hugepages-2Mi': 2 ** 30 } });
    const { res, type, types } = resolve([base, specific]);
    expect(res.rejected.size).toBe(0);
    const small = type('small-instance-type');
    expect(small.capacity['hugepages-2Mi']).toBe(2 ** 30);
    expect(small.capacity['smarter-devices/fuse']).toBe(1);
    expect(small.allocatable['hugepages-2Mi']).toBe(2 ** 30);
    // Kubelet takes pre-allocated huge pages out of allocatable memory; so does the scheduler's view.
    expect(small.allocatable.memory).toBe(types.find((t) => t.name === 'small-instance-type')!.allocatable.memory - 2 ** 30);
    expect(small.capacity.memory).toBe(types.find((t) => t.name === 'small-instance-type')!.capacity.memory);
    expect(small.capacityOverlays).toEqual(['base', 'specific']);
    expect(small.capacity.cpu).toBe(types.find((t) => t.name === 'small-instance-type')!.capacity.cpu);
    expect(type('default-instance-type').capacity['hugepages-2Mi']).toBe(100 * 2 ** 20);
  });

  it('should set aside a same-weight capacity overlay that sets a resource already set, even on one type of many', () => {
    // Karpenter: "should that there is not a partial application for instance types".
    const a = overlay('overlay-a', {
      weight: 10,
      requirements: [typeIn('default-instance-type', 'small-instance-type')],
      capacity: { 'smarter-devices/buz': 54 },
    });
    const b = overlay('overlay-b', {
      weight: 10,
      requirements: [typeIn('small-instance-type', 'gpu-vendor-instance-type')],
      capacity: { 'smarter-devices/buz': 21 },
    });
    const { res, type } = resolve([a, b]);
    expect(res.rejected.get('overlay-a')?.reason).toBe('Conflict');
    expect(type('default-instance-type').capacityOverlays).toBeUndefined();
    expect(type('small-instance-type').capacity['smarter-devices/buz']).toBe(21);
    expect(type('gpu-vendor-instance-type').capacity['smarter-devices/buz']).toBe(21);
  });

  it('should match the NodePool name and its template labels, and only that pool', () => {
    const pools = [nodePool({ name: 'gpu', labels: { team: 'ml' } }), nodePool({ name: 'web' })];
    const byName = overlay('by-pool', { price: '0.5', requirements: [{ key: Label.nodePool, operator: 'In', values: ['gpu'] }] });
    const byLabel = overlay('by-label', { capacity: { 'example.com/dongle': 2 }, requirements: [{ key: 'team', operator: 'In', values: ['ml'] }] });
    const { type } = resolve([byName, byLabel], pools);
    expect(type('small-instance-type', 'gpu').offerings.every((o) => o.price === 0.5)).toBe(true);
    expect(type('small-instance-type', 'gpu').capacity['example.com/dongle']).toBe(2);
    expect(type('small-instance-type', 'web').offerings.some((o) => o.priceOverlay)).toBe(false);
    expect(type('small-instance-type', 'web').capacity['example.com/dongle']).toBeUndefined();
  });

  it('should not match a key the type does not have unless the requirement is NotIn or DoesNotExist', () => {
    const exists = overlay('exists', { price: '3', requirements: [{ key: 'example.com/unknown', operator: 'Exists' }] });
    const absent = overlay('absent', { weight: 2, capacity: { 'example.com/x': 1 }, requirements: [{ key: 'example.com/unknown', operator: 'DoesNotExist' }] });
    const { res, type } = resolve([exists, absent]);
    expect(res.matched.has('exists')).toBe(false);
    expect(type('small-instance-type').capacity['example.com/x']).toBe(1);
  });

  it('should apply integer bounds (Gt) to numeric labels', () => {
    const types = fakeInstanceTypes().map((t) => ({ ...t, labels: { ...t.labels, 'karpenter.k8s.aws/instance-memory': String(t.capacity.memory / 2 ** 20) } }));
    const big = overlay('big', { priceAdjustment: '+1', requirements: [{ key: 'karpenter.k8s.aws/instance-memory', operator: 'Gt', values: ['4096'] }] });
    const res = resolveOverlays([big], [nodePool()], { default: types });
    const out = applyOverlays(res, 'default', types);
    expect(out.filter((t) => t.offerings.some((o) => o.priceOverlay)).map((t) => t.name)).toEqual(['arm-instance-type']);
  });

  it('should keep the same array while nothing changes, so the scheduler reuses its templates', () => {
    const { res, types } = resolve([overlay('x', { price: '1' })]);
    expect(applyOverlays(res, 'default', types)).toBe(applyOverlays(res, 'default', types));
  });

  it('should flag claims whose types carry overlay prices or capacity', () => {
    const { applied, types } = resolve([overlay('x', { price: '1', requirements: [typeIn('small-instance-type')] })]);
    expect(priceOverlaid(applied())).toBe(true);
    expect(priceOverlaid(types)).toBe(false);
    expect(capacityOverlaid(applied())).toBe(false);
  });

  it('should leave out, at launch, overlays the disruption pass found in conflict', () => {
    const pool = nodePool();
    const types = fakeInstanceTypes();
    const conflicted = overlay('x', { price: '1', observedConditions: [{ type: 'ValidationSucceeded', status: 'False', reason: 'Conflict', message: '' }] });
    expect(overlaidPoolTypes([conflicted], pool, types)).toBe(types);
    expect(overlaidPoolTypes([overlay('y', { price: '1' })], pool, types)[0].offerings[0].price).toBe(1);
    expect(overlaidPoolTypes([overlay('y', { price: '1' })], undefined, types)).toBe(types);
  });
});

describe("adjustedPrice (Karpenter's AdjustedPrice)", () => {
  it.each([
    [1, '5.00', 5],
    [2, '+0.5', 2.5],
    [2, '-0.5', 1.5],
    [2, '+10%', 2.2],
    [2, '-15%', 1.7],
    [2, '-100%', 0],
    [1, '-3', 0],
    [2, '', 2],
  ])('price %d with %s is %d', (price, change, want) => {
    expect(adjustedPrice(price, change)).toBeCloseTo(want, 10);
  });
});
