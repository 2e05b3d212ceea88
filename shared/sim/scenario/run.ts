/**
 * Runs a scenario on virtual time: builds the world, applies the objects at t=0, fires the timed events, and
 * advances time only when every in-flight function and execution waits on the clock. Returns the summary.
 */
import { settle } from '../clock';
import { computeCostUntil, computePerHourNow, ebsCostUntil, ebsPerHourNow, stoppedMsUntil } from '../aws/ec2-billing';
import { isDaemonSetPod, kubeTypes } from '../cluster/kube-objects';
import { controllerBill } from '../runtime/bill';
import type { CapturedLog } from '../runtime/production';
import { applyEvent, applyObjects, deployedFor, type AppliedEvent } from './events';
import { finalState, functionSummary, nodeHealthSummary, podSummary, summarizeFaults } from './summary';
import { consolidationSummary } from './consolidation-summary';
import { parseObjects } from './schema';
import { ClusterObserver } from './observe';
import { seedFleet } from './fleet';
import {
  disruptionReason,
  round,
  type SimulatedDisruption,
  type SimulatedNode,
  type SimulationEvent,
  type SimulationResult,
  type TimelinePoint,
} from './result';
import type { Scenario } from './schema';
import { createWorld, type SimWorld } from './world';

export interface RunOptions {
  onProgress?(simSeconds: number, total: number): void;
  /** Seconds between timeline samples (default 15). */
  sampleEverySeconds?: number;
  /** Called at the end of the run, before the world closes: a test reads the objects as they were left, or invokes a function. */
  atEnd?(world: SimWorld): void | Promise<void>;
}

export interface SimulationRun extends SimulationResult {
  scenarioEvents: AppliedEvent[];
  invocationErrors: { functionKey: string; t: number; error?: string }[];
  /** The AWS API calls each function made (`<ClientClass>.<CommandClass>`), for the IAM test. */
  awsCalls: Record<string, string[]>;
}

const byT = <T extends { t: number }>(a: T, b: T) => a.t - b.t;

function sampleTimeline(world: SimWorld): TimelinePoint {
  const types = kubeTypes(world.api.store);
  const pending = world.api.store.scanWhere(types.pod, ['spec', 'nodeName'], '').filter((p) => !isDaemonSetPod(p) && !p.metadata.deletionTimestamp).length;
  return {
    t: world.clock.elapsedSeconds(),
    nodes: world.api.store.scan(types.node).length,
    pendingPods: pending,
    pricePerHour: round(computePerHourNow(world.ec2), 4),
  };
}

function collectNodes(world: SimWorld, observer: ClusterObserver, terminateReasons: Map<string, string>): SimulatedNode[] {
  const t = (ms: number | undefined) => (ms === undefined ? undefined : (ms - world.clock.startMs) / 1000);
  return [...world.ec2.instances.values()]
    .map((i) => {
      const claim = i.tags['karpenter.sh/nodeclaim'];
      const reason = (claim ? terminateReasons.get(claim) : undefined) ?? i.terminationReason;
      const readyAt = observer.nodeReadyAt.get(i.privateDnsName);
      const stoppedMs = i.stops ? stoppedMsUntil(i, world.clock.now()) : undefined;
      const node: SimulatedNode = {
        name: i.privateDnsName,
        instanceId: i.id,
        instanceType: i.type,
        capacityType: i.capacityType,
        zone: i.zone,
        ...(i.tags['karpenter.sh/nodepool'] ? { nodePool: i.tags['karpenter.sh/nodepool'] } : {}),
        ...(claim ? { nodeClaim: claim } : {}),
        launchedAt: t(i.launchTimeMs) ?? 0,
        ...(readyAt !== undefined ? { readyAt } : {}),
        ...(i.interruptedAtMs !== undefined ? { interruptedAt: t(i.interruptedAtMs) } : {}),
        ...(i.terminatedAtMs !== undefined ? { terminatedAt: t(i.terminatedAtMs) } : {}),
        ...(i.state === 'shutting-down' || i.state === 'terminated' ? { terminationReason: reason ?? 'terminated' } : {}),
        pricePerHour: i.pricePerHour,
        ...(stoppedMs !== undefined ? { stoppedSeconds: stoppedMs / 1000 } : {}),
      };
      return node;
    })
    .sort((a, b) => a.launchedAt - b.launchedAt || a.name.localeCompare(b.name));
}

