/**
 * Fuzzing the CLI's inputs (issue #9 item 6): mutations of the shipped example manifests and scenario files
 * go through the same parse + plan entry `nodewright plan` uses (in process), and through the scenario reader
 * `nodewright simulate` uses. Each case ends in a valid plan, a ManifestValidationError naming its file and
 * document, or a ScenarioInvalidError naming its file and field — never any other exception — within a time
 * bound. Deterministic seed (NODEWRIGHT_FUZZ_SEED to change it); NODEWRIGHT_FUZZ_RUNS=N runs N cases (default 10,000).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runPlan } from '../../cli/plan';
import { isManifestValidationError } from '../../shared/core/errors';
import { MAX_EXPANDED_PODS, parseManifestFiles } from '../../shared/core/model/manifests';
import { parseScenario } from '../../shared/sim/scenario/schema';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SEED = Number(process.env.NODEWRIGHT_FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.NODEWRIGHT_FUZZ_RUNS ?? 10_000);
/** Three in four cases are manifests (parse + plan), one in four scenario files (parse only). */
const MANIFEST_RUNS = Math.ceil(RUNS * 0.75);
const SCENARIO_RUNS = RUNS - MANIFEST_RUNS;
/** No single case may take longer (a 100,000-pod plan, the cap, takes about 3–4 s here). */
const CASE_TIME_LIMIT_MS = 10_000;

type Json = unknown;

const scenarioTexts = readdirSync(`${ROOT}examples/scenarios`)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => readFileSync(`${ROOT}examples/scenarios/${f}`, 'utf8'));
const manifestTexts = [
  readFileSync(`${ROOT}examples/inflate.yaml`, 'utf8'),
  ...scenarioTexts.map((t) => String((parse(t) as { objects?: string }).objects ?? '').replace(/\$\{CLUSTER_NAME\}/g, 'demo')),
  ...readdirSync(`${ROOT}test/fixtures/manifests`)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => readFileSync(`${ROOT}test/fixtures/manifests/${f}`, 'utf8')),
];
/** Each source file as its list of documents (plain JSON). */
const manifestSources: Json[][] = manifestTexts.map((t) =>
  parseAllDocuments(t, { merge: true })
    .map((d) => d.toJS() as Json)
    .filter((d) => d != null),
);
const scenarioSources: Json[] = scenarioTexts.map((t) => parse(t, { merge: true }) as Json);

// ---------------------------------------------------------------------------------------------------------
// Mutations of a JSON tree

const NASTY_SCALARS: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  2.5,
  -0.5,
  1e9,
  -1e9,
  2 ** 53,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  99_999,
  '',
  ' ',
  '0',
  '-1',
  '-1Gi',
  '1e999',
  '20 Gi',
  '20Gi',
  '500m',
  '1.5',
  'NaN',
  'Infinity',
  'Never',
  '0s',
  '15m',
  '1h30m',
  '100%',
  '101%',
  '-5%',
  'List',
  'PodList',
  'GCENodeClass',
  'EC2NodeClass',
  'karpenter.k8s.aws',
  'karpenter.sh/nodepool',
  'kubernetes.io/hostname',
  'In',
  'NotIn',
  'Gt',
  'Exists',
  'NoSchedule',
  '@daily',
  '* * * * *',
  'al2023@latest',
  '*',
  '~',
  'null',
  '<<',
  '${CLUSTER_NAME}',
  'é',
  '🚀',
  '\u0000',
  '\u202e',
  'a'.repeat(400),
  '2026-01-01T00:00:00Z',
];
const FIELD_NAMES = [
  'replicas',
  'items',
  'kind',
  'apiVersion',
  'limits',
  'volumeSize',
  'minValues',
  'values',
  'weight',
  'nodeClassRef',
  'requirements',
  'taints',
  'budgets',
  'nodes',
  'schedule',
  'duration',
  'consolidateAfter',
  'expireAfter',
  'parallelism',
  'completions',
  'resources',
  'requests',
  'nodeSelector',
  'affinity',
  'topologySpreadConstraints',
  'priorityClassName',
  'events',
  'objects',
  'apply',
  'scale',
  'at',
  'seed',
  'zones',
  'region',
  'capacity',
  '__proto__',
  'constructor',
  '',
];

const nastyValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_SCALARS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom<Json>([], {}, [null], [[]], { a: 1 }, ['x', 1, true]) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

type Op =
  | { kind: 'delete' }
  | { kind: 'replace'; value: Json }
  | { kind: 'insert'; key: string; value: Json }
  | { kind: 'wrapInList' }
  | { kind: 'stringify' }
  | { kind: 'share'; from: number };

interface Mutation {
  at: number;
  op: Op;
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Op>({ kind: 'delete' }) },
  { weight: 6, arbitrary: nastyValue.map((value): Op => ({ kind: 'replace', value })) },
  {
    weight: 2,
    arbitrary: fc.record({ key: fc.constantFrom(...FIELD_NAMES), value: nastyValue }).map(({ key, value }): Op => ({ kind: 'insert', key, value })),
  },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'wrapInList' }) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'stringify' }) },
  // The same object in two places: yaml's stringify writes an anchor and an alias.
  { weight: 1, arbitrary: fc.nat().map((from): Op => ({ kind: 'share', from })) },
);
const mutationsArb = fc.array(fc.record({ at: fc.nat(), op: opArb }), { minLength: 1, maxLength: 4 });

interface Slot {
  parent: Record<string, Json> | Json[];
  key: string | number;
  value: Json;
}

/** Every (parent, key) slot in the tree, depth first. */
function slots(root: Json[]): Slot[] {
  const out: Slot[] = [];
  const walk = (parent: Record<string, Json> | Json[], key: string | number, value: Json) => {
    out.push({ parent, key, value });
    if (Array.isArray(value)) value.forEach((v, i) => walk(value, i, v));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(value as Record<string, Json>, k, v);
  };
  root.forEach((v, i) => walk(root, i, v));
  return out;
}

function setSlot(s: Slot, value: Json): void {
  if (Array.isArray(s.parent)) s.parent[s.key as number] = value;
  else Object.defineProperty(s.parent, s.key, { value, enumerable: true, writable: true, configurable: true });
}

function mutate(docs: Json[], mutations: Mutation[]): Json[] {
  const root = structuredClone(docs);
  for (const { at, op } of mutations) {
    const all = slots(root);
    if (all.length === 0) return root;
    const s = all[at % all.length];
    switch (op.kind) {
      case 'delete':
        if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
        else delete s.parent[s.key as string];
        break;
      // A copy of the generated value: fast-check may hand the same instance to two mutations, and placing it
      // inside itself would make a cycle no YAML file can express (an unintended 'share').
      case 'replace':
        setSlot(s, structuredClone(op.value));
        break;
      case 'insert':
        if (s.value && typeof s.value === 'object' && !Array.isArray(s.value)) {
          Object.defineProperty(s.value, op.key, { value: structuredClone(op.value), enumerable: true, writable: true, configurable: true });
        } else setSlot(s, { [op.key]: structuredClone(op.value) });
        break;
      case 'wrapInList':
        setSlot(s, [s.value]);
        break;
      case 'stringify':
        setSlot(s, JSON.stringify(s.value) ?? 'undefined');
        break;
      case 'share': {
        const other = all[op.from % all.length];
        if (other.value && typeof other.value === 'object' && !isAncestor(other.value, s)) setSlot(s, other.value);
        break;
      }
    }
  }
  return root;
}

