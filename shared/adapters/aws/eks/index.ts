export { describeCluster, EksClusterNotReadyError, type EksClusterInfo } from './describe-cluster';
export {
  EksTokenProvider, presignEksToken, EKS_TOKEN_PREFIX, PRESIGN_EXPIRES_SECONDS, TOKEN_LIFETIME_MS, DEFAULT_REFRESH_BEFORE_MS,
  type BearerTokenProvider, type EksTokenOptions, type EksTokenProviderOptions,
} from './token';
