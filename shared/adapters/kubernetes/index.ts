export { KubeClusterClient, type KubeClusterClientOptions } from './cluster-client';
export { kubeConfigForEks, kubeConfigForServer, cachingTokenProvider, KubeConfigInvalidError, type TokenProvider } from './config';
export { isProvisionable } from './provisionable';
export { mergeClaimStatus, type NodeClaimStatusPatch } from './status-patch';
export { KarpenterResources } from './apis';
