/** The disruption core (docs/karpenter-reference.md §4): what to disrupt, when, and why. Pure: no I/O, no clock. */
export { computeDisruption } from './compute';
export { validateCommand } from './validate';
export { podEventUpdates, applyPodEventUpdates, PodsFingerprintAnnotation } from './pod-events';
export { toExecutions, replacementClaims, commandLogLine, type ReplacementContext } from './execution';
export { blockedEvents, budgetBlockedEvents, disruptingEvents, rebootEvents, repairBlockedEvents, unconsolidatableEvents } from './events';
export { podCost, disruptionCost } from './pods';
export { deletionCostRemovals, deletionCostWrites } from './deletion-cost';
export * from './types';
