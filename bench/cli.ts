/**
 * Whole-process CLI timings — what a user runs, start-up included (issue #12 item 5). Not part of `npm test`.
 *
 *   node --import tsx bench/cli.ts
 *
 * Writes Kubernetes manifests (YAML, as `kubectl get -o yaml` gives them) for Karpenter's benchmark shape and
 * for 40k pending pods beside 2k running nodes into a temporary directory, then times
 * `node bin/nodewright.mjs …` as a child process: `--help`, `--version`, a 1-pod plan, and plans of 5k pods
 * (pods/s = 5000 / (t(5000) − t(1)), so start-up is not counted twice) and of the 40k shape. Each is run
 * several times, alternating the 1-pod and 5k plans; the best run is the figure (what the machine can do when
 * nothing else interferes: this 2-vCPU machine's timings drift by ±15 %), the median is printed beside it.
 * Each child also reports its main thread's CPU time, the time it waited for a core and the fresh pages it touched
 * (bench/cli-main-thread.mjs, Linux only): the main thread's pods/s is what the wall figure would be with a core to
 * itself, and the fresh pages times this machine's cost per fresh page (measured here too) is how much of that
 * time the kernel took handing out memory. The plans write stdout to a file (`> plan.json`); the 5k plan is also
 * timed piped into this process, where the child waits on each 64 KiB the pipe holds.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { InstanceType } from '../shared/core/instance-types/types';
import type { Pod } from '../shared/core/model/kube';
import { formatResourceList } from '../shared/core/model/resources';
import { deploymentPods, existingFleet, catalogTypes } from './catalog-suites';
import { diversePods, fakeTypes, ZONES } from './karpenter-shape';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/nodewright.mjs');
const MAIN_THREAD = join(ROOT, 'bench/cli-main-thread.mjs');

const nodePool = (name: string, requirements: unknown[] = []) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name },
  spec: { template: { spec: { requirements, nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } } },
});
const nodeClass = {
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default' },
  spec: {
    role: 'KarpenterNodeRole-bench',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'bench' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'bench' } }],
  },
};

/** A pod as the API server returns it (the fields the planner reads). */
function podManifest(p: Pod): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    containers: [{ name: 'app', image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7', resources: { requests: formatResourceList(p.requests) } }],
  };
  if (p.nodeName) spec.nodeName = p.nodeName;
  if (Object.keys(p.nodeSelector).length) spec.nodeSelector = p.nodeSelector;
  if (p.topologySpreadConstraints.length) spec.topologySpreadConstraints = p.topologySpreadConstraints;
  if (p.affinity) {
    const a: Record<string, unknown> = {};
    if (p.affinity.podAffinity) a.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: p.affinity.podAffinity.required };
    if (p.affinity.podAntiAffinity) a.podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: p.affinity.podAntiAffinity.required };
    spec.affinity = a;
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      labels: p.labels,
      creationTimestamp: new Date(Date.UTC(2026, 0, 1) + p.creationTimestamp).toISOString(),
    },
    spec,
    status: { phase: p.nodeName ? 'Running' : 'Pending' },
  };
}

function typesFile(types: InstanceType[]): unknown[] {
  return types.map((t) => ({
    name: t.name,
    arch: t.arch,
    os: t.os,
    capacity: formatResourceList(t.capacity),
    offerings: t.offerings.map((o) => ({ zone: o.zone, capacityType: o.capacityType, price: o.price })),
  }));
}

const yamlDocs = (objects: unknown[]) => objects.map((o) => stringify(o, { aliasDuplicateObjects: false })).join('---\n');

interface Timing {
  best: number;
  median: number;
  /** Medians of the main thread's CPU time, of its wait for a core and of its minor page faults (NaN where /proc is not there). */
  mainThread: number;
  waited: number;
  faults: number;
}

/**
 * Where a run's stdout goes: a file (as `nodewright plan -o json > plan.json`), or a pipe this process reads
 * (spawnSync collecting it, as a Node caller would: the child waits on each 64 KiB the pipe holds).
 */
type Stdout = { file: string } | 'pipe';

