/**
 * Is Karpenter's controller still running? Two autoscalers acting on one cluster launch for the same pods and
 * consolidate each other's nodes. Its leader-election lease, renewed every few seconds while it runs, says so.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { errorText } from '../aws/errors';
import { KARPENTER_LEASE, readKarpenterLease } from '../kubernetes/karpenter-lease';
import type { CheckResult } from './checks';

/** A lease renewed within this long is held by a running controller (Karpenter renews every 2 s; it lapses after 15 s). */
const ACTIVE_MS = 60_000;

export async function checkKarpenterController(kc: () => Promise<KubeConfig>, nowMs: number): Promise<CheckResult> {
  const check = 'karpenter-controller';
  try {
    const lease = await readKarpenterLease(await kc());
    if (!lease) return { check, status: 'PASS', detail: `no ${KARPENTER_LEASE} lease in kube-system or karpenter: Karpenter's controller is not running` };
    const age = lease.renewTime ? Math.round((nowMs - Date.parse(lease.renewTime)) / 1000) : undefined;
    if (age !== undefined && age * 1000 <= ACTIVE_MS)
      return {
        check,
        status: 'WARN',
        detail: `Karpenter's controller renewed its leader lease ${age}s ago (${lease.holder ?? 'unknown holder'}, namespace ${lease.namespace}): it is still running`,
        fix: `scale it to 0 before nodewright acts (kubectl scale deployment karpenter -n ${lease.namespace} --replicas 0), or deploy nodewright with --param="shadow=true" beside it`,
      };
    return {
      check,
      status: 'PASS',
      detail: `Karpenter's leader lease was last renewed ${age === undefined ? 'never' : `${age}s ago`}: its controller is not running`,
    };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return {
      check,
      status: 'WARN',
      detail: `reading the ${KARPENTER_LEASE} lease: ${errorText(e)}`,
      fix: code === 403 ? 'apply the current infra/kubernetes/rbac.yaml (it may get that one lease)' : 'check that Karpenter is scaled to 0 by hand',
    };
  }
}
