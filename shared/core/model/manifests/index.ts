/** Manifest parsing entry point: YAML → validated, normalized objects (see docs/manifests.md). */
export { parseManifests, parseManifestFiles, MAX_YAML_ALIASES, YAML_OPTIONS, YAML_TO_JS_OPTIONS, type ManifestFile } from './parse';
export { mergeManifestSets, emptyManifestSet, type ManifestSet, type ManifestWarning } from './manifest-set';
export { workloadFromKube, workloadPods, workloadClaims, MAX_EXPANDED_PODS, type Workload, type WorkloadKind } from './workloads';
export { convertProvisioner, convertAwsNodeTemplate, selectorTerms } from './convert-alpha';
export { convertV1beta1NodePool, convertV1beta1NodeClass } from './convert-beta';
export { nodePoolSchema, DEFAULT_EXPIRE_AFTER } from './nodepool';
export { nodeClassSchema } from './nodeclass';
export type { ManifestContext, PodContext } from './context';
