/**
 * The block-subset YAML reader (shared/core/model/manifests/block-yaml.ts) must give exactly what js-yaml gives
 * (the manifest parser's fast path relied on js-yaml before): on every YAML file in the repository, on edge
 * cases at the subset's borders, and on generated documents written by the `yaml` library and js-yaml in
 * several styles.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import jsyaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadAllManifestYaml, MANIFEST_SCHEMA } from '../../../shared/core/model/manifests/block-yaml';

const ROOT = resolve(__dirname, '../../..');

/** What js-yaml answers: the documents, or that it throws. */
function both(text: string): { js: unknown; ours: unknown } {
  const run = (f: () => unknown) => {
    try {
      return { value: f() };
    } catch {
      return { error: true };
    }
  };
  return { js: run(() => jsyaml.loadAll(text, undefined, { schema: MANIFEST_SCHEMA })), ours: run(() => loadAllManifestYaml(text)) };
}

const EDGE_CASES = [
  '',
  '\n',
  '# only a comment\n',
  '---\n',
  '---\n---\n',
  'a: 1\n---\n',
  'a: 1\n---\n# c\n',
  '# c\n---\na: 1\n',
  'a: 1\n---\n---\nb: 2\n',
  'a:\n- 1\n- 2\nb: 3\n',
  'a:\n  - x: 1\n    y: 2\n  - z\n',
  '- a\n- b: 1\n  c: 2\n',
  '-\n- a\n',
  '- \n  a: 1\n',
  '- - a\n',
  'a:\n  b:\n    c: d\n  e: f\n',
  '  a: 1\n  b: 2\n',
  'a: 1\n b: 2\n',
  'a: b\n  c\n',
  'a:    \nb: ~\n',
  'a: "x\\ty"\nb: "\\u00e9\\/"\nc: "\\x41"\nd: "\\0"\n',
  "a: 'it''s'\nb: ''\n",
  'a: b # comment\n',
  'a: b#c\n',
  'a: |\n  x\n',
  'a: >-\n  x\n',
  'a: [1, 2]\nb: {c: d}\n',
  'a: {}\nb: []\n',
  'a: 1\na: 2\n',
  '"a": 1\n\'b c\': 2\n"d"  : 3\n',
  'a: -1\nb: .inf\nc: 0x1F\nd: 0o17\ne: 1e3\nf: ~\ng: Null\nh: TRUE\ni: 1_000\nj: +12\nk: .5\nl: -.INF\nm: .NaN\nn: 0b101\no: 012\n',
  'true: 1\n1.0: 2\nnull: 3\n~: 4\n0x10: 5\n',
  'a: 2026-01-01T00:00:00Z\nb: 1.2.3\nc: 10Gi\nd: 500m\ne: "1"\n',
  'a: -\nb: :x\nc: x:\nd: -x\ne: ?x\nf: ? x\n',
  'key with spaces: value with  spaces\n',
  'a:\n\n  b: 1\n\n# c\n  c: 2\n',
  'a: "unterminated\n',
  'a: 1\n...\n',
  '%YAML 1.2\n---\na: 1\n',
  '--- {a: 1}\n',
  '--- # comment\na: 1\n',
  'a: <<\n',
  '<<: {a: 1}\nb: 2\n',
  '__proto__: 1\n',
  'a:\tb\n',
  'a:\n\t- b\n',
  'a: b\r\nc: d\r\n',
  'a: "q" x\n',
  ': v\n',
  '? a\n: b\n',
  "a: 'x\ty'\n",
  'a: 1 # c\nb:\n  - x # c\n',
  'a: "#x"\nb: \'a: b\'\nc: "a: b"\n',
  '- a: 1\n  - b\n',
  'a:\n  - b\n  c: 1\n',
  'a: b\n- c\n',
  // Found by an adversarial review: tabs after separators, byte order marks, non-printable characters, Unicode
  // spaces after `---`, js-yaml's depth limit, and its reading of an empty item before a shallower dash.
  'a: \tb\n',
  '- \tb\n',
  '- \ta: 1\n',
  '\t# c\n---\na: 1\n',
  '\uFEFFa: 1\n',
  '\uFEFF',
  'a: 1\n---\n\uFEFFb: |\n  x\n',
  'a: 1\u0000\n',
  'a: 1\n# \u0000\n',
  'a: b\u0001c\n',
  'a: b\u0085c\n',
  "a: 'x\u0001'\n",
  'a: \uD800\n',
  'a: 1\n--- \u00a0x\n',
  'a: 1\n--- \u2028\n',
  `${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`,
  `${Array.from({ length: 99 }, (_, i) => `${' '.repeat(i)}-`).join('\n')} x\n`,
  '-\n  -\n- b\n',
  '- a:\n  -\n- b\n',
  '- 1:\n   -\n# c\n- x\n',
];

