export { KubeClusterClient } from './cluster-client';
export { kubeConfigForEks, kubeConfigForServer, cachingTokenProvider, KubeConfigInvalidError } from './config';
export { isProvisionable } from './provisionable';
