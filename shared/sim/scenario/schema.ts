/** The scenario file (YAML): parsed and validated with zod; a bad field is a ScenarioInvalidError naming it, and nothing runs. */
import { validateFault, type FaultSpec } from '../faults';
import { parse, parseAllDocuments } from 'yaml';
import * as z from '../../core/zod';
import { parseDuration } from '../../core/model/duration';
import { MAX_EXPANDED_PODS, YAML_OPTIONS, YAML_TO_JS_OPTIONS, parseManifests } from '../../core/model/manifests';
import type { KubeObject } from '../kube/types';
import { loadCatalog } from '../../catalog';
import { parseSchedulerConfig } from '../../core/model/scheduler-config';
import { FleetEntrySchema, fleetProblems, type FleetEntry } from './fleet-check';
import { HEALTH_CONDITIONS } from '../cluster/node-health-content';

class ScenarioInvalidError extends Error {
  override readonly name = 'ScenarioInvalidError' as const;
}

const duration = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v: string | number, payload) => {
    try {
      return parseDuration(v);
    } catch {
      // zod/mini's transform gets the bare parse payload (no addIssue): the issue goes on its list, as addIssue would put it.
      payload.issues.push({ code: 'custom', message: `"${v}" is not a duration (e.g. 90s, 5m, 1h30m)`, input: v });
      return z.NEVER;
    }
  }),
);

/** The longest scenario `simulate` runs (a week): the run, its timeline and its report stay bounded. */
const MAX_SCENARIO_SECONDS = 168 * 3600;

