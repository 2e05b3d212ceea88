/**
 * Node labels for user-defined keys, resolved from a claim's requirements as Karpenter resolves them
 * (NodeClaimTemplate.resolveCustomLabelsFromRequirements → Requirement.Any): `In` gives one of its values,
 * `NotIn` / `Exists` / `Gt` / `Lt` give an integer within the bounds that is not excluded, `DoesNotExist`
 * gives none. Karpenter draws the integer at random; here it is the smallest that fits, so a plan is
 * reproducible. Well-known keys (zone, capacity type, instance-type labels…) come from the launched
 * instance and offering instead, and the hostname / registration keys are never set from requirements.
 */
import { Label, WellKnownLabels } from '../model/labels';
import type { Requirement } from './requirements';

const NOT_FROM_REQUIREMENTS: ReadonlySet<string> = new Set([Label.hostname, Label.nodePool, Label.registered, Label.initialized]);

export function isCustomLabelKey(key: string): boolean {
  return !WellKnownLabels.has(key) && !NOT_FROM_REQUIREMENTS.has(key);
}

export function customLabelValue(r: Requirement): string | undefined {
  if (!r.complement) return r.values.size > 0 ? [...r.values].sort()[0] : undefined;
  const min = r.gte ?? 0;
  const max = r.lte ?? Number.MAX_SAFE_INTEGER;
  // At most |values| integers can be excluded, so one of the first |values| + 1 candidates fits.
  for (let n = min, tries = 0; n <= max && tries <= r.values.size; n++, tries++) {
    if (!r.values.has(String(n))) return String(n);
  }
  return undefined;
}
