/**
 * What consolidation (and drift, emptiness, expiry) would do now, for `plan` and `explain --node` on a cluster with
 * nodes and NodeClaims (a running one, or manifests of one): the deployed disruption function's computation
 * (shared/core/disruption) on the same objects and instance types as the plan, at the current time. Read-only.
 */
import { withBoundBufferPods } from '../shared/core/buffers/placement';
import { computeDisruption } from '../shared/core/disruption';
import type { DisruptionDecision } from '../shared/core/disruption/types';
import type { ManifestSet } from '../shared/core/model/manifests';
import { snapshotFromManifests, type OfflinePlan } from '../shared/core/provisioning/offline-plan';
import type { PlanJson } from '../shared/core/provisioning/plan-json';
import { epochMs } from '../shared/core/time';

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** The disruption pass on the input, or undefined when it has no NodeClaim to disrupt. */
export function disruptionNow(set: ManifestSet, result: OfflinePlan, nowMs: number): DisruptionDecision | undefined {
  if (set.nodeClaims.length === 0 || set.nodes.length === 0) return undefined;
  // CapacityBuffers' chunks bound where they stand, as the disruption function sees them: a node holding one is not empty.
  const snapshot = withBoundBufferPods({ ...snapshotFromManifests(set), capacityBuffers: result.buffers }, result.input.instanceTypes);
  return computeDisruption({ snapshot, instanceTypes: result.input.instanceTypes, now: epochMs(nowMs) });
}

export function consolidationJson(d: DisruptionDecision): NonNullable<PlanJson['consolidation']> {
  const c = d.command;
  return {
    eligible: d.eligible,
    ...(c
      ? {
          command: {
            reason: c.reason,
            method: c.method,
            action: c.action,
            nodes: c.candidates.map((x) => x.node.name),
            replacements: c.replacements.map((r) => ({ instanceTypes: r.instanceTypes.slice(0, 5).map((t) => t.name), pricePerHour: round(r.price) })),
            savingsPerHour: round(c.savingsPerHour),
          },
        }
      : {}),
    expiring: d.expirations.flatMap((e) => e.candidates.map((x) => x.node.name)),
  };
}

/** `explain --node`: every line of the pass's audit that names the node. */
export function explainNode(d: DisruptionDecision, node: string): string[] {
  const lines: string[] = [];
  const chosen = d.command?.candidates.some((c) => c.node.name === node);
  if (chosen && d.command) lines.push(`${node}: would be disrupted now — ${d.command.reason} (${d.command.method}), ${d.command.action}`);
  for (const r of d.audit) {
    if (!r.nodes?.includes(node)) continue;
    lines.push(`  ${r.detail.method ?? 'candidates'}: ${r.action}: ${r.detail.why}`);
  }
  if (!chosen && lines.length > 0) lines.unshift(`${node}: not disrupted now`);
  return lines;
}
