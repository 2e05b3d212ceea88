/**
 * Plain Kubernetes JSON (as in YAML manifests, or as @kubernetes/client-node returns it; timestamps may be
 * RFC3339 strings or Date objects) → normalized objects. Every mapper takes an optional context
 * `{file, documentIndex}` used in ManifestValidationError messages. The implementations live in
 * ./manifests/*; this module is the stable entry point.
 */
export { podFromKube } from './manifests/pod';
export { nodeFromKube, daemonSetFromKube, namespaceFromKube, pdbFromKube, pvFromKube, pvcFromKube, storageClassFromKube } from './manifests/cluster-objects';
/** Validates and applies defaults; throws ManifestValidationError with a field path. */
export { nodePoolFromKube } from './manifests/nodepool';
export { nodeClassFromKube } from './manifests/nodeclass';
export { nodeClaimFromKube, nodeClaimToKube } from './manifests/nodeclaim';
export { nodeOverlayFromKube } from './manifests/nodeoverlay';
export { capacityBufferFromKube, podTemplateFromKube } from './manifests/capacitybuffer';