describe('the block YAML reader', () => {
  it('should read every YAML file in the repository as js-yaml does', () => {
    // Prepare
    const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files.length).toBeGreaterThan(30);
    for (const f of files) {
      // Act
      const { js, ours } = both(readFileSync(resolve(ROOT, f), 'utf8'));
      // Assess
      expect(ours, f).toStrictEqual(js);
    }
  });

  it('should agree with js-yaml at the borders of its subset, falling back or failing as js-yaml does', () => {
    for (const text of EDGE_CASES) {
      // Act
      const { js, ours } = both(text);
      // Assess
      expect(ours, JSON.stringify(text)).toStrictEqual(js);
    }
  });

  it('should agree with js-yaml on generated manifests, as the yaml library and js-yaml write them', () => {
    // Prepare: keys and strings that look like other YAML types, need quoting, or carry indicators.
    const tricky = fc.constantFrom(
      'true',
      'False',
      'null',
      '~',
      '',
      ' ',
      '1',
      '-1',
      '1.5',
      '1e3',
      '0x1F',
      '.inf',
      '.nan',
      '- a',
      ': b',
      'a: b',
      '#x',
      'a #b',
      "it's",
      'say "hi"',
      '\t',
      'é',
      'x\ny',
      '[a]',
      '{a}',
      '*a',
      '&a',
      '!a',
      '|',
      '>',
      '%',
      '@',
      '`',
      '<<',
      '---',
      '...',
      '-',
      '?',
      ':',
    );
    const key = fc.oneof(fc.string({ maxLength: 8 }), tricky);
    const scalar = fc.oneof(fc.string({ maxLength: 12 }), tricky, fc.integer(), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
      list: fc.array(tie('node'), { maxLength: 4 }),
      map: fc.dictionary(key, tie('node'), { maxKeys: 5 }),
    })).map;
    const style = fc.constantFrom<(v: unknown) => string>(
      (v) => stringify(v, { lineWidth: 0 }),
      (v) => stringify(v, { lineWidth: 0, indent: 4, indentSeq: false }),
      (v) => stringify(v, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }),
      (v) => stringify(v, { lineWidth: 0, defaultStringType: 'QUOTE_SINGLE' }),
      (v) => jsyaml.dump(v, { lineWidth: -1 }),
      (v) => jsyaml.dump(v, { lineWidth: -1, noArrayIndent: true, flowLevel: 2 }),
    );
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), style, (docs, write) => {
        // Act
        const text = docs.map(write).join('---\n');
        const { js, ours } = both(text);
        // Assess
        expect(ours).toStrictEqual(js);
      }),
      { numRuns: 400, seed: 20261125 },
    );
  });

  it('should read the documents tools write without falling back to js-yaml', () => {
    // Prepare: a kubectl-style Pod list, many documents.
    const pod = (i: number) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web', 'app.kubernetes.io/part-of': 'shop' }, annotations: {} },
      spec: {
        containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '250m', memory: '512Mi' } }, ports: [{ containerPort: 80 }] }],
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
        nodeSelector: { 'kubernetes.io/arch': 'amd64' },
      },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    });
    const text = Array.from({ length: 50 }, (_, i) => stringify(pod(i))).join('---\n');
    const load = jsyaml.load;
    let fallbacks = 0;
    (jsyaml as { load: typeof load }).load = (...args: Parameters<typeof load>) => (fallbacks++, load(...args));
    try {
      // Act
      const docs = loadAllManifestYaml(text);
      // Assess
      expect(docs).toStrictEqual(jsyaml.loadAll(text, undefined, { schema: MANIFEST_SCHEMA }));
      expect(fallbacks).toBe(0);
    } finally {
      (jsyaml as { load: typeof load }).load = load;
    }
  });
});
