export { describeCluster, EksClusterNotReadyError, type EksClusterInfo } from './describe-cluster';
export { EksTokenProvider, presignEksToken } from './token';
