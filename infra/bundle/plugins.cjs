// esbuild plugins for the function bundles (serverless.yml custom.esbuild.plugins). The first two only let esbuild's
// own tree shaking see what the bundle does not use; neither changes what the kept code does. The third picks the
// CommonJS build of a package whose ES build cannot run in a CommonJS bundle.
const { existsSync } = require('node:fs');
const { readFile } = require('node:fs/promises');
const { resolve } = require('node:path');

const CLIENT_NODE_DIST = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]/;
const CLIENT_NODE_GEN = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]/;

/**
 * AWS SDK v3 clients describe every shape of their service in one `schemas_0.js` (EC2: 1.3 MB of source, ~2,600
 * structures). Their trait objects use computed keys naming module constants — `{ [_eQN]: "Min" }` with
 * `const _eQN = "ec2QueryName"` — and esbuild cannot prove a computed key free of side effects, so every shape
 * was kept (EC2: 562 kB minified whatever commands a function sends). This writes each such key as the string
 * its constant holds (`{ ["ec2QueryName"]: "Min" }`, the same object), so only the shapes of the commands a
 * function imports stay. A key whose name is not a plain string constant of the file is left as it is.
 */
const sdkSchemas = {
  name: 'aws-sdk-schema-keys',
  setup(build) {
    build.onLoad({ filter: /[\\/]@aws-sdk[\\/]client-[a-z0-9-]+[\\/]dist-es[\\/]schemas[\\/]schemas_\d+\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const constants = new Map();
      for (const m of source.matchAll(/^const (_[A-Za-z0-9_$]+) = ("[^"\\\n]*");$/gm)) constants.set(m[1], m[2]);
      const contents = source.replace(/\[(_[A-Za-z0-9_$]+)\]:/g, (all, name) => (constants.has(name) ? `[${constants.get(name)}]:` : all));
      return { contents, loader: 'js' };
    });
  },
};

/**
 * @kubernetes/client-node's KubeConfig (the only part the functions use, with its Watch) imports the generated
 * API index for two small helpers; without a `sideEffects` flag in its package.json, esbuild keeps all ~900
 * generated models and API classes (≈ 320 kB) that nothing calls. Marking the generated modules side-effect free
 * lets esbuild drop the ones nothing imports; the ones KubeConfig does use are kept whole.
 */
const kubernetesGenerated = {
  name: 'kubernetes-generated-side-effect-free',
  setup(build) {
    // client-node's own imports are relative with explicit `.js` extensions, so they resolve without asking esbuild.
    build.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      if (!CLIENT_NODE_DIST.test(args.importer)) return undefined;
      const path = resolve(args.resolveDir, args.path);
      if (!CLIENT_NODE_GEN.test(path) || !existsSync(path)) return undefined;
      return { path, sideEffects: false };
    });
  },
};

/**
 * `highs` (the LP solver's WASM loader) has an ES build for `import` that finds its directory with
 * `createRequire(import.meta.url)`, which is undefined in a CommonJS bundle (the load fails at the first LP). Its
 * CommonJS build finds highs.wasm from `__dirname`, and the adapter's locateFile falls back to where serverless.yml
 * packages it (shared/adapters/lp/highs.ts).
 */
const highsCommonJs = {
  name: 'highs-commonjs',
  setup(build) {
    build.onResolve({ filter: /^highs$/ }, () => ({ path: require.resolve('highs') }));
  },
};

module.exports = [sdkSchemas, kubernetesGenerated, highsCommonJs];
