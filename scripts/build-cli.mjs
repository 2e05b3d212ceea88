#!/usr/bin/env node
/**
 * Prebuilds the CLI (`npm ci` runs it as `prepare`): esbuild bundles cli/main.ts and everything it imports into
 * dist/cli/ (ES modules, code-split so `audit` loads the AWS SDK only when run), so `nodewright --help` and
 * `nodewright plan` start without compiling TypeScript. The simulator commands (simulate, sim serve, demo,
 * doctor --sim) still run from the sources through tsx: they load the production Lambda handlers from
 * functions/*.ts exactly as serverless.yml names them, and those must share one module graph with the
 * simulator.
 *
 * Beside the bundle, dist/cli/inputs.json lists the source files it was built from; bin/nodewright.mjs falls
 * back to the sources when any is newer, so an edit is never hidden behind a stale build.
 */
import { build } from 'esbuild';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist/cli');

/**
 * The simulator is not bundled: the launcher runs its commands from the sources (see above). The one module of it a
 * prebuilt command uses — the reader of infra/functions (`doctor` counts the deployed functions) — is bundled.
 */
const simulatorExternal = {
  name: 'simulator-from-sources',
  setup(b) {
    b.onResolve({ filter: /shared\/sim(\/|$)/ }, (args) => (/runtime\/functions$/.test(args.path) ? undefined : { path: args.path, external: true }));
  },
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const started = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Lambda-only and optional packages the CLI paths above never load at start.
  external: ['@aws-sdk/*', '@smithy/*', '@kubernetes/client-node', 'highs', 'tsx', 'aws-sdk-client-mock', 'sinon'],
  metafile: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [simulatorExternal],
  // `require` for the CommonJS packages bundled into an ES module.
  banner: { js: "import { createRequire as __nwCreateRequire } from 'node:module'; const require = __nwCreateRequire(import.meta.url);" },
});
const inputs = Object.keys(result.metafile.inputs)
  .filter((f) => !f.includes('node_modules/'))
  .map((f) => relative(root, resolve(root, f)));
writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ builtAt: started, inputs: [...inputs, 'package-lock.json'] })}\n`);
console.log(`built dist/cli from ${inputs.length} source files in ${Date.now() - started} ms`);
