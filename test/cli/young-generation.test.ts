import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEAR_PAGE_MICROS, SMALL_INPUT_BYTES, freshPageMicros, manifestFiles, youngGenerationFlag } from '../../bin/young-generation.mjs';

const dir = mkdtempSync(join(os.tmpdir(), 'nodewright-young-'));
const small = join(dir, 'small.yaml');
const large = join(dir, 'large.yaml');
writeFileSync(small, 'kind: Pod\n');
writeFileSync(large, Buffer.alloc(SMALL_INPUT_BYTES, 0x20));

describe('the young generation of a short CLI run', () => {
  it('should read the manifest files of plan and explain in every form the CLI accepts', () => {
    // Act
    const files = manifestFiles(['plan', '-f', 'a.yaml', '--file', 'b.yaml', '--file=c.yaml', '-fd.yaml', '-o', 'json', '--', '-f', 'x']);
    // Assess
    expect(files).toEqual(['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml']);
    expect(manifestFiles(['simulate', '-f', 'a.yaml'])).toEqual([]);
  });

  it('should hold the growth for a small plan on a machine whose fresh pages are dear', () => {
    // Act
    const flag = youngGenerationFlag(['plan', '-f', small], 11, () => 12);
    // Assess
    expect(flag).toBe('--semi-space-growth-factor=1');
  });

  it('should leave V8 alone on cheap pages, for large inputs, for a running cluster, for other commands and on unmeasured V8 versions', () => {
    // Arrange
    const probe = vi.fn(() => 12);
    // Act / Assess
    expect(youngGenerationFlag(['plan', '-f', small], 11, () => DEAR_PAGE_MICROS / 10)).toBeUndefined();
    expect(youngGenerationFlag(['plan', '-f', small, '-f', large], 11, probe)).toBeUndefined();
    expect(youngGenerationFlag(['plan', '-f', join(dir, 'missing.yaml')], 11, probe)).toBeUndefined();
    expect(youngGenerationFlag(['--help'], 11, probe)).toBeUndefined();
    expect(youngGenerationFlag(['plan', '-f', small], 13, probe)).toBeUndefined();
    expect(youngGenerationFlag(['plan', '-f', small, '--kubeconfig', small], 11, probe)).toBeUndefined();
    expect(youngGenerationFlag(['plan', '--context=prod', '-f', small], 11, probe)).toBeUndefined();
    // The probe (≈ 1 ms where pages are dear) runs only when its answer matters.
    expect(probe).not.toHaveBeenCalled();
  });

  it('should measure a positive cost per fresh page', () => {
    // Act
    const us = freshPageMicros(8);
    // Assess
    expect(us).toBeGreaterThan(0);
  });
});