/** True when `value` contains the slot's parent (sharing it there would make a cycle). */
function isAncestor(value: Json, s: Slot): boolean {
  if (value === s.parent) return true;
  if (Array.isArray(value)) return value.some((v) => isAncestor(v, s));
  if (value && typeof value === 'object') return Object.values(value).some((v) => isAncestor(v, s));
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Text-level mutations (what no JSON tree can express)

const BOMB =
  'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a: &a ["x","x","x","x","x","x","x","x","x"]\n' +
  '  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n' +
  '  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n';

type TextOp =
  | { kind: 'none' }
  | { kind: 'bomb' }
  | { kind: 'unresolvedAlias'; at: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insertChars'; at: number; chars: string }
  | { kind: 'asList' }
  | { kind: 'duplicateLine'; at: number };

const textOpArb: fc.Arbitrary<TextOp> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<TextOp>({ kind: 'none' }) },
  { weight: 1, arbitrary: fc.constant<TextOp>({ kind: 'bomb' }) },
  { weight: 1, arbitrary: fc.nat().map((at): TextOp => ({ kind: 'unresolvedAlias', at })) },
  { weight: 1, arbitrary: fc.nat().map((at): TextOp => ({ kind: 'truncate', at })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ at: fc.nat(), chars: fc.constantFrom(':', '- ', '{', ']', '&a ', '*a', '\t', '"', '\n---\n', '? ', '!!binary ', '%YAML 1.1\n', '<<: *a\n') })
      .map((r): TextOp => ({ kind: 'insertChars', ...r })),
  },
  { weight: 1, arbitrary: fc.constant<TextOp>({ kind: 'asList' }) },
  { weight: 1, arbitrary: fc.nat().map((at): TextOp => ({ kind: 'duplicateLine', at })) },
);

function applyText(text: string, op: TextOp, docs: Json[]): string {
  const lines = text.split('\n');
  switch (op.kind) {
    case 'none':
      return text;
    case 'bomb':
      return `${text}\n---\n${BOMB}`;
    case 'unresolvedAlias': {
      const i = op.at % lines.length;
      lines[i] = lines[i].replace(/: .+$/, ': *nowhere');
      return lines.join('\n');
    }
    case 'truncate':
      return text.slice(0, op.at % (text.length + 1));
    case 'insertChars': {
      const at = op.at % (text.length + 1);
      return text.slice(0, at) + op.chars + text.slice(at);
    }
    case 'asList':
      return stringify({ apiVersion: 'v1', kind: 'List', items: docs });
    case 'duplicateLine': {
      const i = op.at % lines.length;
      lines.splice(i, 0, lines[i]);
      return lines.join('\n');
    }
  }
}

const toYaml = (docs: Json[]): string => docs.map((d) => stringify(d, { aliasDuplicateObjects: true })).join('---\n');

// ---------------------------------------------------------------------------------------------------------
// The properties

const stats = { plans: 0, manifestErrors: 0, scenarios: 0, scenarioErrors: 0, slowestMs: 0, started: Date.now() };

/** Runs one case; a failure carries the input text, so a CI log is enough to reproduce it. */
function timed<T>(text: string, fn: () => T): T {
  const started = performance.now();
  try {
    return fn();
  } catch (e) {
    throw new Error(`${(e as Error).stack ?? String(e)}\n--- input (first 4,000 characters) ---\n${text.slice(0, 4000)}`, { cause: e });
  } finally {
    const ms = performance.now() - started;
    stats.slowestMs = Math.max(stats.slowestMs, ms);
    if (ms > CASE_TIME_LIMIT_MS) throw new Error(`case took ${Math.round(ms)} ms (limit ${CASE_TIME_LIMIT_MS} ms)`);
  }
}

/** `nodewright plan -f fuzz.yaml` in process: a valid plan or a ManifestValidationError naming file and document. */
function planOrValidationError(text: string): void {
  try {
    const set = parseManifestFiles([{ text, file: 'fuzz.yaml' }]);
    const { json } = runPlan(set, { region: 'us-east-1' });
    const s = json.summary;
    if (![s.pods, s.scheduled, s.nodeClaims, s.pricePerHour, s.unschedulable].every(Number.isFinite))
      throw new Error(`plan summary is not finite: ${JSON.stringify(s)}`);
    if (s.scheduled + s.unschedulable !== s.pods) throw new Error(`plan summary does not add up: ${JSON.stringify(s)}`);
    JSON.stringify(json);
    stats.plans++;
  } catch (e) {
    if (!isManifestValidationError(e)) throw e;
    if (!/^fuzz\.yaml: document \d+: \S/.test(e.message)) throw new Error(`error without a document reference: ${e.message}`);
    stats.manifestErrors++;
  }
}

