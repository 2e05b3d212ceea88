#!/usr/bin/env node
// The nodewright CLI. `npm ci` prebuilds it (scripts/build-cli.mjs → dist/cli), so `--help`, `plan`, `explain`,
// `audit` and `doctor` start at once. The simulator commands run from the TypeScript sources through tsx (a
// pinned dependency): they load the production Lambda handlers from functions/*.ts, as deployed. Without a
// build — or when a source file is newer than it — everything runs from the sources.
import { existsSync, readFileSync, statSync } from 'node:fs';

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

let main;
const bundle = prebuilt();
if (bundle) {
  ({ main } = await import(bundle.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
const code = await main(args);
// A simulation leaves loopback servers and SDK timers behind; exit once stdout and stderr are flushed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
