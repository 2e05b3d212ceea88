/**
 * Regression tests for issue #9 item 6: inputs that crashed the CLI (alias-heavy YAML, `kind: List` with
 * non-array items, an unparsable volumeSize, a billion replicas) are ManifestValidationErrors naming the
 * file, the document and the field.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_EXPANDED_PODS, parseManifestFiles, parseManifests } from '../../../shared/core/model/manifests';
import { validationError } from './helpers';

const INFLATE = readFileSync(fileURLToPath(new URL('../../../examples/inflate.yaml', import.meta.url)), 'utf8');

/** A document whose aliases expand to 9^7 ≈ 4.8 million scalars (the "billion laughs" shape). */
const ALIAS_BOMB = `apiVersion: v1
kind: ConfigMap
metadata: {name: lol}
data:
  a: &a ["x","x","x","x","x","x","x","x","x"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
`;

describe('manifests that used to crash the CLI', () => {
  it('should reject an alias bomb as invalid YAML in its document, without expanding it', () => {
    // Act
    const e = validationError(() => parseManifests(`apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n${ALIAS_BOMB}`, 'bomb.yaml'));

    // Assess
    expect(e.file).toBe('bomb.yaml');
    expect(e.documentIndex).toBe(1);
    expect(e.message).toMatch(/^bomb\.yaml: document 2: invalid YAML: .*alias/);
  });

  it('should reject an alias to an anchor that does not exist, naming the document', () => {
    // Act
    const e = validationError(() => parseManifests('apiVersion: v1\nkind: Pod\nmetadata: {name: *nope}\n', 'alias.yaml'));

    // Assess
    expect(e.message).toMatch(/^alias\.yaml: document 1: invalid YAML: .*nope/);
  });

  it('should still resolve ordinary anchors, aliases and merge keys', () => {
    // Prepare
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: a, labels: &labels {app: web}}
    spec:
      containers:
        - &c {name: c, image: pause, resources: {requests: {cpu: "1"}}}
  - apiVersion: v1
    kind: Pod
    metadata: {name: b, labels: *labels}
    spec:
      containers:
        - <<: *c
          name: d
`;
    // Act
    const set = parseManifests(text, 'ok.yaml');

    // Assess
    expect(set.pods.map((p) => [p.name, p.labels, p.requests.cpu])).toEqual([
      ['a', { app: 'web' }, 1000],
      ['b', { app: 'web' }, 1000],
    ]);
  });

  it.each([
    ['a mapping', 'items: {a: 1}'],
    ['a string', 'items: pods'],
    ['a number', 'items: 3'],
  ])('should reject kind: List whose items is %s, naming items', (_what, items) => {
    // Act
    const e = validationError(() => parseManifests(`apiVersion: v1\nkind: List\n${items}\n`, 'list.yaml'));

    // Assess
    expect(e.path).toBe('items');
    expect(e.message).toMatch(/^list\.yaml: document 1: items: /);
  });

  it('should reject a PodList whose items is not a list, and a List item that is not an object', () => {
    // Act
    const e1 = validationError(() => parseManifests('apiVersion: v1\nkind: PodList\nitems: {a: 1}\n', 'list.yaml'));
    const e2 = validationError(() =>
      parseManifests('apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Namespace, metadata: {name: a}}, 3]\n', 'list.yaml'),
    );

    // Assess
    expect(e1.path).toBe('items');
    expect(e2.path).toBe('items[1]');
  });

  it('should accept an empty or null List', () => {
    // Act
    const set = parseManifests('apiVersion: v1\nkind: List\nitems: []\n---\napiVersion: v1\nkind: List\nitems: null\n', 'list.yaml');

    // Assess
    expect(set.pods).toEqual([]);
  });

  it.each(['20 Gi', 'big', '1e999', '-20Gi'])('should reject volumeSize %j naming the field', (size) => {
    // Prepare
    const text = INFLATE.replace(
      '  role: "KarpenterNodeRole-demo"',
      `  role: "KarpenterNodeRole-demo"\n  blockDeviceMappings:\n    - deviceName: /dev/xvda\n      ebs: {volumeSize: "${size}"}`,
    );

    // Act
    const e = validationError(() => parseManifests(text, 'inflate.yaml'));

    // Assess
    expect(e.documentIndex).toBe(1);
    expect(e.path).toBe('spec.blockDeviceMappings[0].ebs.volumeSize');
  });

  it('should reject a billion replicas at once, naming the workload and spec.replicas', () => {
    // Prepare
    const text = INFLATE.replace('replicas: 5', 'replicas: 1000000000');

    // Act
    const started = Date.now();
    const e = validationError(() => parseManifests(text, 'inflate.yaml'));

    // Assess
    expect(Date.now() - started).toBeLessThan(2000);
    expect(e.documentIndex).toBe(2);
    expect(e.path).toBe('spec.replicas');
    expect(e.problem).toContain('Deployment default/inflate');
    expect(e.problem).toContain(String(MAX_EXPANDED_PODS.toLocaleString('en-US')));
  });

  it('should count pods across workloads and files against the cap', () => {
    // Prepare
    const half = Math.floor(MAX_EXPANDED_PODS / 2) + 1;
    const files = ['a', 'b'].map((n) => ({
      file: `${n}.yaml`,
      text: INFLATE.replace('replicas: 5', `replicas: ${half}`).replace('name: inflate\nspec', `name: inflate-${n}\nspec`),
    }));

    // Act
    const e = validationError(() => parseManifestFiles(files));

    // Assess
    expect(e.file).toBe('b.yaml');
    expect(e.path).toBe('spec.replicas');
    expect(e.problem).toContain('Deployment default/inflate-b');
  });

  it('should name spec.parallelism for a Job with too many parallel pods', () => {
    // Prepare
    const text = 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 1000000000\n  template: {spec: {containers: [{name: c}]}}\n';

    // Act
    const e = validationError(() => parseManifests(text, 'job.yaml'));

    // Assess
    expect(e.path).toBe('spec.parallelism');
  });
});

describe('keys named like Object.prototype members (found by the fuzz test)', () => {
  it('should warn about an unknown __proto__ or constructor field on a NodePool instead of crashing', () => {
    // Prepare
    const text = INFLATE.replace('  disruption:\n', '  constructor: 1\n  disruption:\n').replace(
      '      expireAfter: 720h',
      '      expireAfter: 720h\n      "__proto__": x',
    );

    // Act
    const set = parseManifests(text, 'inflate.yaml');

    // Assess
    expect(set.warnings.map((w) => w.message).join('\n')).toMatch(/constructor/);
  });

  it('should reject a requirement key or an AMI alias family named constructor as an ordinary bad value', () => {
    // Prepare
    const req = INFLATE.replace('key: kubernetes.io/os', 'key: constructor');
    const alias = INFLATE.replace('al2023@latest', 'constructor@latest');

    // Act
    const set = parseManifests(req, 'inflate.yaml');
    const e = validationError(() => parseManifests(alias, 'inflate.yaml'));

    // Assess
    expect(set.nodePools[0].template.requirements.map((r) => r.key)).toContain('constructor');
    expect(e.path).toBe('spec.amiSelectorTerms[0].alias');
  });
});

describe('pods the plan could not count (found by the fuzz test)', () => {
  it('should require metadata.name on a Pod and on a workload', () => {
    // Act
    const pod = validationError(() => parseManifests('apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: c}]}\n', 'p.yaml'));
    const deploy = validationError(() => parseManifests(INFLATE.replace('  name: inflate\nspec', '  labels: {}\nspec'), 'd.yaml'));

    // Assess
    expect(pod.path).toBe('metadata.name');
    expect(deploy.path).toBe('metadata.name');
    expect(deploy.documentIndex).toBe(2);
  });

  it('should plan a pod defined twice once, the last definition, with a warning', () => {
    // Prepare
    const pod = (cpu: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: {requests: {cpu: "${cpu}"}}}]}\n`;

    // Act
    const set = parseManifests(`${pod('1')}---\n${pod('2')}`, 'p.yaml');

    // Assess
    expect(set.pods.map((p) => p.requests.cpu)).toEqual([2000]);
    expect(set.warnings).toEqual([{ file: 'p.yaml', documentIndex: 1, message: 'pod default/a is defined more than once; the last definition is used' }]);
  });

  it('should not take Object.prototype members for priority classes', () => {
    // Act
    const set = parseManifests('apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {priorityClassName: constructor, containers: [{name: c}]}\n', 'p.yaml');

    // Assess
    expect(set.pods[0].priority).toBe(0);
  });
});
