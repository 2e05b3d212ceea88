#!/usr/bin/env node
// The nodewright CLI. `npm ci` prebuilds it (scripts/build-cli.mjs → dist/cli), so `--help`, `plan`, `explain`,
// `audit` and `doctor` start at once. The simulator commands run from the TypeScript sources through tsx (a
// pinned dependency): they load the production Lambda handlers from functions/*.ts, as deployed. Without a
// build — or when a source file is newer than it — everything runs from the sources.
import { existsSync, readFileSync, statSync } from 'node:fs';
import v8 from 'node:v8';
import { youngGenerationFlag } from './young-generation.mjs';

const args = process.argv.slice(2);
const simulator = ['simulate', 'sim', 'demo'].includes(args[0]) || (args[0] === 'doctor' && args.includes('--sim'));

function prebuilt() {
  if (simulator || process.env.NODEWRIGHT_FROM_SOURCES) return undefined;
  const root = new URL('../', import.meta.url);
  const bundle = new URL('dist/cli/main.js', root);
  if (!existsSync(bundle)) return undefined;
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(new URL('dist/cli/inputs.json', root), 'utf8'));
    for (const f of inputs) if (statSync(new URL(f, root)).mtimeMs > builtAt) return undefined;
  } catch {
    return undefined;
  }
  return bundle;
}

/**
 * A CLI run lasts about a second on a small machine. With V8's default tier-up thresholds, functions that will
 * finish before their optimized code pays off start TurboFan jobs; on two vCPUs those jobs take the second core
 * from the GC helpers and make the main thread wait for a core (150 ms of a 5k-pod plan). A higher threshold
 * optimizes only the hot code (docs/benchmarks.md). Set only on the V8 versions where the flag was measured (an
 * unknown flag would print an error); the flag changes when code is optimized, never what it computes.
 */
const TIER_UP = { 11: '--interrupt-budget=264000', 12: '--invocation-count-for-turbofan=12000' };

let main;
const bundle = prebuilt();
if (bundle) {
  const v8Major = Number(process.versions.v8.split('.')[0]);
  const tierUp = TIER_UP[v8Major];
  if (tierUp) v8.setFlagsFromString(tierUp);
  const young = youngGenerationFlag(args, v8Major);
  if (young) v8.setFlagsFromString(young);
  ({ main } = await import(bundle.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
const code = await main(args);
// A simulation leaves loopback servers and SDK timers behind; exit once stdout and stderr are flushed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