const nsName = z.string().check(z.regex(/^([a-z0-9-]+\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'expected <namespace>/<name> or <name>'));
const capacityType = z.enum(['spot', 'on-demand']);

const EventSchema = z
  .object({
    at: duration,
    scale: z.optional(
      z.object({
        deployment: nsName,
        replicas: z
          .number()
          .check(z.int(), z.gte(0), z.lte(MAX_EXPANDED_PODS, `replicas must be at most ${MAX_EXPANDED_PODS} (the pod cap, see docs/manifests.md)`)),
      }),
    ),
    apply: z.optional(z.string().check(z.minLength(1))),
    delete: z.optional(z.object({ kind: z.string().check(z.minLength(1)), name: nsName, apiVersion: z.optional(z.string()) })),
    interrupt: z.optional(
      z.object({
        node: z._default(z.string().check(z.minLength(1)), 'any'),
        kind: z._default(z.enum(['spot-interruption', 'rebalance', 'scheduled-change', 'state-change']), 'spot-interruption'),
        /** With `node: any`: this many distinct running instances at once (an interruption storm). */
        count: z._default(z.number().check(z.int(), z.gte(1), z.lte(1000)), 1),
      }),
    ),
    unavailable: z.optional(
      z.object({ instanceType: z.string().check(z.minLength(1)), zone: z.optional(z.string()), capacityType: z.optional(capacityType), for: duration }),
    ),
    /** A node goes unhealthy (cluster/node-health.ts): strict, so a misspelt key is refused rather than defaulted. */
    unhealthy: z.optional(
      z.strictObject({
        node: z._default(z.string().check(z.minLength(1)), 'any'),
        condition: z.enum(HEALTH_CONDITIONS),
        /** With `node: any`: this many distinct nodes at once. */
        count: z._default(z.number().check(z.int(), z.gte(1), z.lte(1000)), 1),
        /** What heals it: an EC2 reboot of the instance, or only replacing the node. */
        fixedBy: z._default(z.enum(['reboot', 'replace']), 'replace'),
      }),
    ),
  })
  .check(
    z.refine((e) => [e.scale, e.apply, e.delete, e.interrupt, e.unavailable, e.unhealthy].filter((x) => x !== undefined).length === 1, {
      message: 'each event needs exactly one of scale, apply, delete, interrupt, unavailable, unhealthy',
    }),
  );

const FaultSchema = z.object({
  at: duration,
  for: duration,
  target: z.string().check(z.minLength(1)),
  kind: z.enum(['error', 'throttle', 'crash', 'timeout', 'duplicate', 'hang', 'lag']),
  rate: z.optional(z.number()),
  /** kind lag: how long a new instance stays invisible to DescribeInstances. */
  lag: z.optional(duration),
});

const ScenarioSchema = z.object({
  name: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  seed: z._default(z.number().check(z.int()), 1),
  region: z._default(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1')), 'us-east-1'),
  zones: z.optional(z.array(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, 'must be a zone such as us-east-1a'))).check(z.minLength(1))),
  clusterName: z._default(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/), z.maxLength(100)), 'nodewright-sim'),
  duration: z._default(duration.check(z.refine((d) => d <= MAX_SCENARIO_SECONDS, 'at most 168h (one week) can be simulated')), 3600),
  settings: z._default(
    z.object({
      nodeStartup: z.optional(duration),
      /** The controller's bill counts from here (e.g. after a large cluster's creation: the steady state). */
      meterFrom: z.optional(duration),
      /** The deployment's `metrics` parameter: Karpenter's metrics to CloudWatch (billed per series) or off. */
      metrics: z.optional(z.enum(['cloudwatch', 'off'])),
      /** The deployment's `controllerMemorySize` parameter (MB, as Lambda accepts): the controller's memory and CPU share. */
      controllerMemorySize: z.optional(z.number().check(z.int(), z.gte(128), z.lte(10240))),
      /** The deployment's `featureGates` parameter, in Karpenter's syntax: e.g. "PodDeletionCostManagement=true". */
      featureGates: z.optional(
        z.string().check(z.regex(/^\s*[A-Za-z]+\s*=\s*(true|false)\s*(,\s*[A-Za-z]+\s*=\s*(true|false)\s*)*$/, 'must be Gate=true|false, comma-separated')),
      ),
      /** The deployment's `schedulerConfig` parameter (Karpenter's SCHEDULER_CONFIG): kube-scheduler's default topology spread. */
      schedulerConfig: z.optional(z.string()),
      /** The deployment's `shadow` parameter: every function reads and decides, nothing is acted on (docs/deploy.md). */
      shadow: z.optional(z.boolean()),
      /** Per-zone capacity: at most `max` live instances of the offering in each zone (or in `zone`). */
      capacity: z._default(
        z.array(
          z.object({
            instanceType: z.string().check(z.minLength(1)),
            zone: z.optional(z.string()),
            capacityType: z.optional(capacityType),
            max: z.number().check(z.int(), z.gte(0)),
          }),
        ),
        [],
      ),
    }),
    { capacity: [] },
  ),
  objects: z._default(z.string(), ''),
  /** Nodes already running at t=0, as nodewright would have launched them (shared/sim/scenario/fleet.ts). */
  fleet: z._default(z.array(FleetEntrySchema), []),
  events: z._default(z.array(EventSchema), []),
  /** Faults injected on virtual time (shared/sim/faults.ts). */
  faults: z._default(z.array(FaultSchema), []),
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
  settings: {
    nodeStartupSeconds: number;
    meterFromSeconds?: number;
    metrics?: 'cloudwatch' | 'off';
    controllerMemorySize?: number;
    featureGates?: string;
    schedulerConfig?: string;
    shadow?: boolean;
    capacity: { instanceType: string; zone?: string; capacityType?: 'spot' | 'on-demand'; max: number }[];
  };
  /** The objects applied at t=0 (raw Kubernetes JSON, ${CLUSTER_NAME} substituted). */
  objects: KubeObject[];
  /** Nodes running at t=0, launched, registered and initialized as nodewright would have (docs/simulator.md). */
  fleet: FleetEntry[];
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
  const fleetIssues = fleetProblems(s.fleet, objects, { region: s.region, zones, catalog: s.fleet.length ? loadCatalog() : [] });
  if (fleetIssues.length) throw new ScenarioInvalidError(`${file}: ${fleetIssues.join('; ')}`);
  if (s.settings.schedulerConfig) {
    try {
      parseSchedulerConfig(s.settings.schedulerConfig);
    } catch (e) {
      throw new ScenarioInvalidError(`${file}: settings.schedulerConfig: ${(e as Error).message}`);
    }
  }
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
    settings: {
      nodeStartupSeconds: s.settings.nodeStartup ?? 35,
      capacity: s.settings.capacity,
      ...(s.settings.meterFrom !== undefined ? { meterFromSeconds: s.settings.meterFrom } : {}),
      ...(s.settings.metrics ? { metrics: s.settings.metrics } : {}),
      ...(s.settings.controllerMemorySize ? { controllerMemorySize: s.settings.controllerMemorySize } : {}),
      ...(s.settings.featureGates ? { featureGates: s.settings.featureGates } : {}),
      ...(s.settings.schedulerConfig ? { schedulerConfig: s.settings.schedulerConfig } : {}),
      ...(s.settings.shadow ? { shadow: true } : {}),
    },
    objects,
    fleet: s.fleet,
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
