/** Manifest parsing entry point: YAML → validated, normalized objects (see docs/manifests.md). */
export { parseManifests, parseManifestFiles, YAML_OPTIONS, YAML_TO_JS_OPTIONS } from './parse';
export { mergeManifestSets, type ManifestSet } from './manifest-set';
export { workloadPods, MAX_EXPANDED_PODS } from './workloads';
export { selectorTerms } from './convert-alpha';
