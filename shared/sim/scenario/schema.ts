/** The scenario file (YAML): parsed and validated with zod; a bad field is a ScenarioInvalidError naming it, and nothing runs. */
import { validateFault, type FaultSpec } from '../faults';
import { parse, parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { parseDuration } from '../../core/model/duration';
import { MAX_EXPANDED_PODS, YAML_OPTIONS, YAML_TO_JS_OPTIONS, parseManifests } from '../../core/model/manifests';
import type { KubeObject } from '../kube/types';

export class ScenarioInvalidError extends Error {
  override readonly name = 'ScenarioInvalidError' as const;
}

const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a duration (e.g. 90s, 5m, 1h30m)` });
    return z.NEVER;
  }
});

/** The longest scenario `simulate` runs (a week): the run, its timeline and its report stay bounded. */
export const MAX_SCENARIO_SECONDS = 168 * 3600;

const nsName = z.string().regex(/^([a-z0-9-]+\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'expected <namespace>/<name> or <name>');
const capacityType = z.enum(['spot', 'on-demand']);

const EventSchema = z.object({
  at: duration,
  scale: z.object({ deployment: nsName, replicas: z.number().int().min(0).max(MAX_EXPANDED_PODS, `replicas must be at most ${MAX_EXPANDED_PODS} (the pod cap, see docs/manifests.md)`) }).optional(),
  apply: z.string().min(1).optional(),
  delete: z.object({ kind: z.string().min(1), name: nsName, apiVersion: z.string().optional() }).optional(),
  interrupt: z.object({ node: z.string().min(1).default('any'), kind: z.enum(['spot-interruption', 'rebalance', 'scheduled-change', 'state-change']).default('spot-interruption') }).optional(),
  unavailable: z.object({ instanceType: z.string().min(1), zone: z.string().optional(), capacityType: capacityType.optional(), for: duration }).optional(),
}).refine((e) => [e.scale, e.apply, e.delete, e.interrupt, e.unavailable].filter((x) => x !== undefined).length === 1, {
  message: 'each event needs exactly one of scale, apply, delete, interrupt, unavailable',
});

const FaultSchema = z.object({
  at: duration,
  for: duration,
  target: z.string().min(1),
  kind: z.enum(['error', 'throttle', 'crash', 'timeout', 'duplicate', 'hang']),
  rate: z.number().optional(),
});

const ScenarioSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  seed: z.number().int().default(1),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1').default('us-east-1'),
  zones: z.array(z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, 'must be a zone such as us-east-1a')).min(1).optional(),
  clusterName: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/).max(100).default('nodewright-sim'),
  duration: duration.refine((d) => d <= MAX_SCENARIO_SECONDS, 'at most 168h (one week) can be simulated').default(3600),
  settings: z.object({
    nodeStartup: duration.optional(),
    /** The controller's bill counts from here (e.g. after a large cluster's creation: the steady state). */
    meterFrom: duration.optional(),
    /** The deployment's `metrics` parameter: Karpenter's metrics to CloudWatch (billed per series) or off. */
    metrics: z.enum(['cloudwatch', 'off']).optional(),
    /** Per-zone capacity: at most `max` live instances of the offering in each zone (or in `zone`). */
    capacity: z.array(z.object({ instanceType: z.string().min(1), zone: z.string().optional(), capacityType: capacityType.optional(), max: z.number().int().min(0) })).default([]),
  }).default({ capacity: [] }),
  objects: z.string().default(''),
  events: z.array(EventSchema).default([]),
  /** Faults injected on virtual time (shared/sim/faults.ts). */
  faults: z.array(FaultSchema).default([]),
});

export type ScenarioEvent = z.infer<typeof EventSchema>;

export interface Scenario {
  name: string;
  description?: string;
  seed: number;
  region: string;
  zones: string[];
  clusterName: string;
  /** Seconds. */
  durationSeconds: number;
  settings: { nodeStartupSeconds: number; meterFromSeconds?: number; metrics?: 'cloudwatch' | 'off'; capacity: { instanceType: string; zone?: string; capacityType?: 'spot' | 'on-demand'; max: number }[] };
  /** The objects applied at t=0 (raw Kubernetes JSON, ${CLUSTER_NAME} substituted). */
  objects: KubeObject[];
  /** Sorted by `at` (seconds); file order kept for equal times. */
  events: (ScenarioEvent & { index: number })[];
  faults: FaultSpec[];
  file: string;
}

/** Multi-document YAML → raw objects, validated as nodewright would read them (parseManifests). */
export function parseObjects(text: string, file: string, clusterName: string): KubeObject[] {
  const substituted = text.replace(/\$\{CLUSTER_NAME\}|\$CLUSTER_NAME\b/g, clusterName);
  parseManifests(substituted, file);
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(substituted, YAML_OPTIONS)) {
    const value = doc.toJS(YAML_TO_JS_OPTIONS) as KubeObject | null;
    if (value && typeof value === 'object') out.push(value);
  }
  return out;
}

export function parseScenario(yamlText: string, file: string): Scenario {
  let raw: unknown;
  try {
    raw = parse(yamlText, { ...YAML_OPTIONS, ...YAML_TO_JS_OPTIONS });
  } catch (e) {
    throw new ScenarioInvalidError(`${file}: invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(scenario)'}: ${i.message}`).join('; ');
    throw new ScenarioInvalidError(`${file}: ${problems}`);
  }
  const s = parsed.data;
  const zones = s.zones ?? ['a', 'b', 'c'].map((z) => `${s.region}${z}`);
  const wrongZone = zones.find((z) => !z.startsWith(s.region));
  if (wrongZone) throw new ScenarioInvalidError(`${file}: zones: ${wrongZone} is not in region ${s.region}`);
  const parseIn = (text: string, where: string) => {
    try {
      return parseObjects(text, `${file} (${where})`, s.clusterName);
    } catch (e) {
      throw new ScenarioInvalidError(`${file}: ${where}: ${(e as Error).message}`, { cause: e });
    }
  };
  const objects = parseIn(s.objects, 'objects');
  s.events.forEach((e, i) => {
    if (e.apply) parseIn(e.apply, `events.${i}.apply`);
    if (e.at > s.duration) throw new ScenarioInvalidError(`${file}: events.${i}.at: ${e.at}s is after the end of the scenario (${s.duration}s)`);
  });
  return {
    name: s.name,
    ...(s.description ? { description: s.description } : {}),
    seed: s.seed,
    region: s.region,
    zones,
    clusterName: s.clusterName,
    durationSeconds: s.duration,
    settings: { nodeStartupSeconds: s.settings.nodeStartup ?? 35, capacity: s.settings.capacity, ...(s.settings.meterFrom !== undefined ? { meterFromSeconds: s.settings.meterFrom } : {}), ...(s.settings.metrics ? { metrics: s.settings.metrics } : {}) },
    objects,
    events: s.events.map((e, index) => ({ ...e, index })).sort((a, b) => a.at - b.at || a.index - b.index),
    faults: s.faults.map((f, i) => {
      try {
        validateFault(f as FaultSpec, `faults.${i}`);
      } catch (e) {
        throw new ScenarioInvalidError(`${file}: ${(e as Error).message}`, { cause: e });
      }
      return f as FaultSpec;
    }),
    file,
  };
}
