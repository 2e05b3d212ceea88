/** `plan -o json` is written in pieces (cli/json-text.ts): the pieces must join to exactly JSON.stringify(value, null, 2). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../cli/json-text';
import { runCli } from './run';

const joined = (v: unknown, depth?: number) => [...jsonText(v, depth)].join('');

/** JSON values plus what JSON.stringify drops or changes: undefined, functions, dates, holes, boxed and null-prototype objects. */
const awkward = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(undefined, () => 1, new Date(0), Object.create(null) as object, new Map([[1, 2]]), new Number(3), [, 1]),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('jsonText', () => {
  it('should join to the same text as JSON.stringify(value, null, 2) at every cut depth', () => {
    fc.assert(
      fc.property(
        awkward.filter((v) => JSON.stringify(v) !== undefined),
        fc.integer({ min: 0, max: 4 }),
        (v, depth) => {
          expect(joined(v, depth)).toBe(JSON.stringify(v, null, 2));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('should cut a large plan into pieces of tens of kilobytes, not one output-sized string', () => {
    // Arrange: 2,000 claims of about 0.6 KB each.
    const pods = Array.from({ length: 20 }, (_, i) => `default/pod-${i}`);
    const plan = { nodeClaims: Array.from({ length: 2000 }, (_, i) => ({ hostname: `claim-${i}`, pods })), summary: { pods: 40000 } };
    // Act
    const pieces = [...jsonText(plan)];
    // Assess
    const text = JSON.stringify(plan, null, 2);
    expect(pieces.join('')).toBe(text);
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(64 * 1024);
  });

  it('should print a plan through the CLI exactly as JSON.stringify would', async () => {
    // Act
    const r = await runCli('plan', '-f', 'examples/inflate.yaml', '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(JSON.parse(r.stdout), null, 2)}\n`);
  });
});
