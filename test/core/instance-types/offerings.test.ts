import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { buildInstanceTypes } from '../../../shared/core/instance-types/build';
import { estimatedSpotDiscount, estimateSpotPrice } from '../../../shared/core/instance-types/spot-estimate';
import type { Offering } from '../../../shared/core/instance-types/types';
import { ZONES, build, catalogEntry, nodeClass } from './helpers';

const find = (offerings: Offering[], zone: string, capacityType: string) => offerings.find((o) => o.zone === zone && o.capacityType === capacityType);

describe('instance type offerings and prices', () => {
  it('should offer every zone for on-demand and spot at the catalog on-demand price', () => {
    // Prepare / Act
    const it = build('m5.large');

    // Assess
    expect(it.offerings).toHaveLength(6);
    for (const zone of ZONES) {
      expect(find(it.offerings, zone, 'on-demand')).toEqual({ zone, capacityType: 'on-demand', price: 0.096, available: true });
      expect(find(it.offerings, zone, 'spot')?.available).toBe(true);
    }
  });

  it('should estimate spot prices deterministically, below on-demand, marked as estimates', () => {
    // Prepare / Act
    const first = build('m5.large').offerings;
    const second = buildInstanceTypes([{ ...catalogEntry('m5.large') }], { region: 'us-east-1', zones: ZONES })[0].offerings;

    // Assess
    expect(second).toEqual(first);
    for (const zone of ZONES) {
      const spot = find(first, zone, 'spot')!;
      expect(spot.priceEstimated).toBe(true);
      expect(spot.price).toBeLessThan(0.096 * 0.45 + 1e-9);
      expect(spot.price).toBeGreaterThan(0.096 * 0.25 - 1e-9);
    }
  });

  it('should keep every estimated spot discount within 55–75 % and vary it by zone and family', () => {
    // Prepare
    const entries = loadCatalog();

    // Act
    const discounts = entries.flatMap((e) => ZONES.map((z) => estimatedSpotDiscount(e.name, e.family, z)));
    const byZone = new Set(ZONES.map((z) => estimatedSpotDiscount('m5.large', 'm5', z)));
    const byFamily = new Set(['m5', 'c6i', 'r7g', 'p4d'].map((f) => estimatedSpotDiscount(`${f}.large`, f, 'us-east-1a')));

    // Assess
    expect(Math.min(...discounts)).toBeGreaterThanOrEqual(0.55);
    expect(Math.max(...discounts)).toBeLessThanOrEqual(0.75);
    expect(byZone.size).toBe(3);
    expect(byFamily.size).toBe(4);
    expect(estimateSpotPrice('m5.large', 'm5', 'us-east-1a', 0.096)).toBe(estimateSpotPrice('m5.large', 'm5', 'us-east-1a', 0.096));
  });

  it('should prefer quoted spot and on-demand prices, zonal keys first', () => {
    // Prepare
    const spotPrices = { 'm5.large/us-east-1a': 0.04, 'm5.large': 0.05 };
    const onDemandPrices = { 'm5.large': 0.1 };

    // Act
    const it = build('m5.large', { spotPrices, onDemandPrices });

    // Assess
    expect(find(it.offerings, 'us-east-1a', 'spot')).toEqual({ zone: 'us-east-1a', capacityType: 'spot', price: 0.04, available: true });
    expect(find(it.offerings, 'us-east-1b', 'spot')?.price).toBe(0.05);
    expect(find(it.offerings, 'us-east-1b', 'spot')?.priceEstimated).toBeUndefined();
    expect(find(it.offerings, 'us-east-1c', 'on-demand')?.price).toBe(0.1);
  });

  it('should mark ICE-cached offerings unavailable and keep the others', () => {
    // Prepare
    const unavailable = [{ instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot' as const }];

    // Act
    const it = build('m5.large', { unavailable });

    // Assess
    expect(find(it.offerings, 'us-east-1b', 'spot')?.available).toBe(false);
    expect(find(it.offerings, 'us-east-1b', 'on-demand')?.available).toBe(true);
    expect(find(it.offerings, 'us-east-1a', 'spot')?.available).toBe(true);
  });

  it('should mark zones where the type is not offered unavailable, and unlisted types everywhere', () => {
    // Prepare / Act
    const it = build('m5.large', { zonesByType: { 'm5.large': ['us-east-1a'] } });
    const unlisted = build('c5.large', { zonesByType: { 'm5.large': ['us-east-1a'] } });

    // Assess
    expect(it.offerings.filter((o) => o.available).map((o) => o.zone)).toEqual(['us-east-1a', 'us-east-1a']);
    expect(unlisted.offerings.some((o) => o.available)).toBe(false);
  });

  it('should make every offering unavailable for a type with no list price anywhere', () => {
    // Prepare / Act
    const unpriced = build('hpc7a.96xlarge');

    // Assess
    expect(unpriced.offerings).toHaveLength(6);
    expect(unpriced.offerings.every((o) => !o.available && o.price === 0)).toBe(true);
  });

  it('should price a region the catalog has no price for at the us-east-1 list price, marked as an estimate, so on-demand is offered', () => {
    // Prepare / Act
    const otherRegion = build('m5.large', { region: 'eu-west-1', zones: ['eu-west-1a'] });
    const quotedThere = build('m5.large', { region: 'eu-west-1', zones: ['eu-west-1a'], onDemandPrices: { 'm5.large': 0.107 } });

    // Assess
    expect(find(otherRegion.offerings, 'eu-west-1a', 'on-demand')).toMatchObject({ available: true, price: 0.096, priceEstimated: true });
    expect(find(quotedThere.offerings, 'eu-west-1a', 'on-demand')).toEqual({ zone: 'eu-west-1a', capacityType: 'on-demand', price: 0.107, available: true });
    expect(otherRegion.labels['topology.kubernetes.io/region']).toBe('eu-west-1');
  });

  it('should offer no spot for types AWS does not sell as spot (High Memory, HPC, Mac), nor when DescribeInstanceTypes says so', () => {
    // Prepare / Act
    const highMemory = build('u7i-12tb.224xlarge');
    const notSpot = buildInstanceTypes([{ ...catalogEntry('m5.large'), spotSupported: false }], { region: 'us-east-1', zones: ZONES })[0];
    const quotedAnyway = build('u7i-12tb.224xlarge', { spotPrices: { 'u7i-12tb.224xlarge': 50 } });

    // Assess
    expect(highMemory.offerings.filter((o) => o.capacityType === 'spot').every((o) => !o.available)).toBe(true);
    expect(highMemory.offerings.filter((o) => o.capacityType === 'on-demand').every((o) => o.available)).toBe(true);
    expect(notSpot.offerings.filter((o) => o.capacityType === 'spot').every((o) => !o.available)).toBe(true);
    expect(quotedAnyway.offerings.filter((o) => o.capacityType === 'spot').every((o) => !o.available)).toBe(true);
  });

  it('should make arm64 types unavailable for Windows node classes', () => {
    // Prepare / Act
    const it = build('m6g.large', { nodeClass: nodeClass({ amiFamily: 'Windows2022' }) });

    // Assess
    expect(it.offerings.every((o) => !o.available)).toBe(true);
  });

  it('should make types no resolved AMI supports unavailable', () => {
    // Prepare
    const nc = nodeClass({
      status: { amis: [{ id: 'ami-1', requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }] },
    });

    // Act
    const [arm, amd] = [build('m6g.large', { nodeClass: nc }), build('m5.large', { nodeClass: nc })];

    // Assess
    expect(arm.offerings.some((o) => o.available)).toBe(false);
    expect(amd.offerings.every((o) => o.available)).toBe(true);
  });

  it('should carry the zone id of the node class subnets', () => {
    // Prepare
    const nc = nodeClass({ status: { subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az4' }] } });

    // Act
    const it = build('m5.large', { nodeClass: nc });

    // Assess
    expect(find(it.offerings, 'us-east-1a', 'spot')?.zoneId).toBe('use1-az4');
    expect(find(it.offerings, 'us-east-1b', 'spot')?.zoneId).toBeUndefined();
  });

  it('should build the whole catalog with one entry per catalog type', () => {
    // Prepare
    const entries = loadCatalog();

    // Act
    const types = buildInstanceTypes(entries, { region: 'us-east-1', zones: ZONES });

    // Assess
    expect(types).toHaveLength(entries.length);
    // Every priced type (1366) but the six a1 types, which AL2023 (the default AMI family) does not support.
    expect(types.filter((t) => t.offerings.some((o) => o.available))).toHaveLength(1360);
    expect(types.filter((t) => t.name.startsWith('a1.')).every((t) => t.offerings.every((o) => !o.available))).toBe(true);
    expect(types.every((t) => t.allocatable.cpu > 0 && t.allocatable.memory > 0)).toBe(true);
  });
});
