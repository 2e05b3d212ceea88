/** The client-node API objects the cluster client uses, and the Karpenter custom resource coordinates. */
import { withRetries, type RetryOptions } from './retry';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, PolicyV1Api, SchedulingV1Api, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';

export const KarpenterResources = {
  nodePools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' },
  nodeClaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' },
  nodeClasses: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' },
} as const;

export interface KubeApis {
  core: CoreV1Api;
  apps: AppsV1Api;
  policy: PolicyV1Api;
  storage: StorageV1Api;
  scheduling: SchedulingV1Api;
  custom: CustomObjectsApi;
}

/** The API clients, every call retried on 429/5xx/connection errors (./retry.ts). */
export function makeApis(kc: KubeConfig, retry: RetryOptions = {}): KubeApis {
  return {
    core: withRetries(kc.makeApiClient(CoreV1Api), 'core', retry),
    apps: withRetries(kc.makeApiClient(AppsV1Api), 'apps', retry),
    policy: withRetries(kc.makeApiClient(PolicyV1Api), 'policy', retry),
    storage: withRetries(kc.makeApiClient(StorageV1Api), 'storage', retry),
    scheduling: withRetries(kc.makeApiClient(SchedulingV1Api), 'scheduling', retry),
    custom: withRetries(kc.makeApiClient(CustomObjectsApi), 'custom', retry),
  };
}

/** HTTP status of a failed client-node call (ApiException.code), or undefined for non-HTTP failures. */
export function httpCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Runs `fn`, turning the listed HTTP codes into `fallback`. */
export async function tolerate<T>(fn: () => Promise<T>, codes: number[], fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (codes.includes(httpCode(err) ?? -1)) return fallback;
    throw err;
  }
}
