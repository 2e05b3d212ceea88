/** The disruption core (docs/karpenter-reference.md §4): what to disrupt, when, and why. Pure: no I/O, no clock. */
export { computeDisruption } from './compute';
export { validateCommand } from './validate';
export { podEventUpdates, applyPodEventUpdates, PodsFingerprintAnnotation, type PodEventUpdate } from './pod-events';
export { toExecutions, replacementClaims, commandLogLine, type DisruptExecutionInput, type ExecutionRequest, type ReplacementContext } from './execution';
export { allowedDisruptions, budgetActive, budgetNodes } from './budgets';
export { blockedEvents, budgetBlockedEvents, disruptingEvents, unconsolidatableEvents } from './events';
export { doNotDisruptBlock, podCost, disruptionCost } from './pods';
export { driftReason } from './drift';
export { SpotToSpotMinOptions } from './consolidate';
export * from './types';
