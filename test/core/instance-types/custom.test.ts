import { describe, expect, it } from 'vitest';
import { InstanceTypesFileInvalidError, parseInstanceTypesFile } from '../../../shared/core/instance-types/custom';
import { GiB, MiB, ZONES, build, catalogEntry } from './helpers';

const opts = { region: 'us-east-1', zones: ZONES };

const explicit = {
  name: 'big.box',
  arch: 'amd64',
  os: 'linux',
  capacity: { cpu: '4', memory: '4Gi', pods: '5', 'nvidia.com/gpu': '2' },
  offerings: [
    { zone: 'test-1a', capacityType: 'spot', price: 0.1, available: true },
    { zone: 'test-1b', capacityType: 'on-demand', price: 0.3 },
  ],
  labels: { team: 'ml' },
};

function errorOf(fn: () => unknown): InstanceTypesFileInvalidError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InstanceTypesFileInvalidError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('parseInstanceTypesFile', () => {
  it('should build catalog-form entries exactly like the bundled catalog', () => {
    // Prepare
    const file = [JSON.parse(JSON.stringify(catalogEntry('m5.xlarge')))];

    // Act
    const [it] = parseInstanceTypesFile(file, opts);

    // Assess
    expect(it).toEqual(build('m5.xlarge'));
  });

  it('should fill defaults for a minimal catalog-form entry', () => {
    // Prepare
    const file = [{ name: 'm9z.2xlarge', vcpu: 8, memoryMiB: 32768, maxENIs: 4, ipv4PerENI: 15, onDemandUsdPerHour: { 'us-east-1': 0.5 } }];

    // Act
    const [it] = parseInstanceTypesFile(file, opts);

    // Assess
    expect(it.capacity.pods).toBe(58);
    expect(it.labels['karpenter.k8s.aws/instance-family']).toBe('m9z');
    expect(it.labels['karpenter.k8s.aws/instance-generation']).toBe('9');
    expect(it.offerings.filter((o) => o.available)).toHaveLength(6);
  });

  it('should use explicit capacity as allocatable with no overhead and zones from the offerings', () => {
    // Prepare / Act
    const [it] = parseInstanceTypesFile([explicit], opts);

    // Assess
    expect(it.capacity).toEqual({ cpu: 4000, memory: 4 * GiB, pods: 5, 'nvidia.com/gpu': 2 });
    expect(it.allocatable).toEqual(it.capacity);
    expect(it.offerings).toEqual([
      { zone: 'test-1a', capacityType: 'spot', price: 0.1, available: true },
      { zone: 'test-1b', capacityType: 'on-demand', price: 0.3, available: true },
    ]);
    expect(it.labels).toMatchObject({ team: 'ml', 'node.kubernetes.io/instance-type': 'big.box', 'karpenter.k8s.aws/instance-gpu-count': '2' });
    expect(it.exotic).toBe(true);
  });

  it('should use an explicit allocatable as is', () => {
    // Prepare
    const entry = { ...explicit, allocatable: { cpu: '3500m', memory: '3Gi' } };

    // Act
    const [it] = parseInstanceTypesFile([entry], opts);

    // Assess
    expect(it.allocatable).toEqual({ cpu: 3500, memory: 3 * GiB, pods: 5, 'nvidia.com/gpu': 2 });
    expect(it.overhead.kubeReserved).toEqual({ cpu: 500, memory: 1024 * MiB });
  });

  it('should keep file order across both forms and default explicit pods to 110', () => {
    // Prepare
    const small = { name: 'tiny', capacity: { cpu: 1, memory: '1Gi' }, offerings: [{ zone: 'z', capacityType: 'on-demand', price: 0.01 }] };

    // Act
    const types = parseInstanceTypesFile([small, catalogEntry('t3.large'), explicit], opts);

    // Assess
    expect(types.map((t) => t.name)).toEqual(['tiny', 't3.large', 'big.box']);
    expect(types[0].capacity.pods).toBe(110);
    expect(types[1].capacity.pods).toBe(35);
  });

  it('should name the entry index and field of an invalid quantity', () => {
    // Prepare
    const bad = { ...explicit, name: 'bad.box', capacity: { cpu: 'four', memory: '4Gi' } };

    // Act
    const e = errorOf(() => parseInstanceTypesFile([explicit, bad], opts));

    // Assess
    expect(e.name).toBe('InstanceTypesFileInvalidError');
    expect(e.entryIndex).toBe(1);
    expect(e.path).toBe('capacity.cpu');
    expect(e.message).toContain('entry [1] (bad.box)');
    expect(e.message).toContain('capacity.cpu');
  });

  it('should reject entries with missing or wrongly typed fields', () => {
    // Prepare / Act
    const noMemory = errorOf(() => parseInstanceTypesFile([{ ...explicit, capacity: { cpu: '2' } }], opts));
    const badOffering = errorOf(() => parseInstanceTypesFile([{ ...explicit, offerings: [{ zone: 'a', capacityType: 'cheap', price: 1 }] }], opts));
    const noOfferings = errorOf(() => parseInstanceTypesFile([{ ...explicit, offerings: [] }], opts));
    const badVcpu = errorOf(() => parseInstanceTypesFile([{ name: 'm5.large', vcpu: 'two', memoryMiB: 8192 }], opts));
    const unknownShape = errorOf(() => parseInstanceTypesFile([{ name: 'x' }], opts));

    // Assess
    expect(noMemory.path).toBe('capacity.memory');
    expect(badOffering.path).toBe('offerings.0.capacityType');
    expect(noOfferings.path).toBe('offerings');
    expect(badVcpu.path).toBe('vcpu');
    expect(unknownShape.message).toContain('entry [0] (x)');
  });

  it('should reject allocatable above capacity, duplicates and a non-array file', () => {
    // Prepare / Act
    const above = errorOf(() => parseInstanceTypesFile([{ ...explicit, allocatable: { memory: '8Gi' } }], opts));
    const dup = errorOf(() => parseInstanceTypesFile([explicit, explicit], opts));
    const notArray = errorOf(() => parseInstanceTypesFile({ types: [] }, opts));

    // Assess
    expect(above.path).toBe('allocatable.memory');
    expect(above.message).toContain('exceeds capacity 4Gi');
    expect(dup.entryIndex).toBe(1);
    expect(dup.message).toContain('duplicate of entry [0]');
    expect(notArray.message).toBe('instance types file: expected a JSON array of instance types');
  });

  it('should apply ICE marks to explicit offerings', () => {
    // Prepare
    const unavailable = [{ instanceType: 'big.box', zone: 'test-1a', capacityType: 'spot' as const }];

    // Act
    const [it] = parseInstanceTypesFile([explicit], { ...opts, unavailable });

    // Assess
    expect(it.offerings.map((o) => o.available)).toEqual([false, true]);
  });
});
