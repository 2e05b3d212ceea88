export { FakeKubeApi, createFakeKubeApi, serveForKubectl, type RunningKubeServer } from './server';
export { matchesStructuredSelector, matchesLabelSelector, parseLabelSelector } from './selectors';
export { mergePatch, jsonPatch, applyPatch } from './patch';
export { KubeApiStatusError } from './status';
export { committedTestTls } from './tls';
export { type ChangeEvent, type KubeObject } from './types';