/** `nodewright simulate fuzz-scenario.yaml` up to the run: a Scenario or a ScenarioInvalidError naming file and field. */
function scenarioOrInvalid(text: string): void {
  try {
    parseScenario(text, 'fuzz-scenario.yaml');
    stats.scenarios++;
  } catch (e) {
    if (!(e instanceof Error) || e.name !== 'ScenarioInvalidError') throw e;
    if (!/^fuzz-scenario\.yaml: \S/.test(e.message)) throw new Error(`error without a file reference: ${e.message}`);
    stats.scenarioErrors++;
  }
}

afterAll(() => {
  // Measured figures for docs/manifests.md; printed so a CI log shows them.
  process.stdout.write(
    `fuzz: ${RUNS} cases in ${((Date.now() - stats.started) / 1000).toFixed(1)} s — ${stats.plans} plans, ` +
      `${stats.manifestErrors} manifest errors, ${stats.scenarios} scenarios, ${stats.scenarioErrors} scenario errors; slowest case ${Math.round(stats.slowestMs)} ms\n`,
  );
});

describe('fuzzed CLI input', () => {
  it(`should plan or reject ${MANIFEST_RUNS} mutated manifest files with a file/document message`, () => {
    fc.assert(
      fc.property(fc.nat(), mutationsArb, textOpArb, (source, mutations, textOp) => {
        const docs = mutate(manifestSources[source % manifestSources.length], mutations);
        const text = applyText(toYaml(docs), textOp, docs);
        timed(text, () => planOrValidationError(text));
      }),
      { seed: SEED, numRuns: MANIFEST_RUNS, endOnFailure: true },
    );
    expect(stats.plans).toBeGreaterThan(0);
    expect(stats.manifestErrors).toBeGreaterThan(0);
  }, 600_000);

  it(`should read or reject ${SCENARIO_RUNS} mutated scenario files with a file/field message`, () => {
    fc.assert(
      fc.property(fc.nat(), mutationsArb, textOpArb, (source, mutations, textOp) => {
        const [scenario] = mutate([scenarioSources[source % scenarioSources.length]], mutations);
        const text = applyText(stringify(scenario ?? null, { aliasDuplicateObjects: true }), textOp.kind === 'asList' ? { kind: 'none' } : textOp, [scenario]);
        timed(text, () => scenarioOrInvalid(text));
      }),
      { seed: SEED + 1, numRuns: SCENARIO_RUNS, endOnFailure: true },
    );
    expect(stats.scenarios).toBeGreaterThan(0);
    expect(stats.scenarioErrors).toBeGreaterThan(0);
  }, 600_000);
});

describe('bounded at the pod cap', () => {
  it(`should plan ${MAX_EXPANDED_PODS.toLocaleString('en-US')} pods, the most a manifest set may expand to, within 20 s`, () => {
    // Prepare
    const text = readFileSync(`${ROOT}examples/inflate.yaml`, 'utf8').replace('replicas: 5', `replicas: ${MAX_EXPANDED_PODS}`);

    // Act
    const started = performance.now();
    const { json } = runPlan(parseManifestFiles([{ text, file: 'inflate.yaml' }]), { region: 'us-east-1' });

    // Assess
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(json.summary.pods).toBe(MAX_EXPANDED_PODS);
    expect(json.summary.scheduled + json.summary.unschedulable).toBe(MAX_EXPANDED_PODS);
  }, 60_000);
});

describe('the real CLI on a crash case', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nodewright-fuzz-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should exit 2 with one error line and no stack trace on an alias bomb', () => {
    // Prepare
    const file = join(dir, 'bomb.yaml');
    writeFileSync(file, `${readFileSync(`${ROOT}examples/inflate.yaml`, 'utf8')}---\n${BOMB}`);

    // Act
    const r = spawnSync(process.execPath, ['bin/nodewright.mjs', 'plan', '-f', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

    // Assess
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .*bomb\.yaml: document 4: invalid YAML: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
