import { defineConfig } from 'vitest/config';

/**
 * Projects, all run by `npm test`: the unit tests (`npm run test:unit`, the fast loop: everything that does not run
 * a whole simulated world, package the stack or fuzz the CLI) and `e2e` (`npm run test:e2e`: the shipped scenarios
 * and other whole-world runs, the Serverless packaging, the IAM derivation from a simulated run, the CLI fuzzing).
 */
/** Files that replace modules (vi.mock) need a module registry of their own. */
const ISOLATED = ['test/adapters/aws/ec2-instance-types.test.ts'];

const E2E = [
  'test/sim/*.test.ts',
  'test/sim/shipped/**/*.test.ts',
  'test/cli/fuzz.test.ts',
  'test/cli/log-lines.test.ts',
  'test/infra/package.test.ts',
  'test/infra/iam-derived.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      // Threads sharing one module registry per worker: most of a file's cost here is importing, paid once.
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...E2E, ...ISOLATED], pool: 'threads', isolate: false } },
      { extends: true, test: { name: 'unit-isolated', include: ISOLATED } },
      { extends: true, test: { name: 'e2e', include: E2E } },
    ],
  },
});
