/** Every shipped scenario (examples/scenarios/*.yaml) has a test here that runs it and holds it to expectClean. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shippedScenarios } from './helpers';

describe('shipped scenarios are all tested', () => {
  it('should run every examples/scenarios/*.yaml with runShipped and check it with expectClean', () => {
    const dir = new URL('./', import.meta.url);
    const tests = readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(new URL(f, dir), 'utf8'));
    const scenarios = shippedScenarios();
    expect(scenarios.length).toBeGreaterThan(0);
    for (const name of scenarios) {
      expect(
        tests.some((t) => (t.includes(`runShipped('${name}')`) || t.includes(`runShipped('${name}', `)) && t.includes('expectClean(')),
        `${name}.yaml has no test calling expectClean`,
      ).toBe(true);
    }
  });
});
