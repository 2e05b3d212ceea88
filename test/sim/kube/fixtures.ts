/** Plain Kubernetes JSON builders and a fake API server + client-node pair for tests. */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PolicyV1Api,
  type KubeConfig,
  type V1Deployment,
  type V1Node,
  type V1Pod,
  type V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import { kubeConfigForServer } from '../../../shared/adapters/kubernetes/config';
import { createFakeKubeApi, type FakeKubeApi, type KubeObject, type RunningKubeServer } from '../../../shared/sim/kube';
import { loadCrds } from '../../../shared/sim/kube/resources';

export const T0 = Date.UTC(2025, 0, 1, 0, 0, 0);

/** Wire JSON usable both as a store object and as a typed client-node request body. */
const wire = <T>(o: KubeObject): KubeObject & T => o as KubeObject & T;

export interface Harness {
  api: FakeKubeApi;
  server: RunningKubeServer;
  kc: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  policy: PolicyV1Api;
  custom: CustomObjectsApi;
  clock: { now: number };
  close(): Promise<void>;
}

/** A fake API server on 127.0.0.1 (http, token-checked) driven by a settable clock, and real client-node APIs. */
export async function startHarness(token = 'test-token', opts: { withoutNodeOverlays?: boolean } = {}): Promise<Harness> {
  const clock = { now: T0 };
  // A cluster that has Karpenter's v1 CRDs but not the (v1alpha1) NodeOverlay one.
  const crds = opts.withoutNodeOverlays ? loadCrds().filter((c) => (c.metadata as { name?: string }).name !== 'nodeoverlays.karpenter.sh') : undefined;
  const api = createFakeKubeApi({ clock: () => clock.now, token, ...(crds ? { crds } : {}) });
  const server = await api.listen();
  const kc = kubeConfigForServer({ server: server.url, token });
  return {
    api,
    server,
    kc,
    clock,
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    policy: kc.makeApiClient(PolicyV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    close: () => server.close(),
  };
}

export function podJson(
  name: string,
  opts: {
    namespace?: string;
    labels?: Record<string, string>;
    nodeName?: string;
    ready?: boolean;
    phase?: string;
    cpu?: string;
    unschedulable?: boolean;
    owner?: { kind: string; name: string };
  } = {},
): KubeObject & V1Pod {
  const phase = opts.phase ?? (opts.nodeName ? 'Running' : 'Pending');
  const conditions: Record<string, unknown>[] = [];
  if (opts.ready) conditions.push({ type: 'Ready', status: 'True' });
  if (opts.unschedulable) conditions.push({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
  return wire<V1Pod>({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: opts.namespace ?? 'default',
      labels: opts.labels ?? {},
      ...(opts.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: opts.owner.kind, name: opts.owner.name, uid: 'u', controller: true }] } : {}),
    },
    spec: {
      ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
      containers: [{ name: 'app', image: 'pause', resources: { requests: { cpu: opts.cpu ?? '100m', memory: '64Mi' } } }],
    },
    status: { phase, conditions },
  });
}

export function nodeJson(name: string, opts: { labels?: Record<string, string>; providerID?: string; cpu?: string } = {}): KubeObject & V1Node {
  const alloc = { cpu: opts.cpu ?? '2', memory: '8Gi', pods: '110' };
  return wire<V1Node>({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(opts.labels ?? {}) } },
    spec: { ...(opts.providerID ? { providerID: opts.providerID } : {}) },
    status: { capacity: alloc, allocatable: alloc, conditions: [{ type: 'Ready', status: 'True' }] },
  });
}

export function pdbJson(
  name: string,
  selector: Record<string, string>,
  budget: { minAvailable?: number | string; maxUnavailable?: number | string },
  namespace = 'default',
): KubeObject & V1PodDisruptionBudget {
  return wire<V1PodDisruptionBudget>({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace },
    spec: { selector: { matchLabels: selector }, ...budget },
  });
}

export function deploymentJson(name: string, replicas: number, namespace = 'default'): KubeObject & V1Deployment {
  return wire<V1Deployment>({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'pause' }] } },
    },
  });
}

export function nodePoolJson(name: string, extra: { weight?: number; requirements?: unknown[] } = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      ...(extra.weight !== undefined ? { weight: extra.weight } : {}),
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: extra.requirements ?? [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
        },
      },
    },
  };
}

export function nodeClassJson(name: string): KubeObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      role: 'KarpenterNodeRole-demo',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    },
  };
}

/** The parsed `Status` body of a client-node ApiException. */
export function statusOf(err: unknown): { code: number; reason?: string; message?: string } {
  const e = err as { code?: number; body?: unknown };
  const body =
    typeof e.body === 'string' ? (JSON.parse(e.body) as { reason?: string; message?: string }) : (e.body as { reason?: string; message?: string } | undefined);
  return { code: e.code ?? 0, reason: body?.reason, message: body?.message };
}

/** Runs `fn` and returns the error it threw (fails the test when it does not throw). */
export async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}