function once(args: string[], stdout: Stdout = 'pipe'): { ms: number; mainThread: number; waited: number; faults: number } {
  const fd = stdout === 'pipe' ? undefined : openSync(stdout.file, 'w');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', MAIN_THREAD, BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', fd ?? 'pipe', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (fd !== undefined) closeSync(fd);
  if (r.status !== 0) throw new Error(`nodewright ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  const m = /nodewright-bench-main-thread ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  return { ms, mainThread: m ? Number(m[1]) : NaN, waited: m ? Number(m[2]) : NaN, faults: m ? Number(m[3]) : NaN };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs each command `runs` times, interleaved, so a slow spell of the machine hits all of them alike. */
function time(commands: string[][], runs: number, stdout: Stdout[] = []): Timing[] {
  const all = commands.map(() => [] as ReturnType<typeof once>[]);
  for (let i = 0; i < runs; i++) commands.forEach((args, k) => all[k].push(once(args, stdout[k])));
  return all.map((rs) => {
    const ms = rs.map((r) => r.ms);
    const med = (k: 'mainThread' | 'waited' | 'faults') => median(rs.map((r) => r[k]));
    return { best: Math.min(...ms), median: median(ms), mainThread: med('mainThread'), waited: med('waited'), faults: med('faults') };
  });
}

export interface CliRow {
  what: string;
  ms: number;
  median: number;
  note: string;
}

/**
 * What this machine charges for a page of memory a process touches for the first time (µs per 4 KiB page, best of
 * 3 fresh processes touching 64 MiB). Typically well under 1 µs on bare metal; far more on some VMs, where it is a
 * large share of a big plan (the heap grows by tens of MB).
 */
function freshPageMicros(): number {
  const code = `const b = Buffer.allocUnsafeSlow(64 << 20); const t = process.hrtime.bigint(); for (let i = 0; i < b.length; i += 4096) b[i] = 1; console.log(Number(process.hrtime.bigint() - t) / 1e3 / (b.length / 4096));`;
  const runs = [0, 1, 2].map(() => Number(spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout));
  return Math.min(...runs);
}

/** Writes Karpenter's benchmark shape for `n` pods into `dir`: the `plan` arguments that read it (400 types, 3 zones). */
export function karpenterShapeArgs(dir: string, n: number): string[] {
  const types = join(dir, 'types.json');
  writeFileSync(types, JSON.stringify(typesFile(fakeTypes(400))));
  const f = join(dir, `karpenter-${n}.yaml`);
  writeFileSync(f, yamlDocs([nodePool('default'), nodeClass, ...diversePods(n).map(podManifest)]));
  return ['plan', '-f', f, '-o', 'json', '--instance-types', types, '--zones', ZONES.join(',')];
}

export function measure(): CliRow[] {
  // BENCH_CLI_KEEP=<dir> keeps the generated manifests there (for profiling).
  const keep = process.env.BENCH_CLI_KEEP;
  if (keep) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(join(os.tmpdir(), 'nodewright-bench-cli-'));
  try {
    const rows: CliRow[] = [];
    const [help, version] = time([['--help'], ['--version']], 5);
    rows.push({ what: 'nodewright --help', ms: help.best, median: help.median, note: '' });
    rows.push({ what: 'nodewright --version', ms: version.best, median: version.median, note: '' });
    const [a1, a5] = [karpenterShapeArgs(dir, 1), karpenterShapeArgs(dir, 5000)];
    const file = { file: join(dir, 'plan.json') };
    const [one, five, onePiped, fivePiped] = time([a1, a5, a1, a5], 7, [file, file, 'pipe', 'pipe']);
    const rate = (t5: number, t1: number) => Math.round(5000 / ((t5 - t1) / 1000)).toLocaleString('en-US');
    rows.push({ what: 'plan, 1 pod (Karpenter shape, 400 types), > file', ms: one.best, median: one.median, note: '' });
    rows.push({
      what: 'plan, 5,000 pods (Karpenter shape), > file',
      ms: five.best,
      median: five.median,
      note: `${rate(five.best, one.best)} pods/s = 5000 / (t(5000) − t(1)) (medians: ${rate(five.median, one.median)})`,
    });
    rows.push({
      what: '  the same piped into this process',
      ms: fivePiped.best,
      median: fivePiped.median,
      note: `${rate(fivePiped.best, onePiped.best)} pods/s (medians: ${rate(fivePiped.median, onePiped.median)}); 1 pod: ${Math.round(onePiped.best)} ms`,
    });
    rows.push({
      what: '  main thread of those plans (medians)',
      ms: five.mainThread,
      median: five.mainThread,
      note: `${rate(five.mainThread, one.mainThread)} pods/s on its CPU time; it waited ${Math.round(five.waited)} ms for a core (1 pod: ${Math.round(one.waited)} ms)`,
    });
    const page = freshPageMicros();
    rows.push({
      what: '  fresh memory the main thread touched (medians)',
      ms: NaN,
      median: NaN,
      note:
        `${Math.round(five.faults - one.faults).toLocaleString('en-US')} more pages than the 1-pod plan; at ${page.toFixed(1)} µs per fresh page ` +
        `on this machine ≈ ${Math.round(((five.faults - one.faults) * page) / 1000)} ms of its CPU time`,
    });
    // 40k pending pods beside 2k m5.2xlarge nodes running 6 pods each, on the bundled catalog (suite c's shape).
    const fleet = existingFleet(catalogTypes(), 2000);
    const nodes = fleet.map((n) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n.name, labels: n.labels },
      spec: { providerID: `aws:///${n.labels['topology.kubernetes.io/zone']}/i-${n.name.replace(/\W/g, '')}` },
      status: { capacity: formatResourceList(n.capacity), allocatable: formatResourceList(n.allocatable), conditions: [{ type: 'Ready', status: 'True' }] },
    }));
    const mix = deploymentPods(
      [
        { name: 'web', replicas: 120, cpu: '250m', memory: '512Mi', spread: 'zone' },
        { name: 'worker', replicas: 80, cpu: '1', memory: '2Gi' },
        { name: 'api', replicas: 60, cpu: '500m', memory: '1Gi', spread: 'zone' },
        { name: 'cron', replicas: 50, cpu: '100m', memory: '128Mi' },
      ],
      40000 / 310,
    ).slice(0, 40000);
    const big = join(dir, 'big.yaml');
    writeFileSync(
      big,
      yamlDocs([
        nodePool('default', [{ key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['4'] }]),
        nodeClass,
        ...nodes,
        ...fleet.flatMap((n) => n.pods).map(podManifest),
        ...mix.map(podManifest),
      ]),
    );
    const [big40k] = time([['plan', '-f', big, '-o', 'json', '--zones', 'us-east-1a,us-east-1b,us-east-1c']], 3, [file]);
    rows.push({ what: 'plan, 40,000 pending pods + 2,000 nodes (catalog), > file', ms: big40k.best, median: big40k.median, note: '' });
    return rows;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);
  const round = (n: number) => (Number.isNaN(n) ? '' : Math.round(n));
  console.table(measure().map((r) => ({ ...r, ms: round(r.ms), median: round(r.median) })));
}