function parseInput(input: string): Record<string, unknown> {
  try {
    return JSON.parse(input) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function collectDisruptions(world: SimWorld, terminateReasons: Map<string, string>): SimulatedDisruption[] {
  const out: SimulatedDisruption[] = [];
  const claimNode = (claim: string) => [...world.ec2.instances.values()].find((i) => i.tags['karpenter.sh/nodeclaim'] === claim)?.privateDnsName ?? claim;
  const inDisrupt = new Set<string>();
  for (const e of world.stepFunctions.executions) {
    if (e.machine !== 'disrupt') continue;
    const input = parseInput(e.input);
    const candidates = ((input.candidates as { nodeClaimName?: string; nodeName?: string }[] | undefined) ?? []).map(
      (c) => c.nodeClaimName ?? c.nodeName ?? '',
    );
    candidates.forEach((c) => inDisrupt.add(c));
    const detail = String(input.reason ?? 'unknown');
    out.push({
      t: (e.startedMs - world.clock.startMs) / 1000,
      reason: disruptionReason(detail),
      detail,
      nodes: candidates.map(claimNode),
      replacements: ((input.replacements as unknown[] | undefined) ?? []).length,
    });
  }
  for (const e of world.stepFunctions.executions) {
    if (e.machine !== 'terminate') continue;
    const input = parseInput(e.input);
    const target = String(input.nodeClaimName ?? input.nodeName ?? input.instanceId ?? '');
    const detail = String(input.reason ?? 'Manual');
    if (input.nodeClaimName) terminateReasons.set(String(input.nodeClaimName), detail);
    if (inDisrupt.has(target)) continue;
    out.push({
      t: (e.startedMs - world.clock.startMs) / 1000,
      reason: disruptionReason(detail),
      detail,
      nodes: [input.nodeClaimName ? claimNode(target) : target],
      replacements: 0,
    });
  }
  return out.sort((a, b) => a.t - b.t || a.nodes.join().localeCompare(b.nodes.join()));
}

const stableJson = (v: unknown) => JSON.stringify(v);

/** Where the controller's bill starts (settings.meterFrom): seconds into the run, and the counts then. */
interface MeterStart {
  seconds: number;
  transitions: number;
  queue: { sends: number; receives: number; deletes: number; visibilityChanges: number };
}

export async function runScenario(scenario: Scenario, opts: RunOptions = {}): Promise<SimulationRun> {
  const logs: CapturedLog[] = [];
  const world = await createWorld({
    clusterName: scenario.clusterName,
    region: scenario.region,
    zones: scenario.zones,
    seed: scenario.seed,
    nodeStartupSeconds: scenario.settings.nodeStartupSeconds,
    onLog: (l) => logs.push(l),
    faults: scenario.faults,
    ...(scenario.settings.metrics ? { metrics: scenario.settings.metrics } : {}),
    ...(scenario.settings.controllerMemorySize ? { controllerMemorySize: scenario.settings.controllerMemorySize } : {}),
    ...(scenario.settings.featureGates ? { featureGates: scenario.settings.featureGates } : {}),
    ...(scenario.settings.schedulerConfig ? { schedulerConfig: scenario.settings.schedulerConfig } : {}),
    ...(scenario.settings.shadow ? { shadow: true } : {}),
    ...deployedFor([...scenario.objects, ...scenario.events.flatMap((e) => (e.apply ? parseObjects(e.apply, scenario.file, scenario.clusterName) : []))]),
  });
  try {
    world.ec2.capacityLimits.push(...scenario.settings.capacity);
    const observer = new ClusterObserver(world.api, world.clock);
    const stopObserver = observer.start();
    applyObjects(world, scenario.objects);
    await seedFleet(world, scenario);
    const { applied, timeline, meterFrom } = scheduleScenario(world, scenario, opts);
    await runToEnd(world, scenario, opts);
    stopObserver();
    await opts.atEnd?.(world);
    return collectResult(world, scenario, { observer, logs, applied, timeline, meterFrom });
  } finally {
    await world.close();
  }
}

/** Puts the timed events, the timeline samples and the meter start on the clock. */
function scheduleScenario(
  world: SimWorld,
  scenario: Scenario,
  opts: RunOptions,
): { applied: AppliedEvent[]; timeline: TimelinePoint[]; meterFrom: MeterStart } {
  const applied: AppliedEvent[] = [];
  for (const e of scenario.events) world.clock.at(world.clock.startMs + e.at * 1000, () => applied.push(applyEvent(world, scenario, e)));
  const timeline: TimelinePoint[] = [sampleTimeline(world)];
  const every = (opts.sampleEverySeconds ?? 15) * 1000;
  world.clock.every(every, () => timeline.push(sampleTimeline(world)));
  // settings.meterFrom: the controller's bill counts from then on (the steady state after a cluster's creation).
  const transitionsSoFar = () => world.stepFunctions.executions.reduce((s, e) => s + (e.transitions ?? 0), 0);
  const meterFrom: MeterStart = { seconds: 0, transitions: 0, queue: { sends: 0, receives: 0, deletes: 0, visibilityChanges: 0 } };
  const from = scenario.settings.meterFromSeconds;
  if (from !== undefined && from > 0 && from < scenario.durationSeconds) {
    world.clock.at(world.clock.startMs + from * 1000, () => {
      world.production.meter.reset();
      Object.assign(meterFrom, { seconds: from, transitions: transitionsSoFar(), queue: { ...world.queue.requests } });
    });
  }
  return { applied, timeline, meterFrom };
}

/** Advances virtual time to the scenario's end, each step once everything in flight waits on the clock. */
async function runToEnd(world: SimWorld, scenario: Scenario, opts: RunOptions): Promise<void> {
  const end = world.clock.startMs + scenario.durationSeconds * 1000;
  let reported = -1;
  for (;;) {
    await settle(world.clock);
    const now = world.clock.elapsedSeconds();
    if (opts.onProgress && Math.floor(now / 30) !== reported) {
      reported = Math.floor(now / 30);
      opts.onProgress(now, scenario.durationSeconds);
    }
    if (!world.clock.advance(end)) break;
  }
  await settle(world.clock);
  opts.onProgress?.(scenario.durationSeconds, scenario.durationSeconds);
}

interface Collected {
  observer: ClusterObserver;
  logs: CapturedLog[];
  applied: AppliedEvent[];
  timeline: TimelinePoint[];
  meterFrom: MeterStart;
}

/** What the instances cost over the run (aws/ec2-billing.ts): compute in `total`, EBS apart. */
function instanceCost(world: SimWorld): SimulationResult['cost'] {
  const now = world.clock.now();
  return {
    total: round(computeCostUntil(world.ec2, now), 4),
    perHourAtEnd: round(computePerHourNow(world.ec2), 4),
    ebs: round(ebsCostUntil(world.ec2, now), 4),
    ebsPerHourAtEnd: round(ebsPerHourNow(world.ec2), 4),
  };
}

function collectResult(world: SimWorld, scenario: Scenario, { observer, logs, applied, timeline, meterFrom }: Collected): SimulationRun {
  const terminateReasons = new Map<string, string>();
  const disruptions = collectDisruptions(world, terminateReasons);
  const nodes = collectNodes(world, observer, terminateReasons);
  const events: SimulationEvent[] = [...logs]
    .sort(
      (a, b) =>
        byT(a, b) ||
        a.order[0] - b.order[0] ||
        a.order[1].localeCompare(b.order[1]) ||
        a.order[2] - b.order[2] ||
        a.message.localeCompare(b.message) ||
        stableJson(a.fields).localeCompare(stableJson(b.fields)),
    )
    .map((l) => ({ t: l.t, level: l.level, message: l.message, fields: l.fields }));
  return {
    scenario: {
      name: scenario.name,
      seed: scenario.seed,
      region: scenario.region,
      zones: scenario.zones,
      durationSeconds: scenario.durationSeconds,
      startedAt: new Date(world.clock.startMs).toISOString(),
    },
    nodes,
    disruptions,
    pods: podSummary(
      world,
      observer,
      scenario.events.map((e) => e.at),
    ),
    cost: instanceCost(world),
    controller: controllerBill({
      meter: world.production.meter,
      periodSeconds: world.clock.elapsedSeconds() - meterFrom.seconds,
      functions: world.production.functions,
      executions: world.stepFunctions.executions,
      baseline: { transitions: meterFrom.transitions, startMs: world.clock.startMs + meterFrom.seconds * 1000 },
      queue: {
        sends: world.queue.requests.sends - meterFrom.queue.sends,
        receives: world.queue.requests.receives - meterFrom.queue.receives,
        deletes: world.queue.requests.deletes - meterFrom.queue.deletes,
        visibilityChanges: world.queue.requests.visibilityChanges - meterFrom.queue.visibilityChanges,
      },
    }),
    functions: functionSummary(world),
    consolidation: consolidationSummary(world),
    violations: { ...observer.violations, podsLost: world.lostPods.length },
    volumes: { ...world.volumes },
    ...nodeHealthSummary(world),
    ...(scenario.faults.length ? { faults: summarizeFaults(world.faults.injected) } : {}),
    final: finalState(world),
    interruptionQueue: {
      handled: world.queue.delivered,
      deadLettered: world.queue.deadLetters.length,
      expired: world.queue.expired.length,
      queued: world.queue.pending(),
    },
    executions: world.stepFunctions.executions
      .map((e) => ({
        machine: e.machine,
        name: e.name,
        startedAt: (e.startedMs - world.clock.startMs) / 1000,
        ...(e.stoppedMs !== undefined ? { stoppedAt: (e.stoppedMs - world.clock.startMs) / 1000 } : {}),
        status: e.status,
        ...(e.error ? { error: e.error } : {}),
        tasks: [...e.tasks],
      }))
      .sort((a, b) => a.startedAt - b.startedAt || a.machine.localeCompare(b.machine) || a.name.localeCompare(b.name)),
    events,
    timeline,
    scenarioEvents: applied,
    awsCalls: Object.fromEntries([...world.production.meter.awsCalls].map(([k, v]) => [k, [...v].sort()])),
    invocationErrors: world.invocations
      .filter((i) => !i.ok)
      .map((i) => ({ functionKey: i.functionKey, t: i.t, ...(i.error ? { error: i.error } : {}) }))
      .sort(byT),
  };
}
