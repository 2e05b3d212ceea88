import tseslint from 'typescript-eslint';

// shared/core must stay pure: no AWS SDK, no Kubernetes client, no adapters/sim/functions,
// no process.env, no wall clock, no randomness. Time comes through the Clock port, data through ports.
const coreRestrictedImports = {
  patterns: [
    {
      group: ['@aws-sdk/*', '@smithy/*', '@aws-crypto/*', '@aws-lambda-powertools/*', '@middy/*'],
      message: 'shared/core is pure: AWS code lives in shared/adapters.',
    },
    { group: ['@kubernetes/*'], message: 'shared/core is pure: the Kubernetes client lives in shared/adapters/kubernetes.' },
    {
      group: ['**/adapters/**', '**/adapters', '**/sim/**', '**/sim', '**/functions/**', '**/cli/**'],
      message: 'shared/core must not depend on outer layers.',
    },
    {
      group: ['node:*', 'fs', 'fs/*', 'os', 'child_process', 'http', 'https', 'net', 'crypto', 'process', 'timers', 'timers/*'],
      message: 'shared/core is pure: no I/O, no process, no timers.',
    },
  ],
};

// Schemas use zod/mini through shared/core/zod.ts (the English messages are configured there), imported as a
// namespace: classic `zod` and zod/mini's own `z` object do not tree-shake (≈ 450 kB of every Lambda bundle).
const zodRestrictedImports = {
  paths: [
    { name: 'zod', message: "classic zod does not tree-shake (≈ 450 kB per bundle): import * as z from 'shared/core/zod' (zod/mini with English messages)." },
  ],
  patterns: [
    {
      group: ['zod/*'],
      message: "import * as z from 'shared/core/zod': it configures zod/mini's English messages (without them every issue reads \"Invalid input\").",
    },
  ],
};
const zodNamedZ = {
  selector: "ImportDeclaration[source.value=/(^|\\/)zod$/] > ImportSpecifier[imported.name='z']",
  message:
    "import * as z from 'shared/core/zod': the named `z` is zod/mini's namespace object, which pulls all of zod and its locales (≈ 430 kB) into the bundle.",
};

export default tseslint.config(
  { ignores: ['node_modules/**', '.serverless/**', '.esbuild/**', 'dist/**', 'coverage/**', 'bin/**', 'tmp/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Small units (#14): no source file over 300 lines, no function over 80 (blank lines and comments not
    // counted). Not for tests, benchmarks, scripts or infra.
    files: ['shared/**/*.ts', 'functions/**/*.ts', 'cli/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // CommonJS files (serverless-esbuild `require`s its plugins file) load their modules with require.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // What lands on main runs every test: no focused tests, no skipped ones without a stated condition
    // (describe.skipIf / it.skipIf with a reason logged), no tests that pass by failing.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name=/^(it|test|describe)$/][property.name='only']", message: 'no focused tests on main: remove .only.' },
        {
          selector: "MemberExpression[object.name=/^(it|test|describe)$/][property.name='skip']",
          message: 'no skipped tests on main: use skipIf(condition) and log why.',
        },
        { selector: "MemberExpression[object.name=/^(it|test)$/][property.name='fails']", message: 'no it.fails on main: fix the code or the test.' },
      ],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts', 'cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', zodRestrictedImports],
      'no-restricted-syntax': ['error', zodNamedZ],
    },
  },
  {
    files: ['shared/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: zodRestrictedImports.paths, patterns: [...coreRestrictedImports.patterns, ...zodRestrictedImports.patterns] },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'shared/core is pure: configuration comes in as arguments.' },
        { name: 'setTimeout', message: 'shared/core is pure: use the Clock port.' },
        { name: 'setInterval', message: 'shared/core is pure: use the Clock port.' },
        { name: 'fetch', message: 'shared/core is pure: I/O belongs to adapters.' },
        { name: 'performance', message: 'shared/core is pure: use the Clock port.' },
        { name: 'require', message: 'shared/core is pure.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'shared/core is pure: use the Clock port.' },
        { object: 'Math', property: 'random', message: 'shared/core is pure: randomness must be injected.' },
        { object: 'crypto', property: 'randomUUID', message: 'shared/core is pure: randomness must be injected.' },
        { object: 'process', property: 'env', message: 'shared/core is pure: configuration comes in as arguments.' },
        { object: 'globalThis', property: 'Date', message: 'shared/core is pure: use the Clock port.' },
        { object: 'globalThis', property: 'process', message: 'shared/core is pure: configuration comes in as arguments.' },
        { object: 'globalThis', property: 'performance', message: 'shared/core is pure: use the Clock port.' },
        { object: 'globalThis', property: 'crypto', message: 'shared/core is pure: randomness must be injected.' },
        { object: 'crypto', property: 'getRandomValues', message: 'shared/core is pure: randomness must be injected.' },
      ],
      'no-restricted-syntax': [
        'error',
        zodNamedZ,
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'shared/core is pure: new Date() reads the wall clock; use the Clock port.',
        },
        { selector: "CallExpression[callee.name='Date']", message: 'shared/core is pure: Date() reads the wall clock.' },
        // An alias (const D = Date; new D()) would slip past the rules above: Date is only ever called with arguments.
        { selector: "VariableDeclarator > Identifier.init[name='Date']", message: 'shared/core is pure: do not alias Date (it reads the wall clock).' },
        { selector: "AssignmentExpression > Identifier.right[name='Date']", message: 'shared/core is pure: do not alias Date (it reads the wall clock).' },
        { selector: "MemberExpression[computed=true][object.name='globalThis']", message: 'shared/core is pure: no dynamic globalThis lookups.' },
        { selector: "MemberExpression[computed=true][object.expression.name='globalThis']", message: 'shared/core is pure: no dynamic globalThis lookups.' },
      ],
    },
  },
  {
    // The one module that imports zod/mini itself.
    files: ['shared/core/zod.ts'],
    rules: {
      'no-restricted-imports': ['error', coreRestrictedImports],
    },
  },
);
