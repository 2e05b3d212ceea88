import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findCatalogEntry, loadCatalog } from '../../../shared/catalog';

describe('bundled instance-type catalog', () => {
  it('should hold every type of the source data, sorted and unique', () => {
    // Prepare / Act
    const entries = loadCatalog();
    const names = entries.map((e) => e.name);

    // Assess
    expect(entries).toHaveLength(1385);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    expect(findCatalogEntry('m5.xlarge')).toMatchObject({ vcpu: 4, memoryMiB: 16384, maxPodsEni: 58, specSource: 'karpenter-docs@692ccdd0' });
  });

  it('should give each caller its own array of shared, frozen entries', () => {
    // Prepare
    const a = loadCatalog();

    // Act
    a.length = 0;
    const b = loadCatalog();

    // Assess
    expect(b).toHaveLength(1385);
    expect(Object.isFrozen(b[0])).toBe(true);
  });

  it('should record the sha256 of the source file it was generated from', () => {
    // Prepare
    const provenance = readFileSync(new URL('../../../shared/catalog/PROVENANCE.md', import.meta.url), 'utf8');
    let source: string;
    try {
      source = readFileSync(new URL('../../../../shared/data/ec2-instance-types.json', import.meta.url), 'utf8');
    } catch {
      return; // the source data is not beside this checkout
    }

    // Act
    const sha = createHash('sha256').update(source).digest('hex');

    // Assess
    expect(provenance).toContain(sha);
    expect(provenance).toContain('npm run catalog');
  });
});
