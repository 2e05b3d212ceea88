/**
 * Shadow mode (deploy parameter `shadow=true`): every function reads and decides as deployed, beside a running
 * Karpenter or Cluster Autoscaler, but acts on nothing. The ports that write are wrapped here, once, at composition
 * (shared/adapters/compose/parts): Kubernetes writes, EC2 and IAM writes and workflow starts become records of
 * what would have been done. nodewright's own state (its leases, its audit log in the state table) is still written:
 * the core audits its decisions as deployed (`nodewright audit --shadow` reads them), and each intent is audited once
 * per container and target (kind of the decision, action `shadow-<what>`).
 */
import type { AuditRecord, CloudProvider, ClusterClient, StateStore, WorkflowStarter } from '../core/ports';
import type { LifecycleLogger } from '../core/lifecycle/deps';

/** The ClusterClient methods that write: in shadow mode none reaches the API server. */
const CLUSTER_WRITES = [
  'createNodeClaim',
  'patchNodeClaimStatus',
  'patchNodePoolStatus',
  'patchNodeClassStatus',
  'patchNodeOverlayStatus',
  'patchCapacityBufferStatus',
  'patchAnnotations',
  'patchNodeClassFinalizers',
  'recordEvent',
  'patchNodeClaimMetadata',
  'deleteNodeClaim',
  'patchNode',
  'nominatePod',
  'annotatePod',
  'evict',
  'deletePod',
  'deleteNode',
] as const satisfies readonly (keyof ClusterClient)[];

/** The CloudProvider methods that write. */
const CLOUD_WRITES = ['create', 'delete', 'reboot', 'stop', 'start', 'tagInstance'] as const satisfies readonly (keyof CloudProvider)[];

/** Writes that are decisions a user wants to see (the rest — statuses, events, annotations — are skipped silently). */
const DECISIONS: Record<string, AuditRecord['kind']> = {
  createNodeClaim: 'provisioning',
  deleteNodeClaim: 'disruption',
  evict: 'termination',
  deletePod: 'termination',
  deleteNode: 'termination',
  create: 'provisioning',
  delete: 'termination',
};

export interface ShadowRecorder {
  intent(what: string, target: string, detail?: Record<string, unknown>): Promise<void>;
}

/** How long a container remembers an audited intent (a decision repeated within it is not audited again). */
const REMEMBER_MS = 15 * 60_000;

/** Audits each decision once per container, target and REMEMBER_MS; other writes (statuses, events, annotations) are skipped silently. */
export function shadowRecorder(deps: { store: Pick<StateStore, 'audit'>; now: () => number; log: LifecycleLogger }): ShadowRecorder {
  const seen = new Map<string, number>();
  return {
    async intent(what, target, detail) {
      const kind = DECISIONS[what] ?? (what.startsWith('start:') ? (what === 'start:launch' ? 'provisioning' : 'disruption') : undefined);
      const key = `${what}|${target}`;
      const now = deps.now();
      if (!kind || now - (seen.get(key) ?? -Infinity) < REMEMBER_MS) return;
      if (seen.size > 10_000) for (const [k, at] of seen) if (now - at >= REMEMBER_MS) seen.delete(k);
      seen.set(key, now);
      deps.log.info('shadow: would have acted', { what, target });
      await deps.store.audit({
        at: deps.now() as AuditRecord['at'],
        kind,
        action: `shadow-${what.replace(':', '-')}`,
        nodeClaims: [target],
        ...(detail ? { detail } : {}),
      });
    },
  };
}

const nameOf = (arg: unknown): string => {
  if (typeof arg === 'string') return arg;
  const o = arg as { name?: string; namespace?: string; nodeClaim?: { name?: string } } | undefined;
  if (o?.nodeClaim?.name) return o.nodeClaim.name;
  return o?.namespace ? `${o.namespace}/${o.name}` : String(o?.name ?? '');
};

/** What a write would have returned, as if it had succeeded. */
function benign(method: string, args: unknown[]): unknown {
  if (method === 'createNodeClaim') return structuredClone(args[0]);
  if (method === 'evict') return 'evicted';
  if (
    method === 'patchNode' ||
    method === 'patchNodePoolStatus' ||
    method === 'patchNodeClassStatus' ||
    method === 'patchNodeOverlayStatus' ||
    method === 'patchCapacityBufferStatus'
  )
    return false;
  return undefined;
}

function claimDetail(claim: unknown): Record<string, unknown> {
  const c = claim as {
    nodePool?: string;
    spec?: { requirements?: { key: string; values?: string[] }[]; resources?: { requests?: unknown } };
    annotations?: Record<string, string>;
  };
  const types = c.spec?.requirements?.find((r) => r.key === 'node.kubernetes.io/instance-type')?.values ?? [];
  const capacity = c.spec?.requirements?.find((r) => r.key === 'karpenter.sh/capacity-type')?.values ?? [];
  const pods = c.annotations?.['nodewright.io/planned-pods']?.split(',').filter(Boolean) ?? [];
  return { nodePool: c.nodePool, instanceTypes: types.slice(0, 5), capacityTypes: capacity, pods: pods.length, podKeys: pods.slice(0, 500) };
}

/** The cluster with every write recorded instead of made; reads pass through. */
export function shadowCluster<T extends ClusterClient>(inner: T, recorder: ShadowRecorder): T {
  const writes = new Set<string>(CLUSTER_WRITES);
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !writes.has(prop) || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        await recorder.intent(prop, nameOf(args[0]), prop === 'createNodeClaim' ? claimDetail(args[0]) : undefined);
        return benign(prop, args);
      };
    },
  });
}

/** The cloud with launches, terminations and tags recorded instead of made; reads pass through. */
export function shadowCloud<T extends Partial<Pick<CloudProvider, (typeof CLOUD_WRITES)[number]>>>(inner: T, recorder: ShadowRecorder): T {
  const writes = new Set<string>(CLOUD_WRITES);
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !writes.has(prop) || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        await recorder.intent(prop, nameOf(args[0]));
        if (prop === 'create') throw new ShadowModeError('shadow mode: no instance is launched');
        return undefined;
      };
    },
  });
}

/** What an execution's input says about the decision: the claims, candidates and replacements, not whole objects. */
function startDetail(input: unknown): Record<string, unknown> {
  const i = (input ?? {}) as { nodeClaimName?: string; reason?: string; candidates?: { nodeClaimName?: string }[]; replacements?: unknown[] };
  return {
    ...(i.nodeClaimName ? { nodeClaim: i.nodeClaimName } : {}),
    ...(i.reason ? { reason: i.reason } : {}),
    ...(i.candidates ? { candidates: i.candidates.map((c) => c.nodeClaimName) } : {}),
    ...(i.replacements ? { replacements: i.replacements.map(claimDetail) } : {}),
  };
}

/** Workflows recorded instead of started (as if started: the caller goes on as deployed). */
export function shadowWorkflows(inner: WorkflowStarter, recorder: ShadowRecorder): WorkflowStarter {
  return {
    async start(machine, name, input) {
      await recorder.intent(`start:${machine}`, name, startDetail(input));
      return { executionArn: `shadow:${machine}:${name}`, alreadyStarted: false };
    },
    ...(inner.status ? { status: inner.status.bind(inner) } : {}),
  };
}

class ShadowModeError extends Error {
  override readonly name = 'ShadowModeError' as const;
}
