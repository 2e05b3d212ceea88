/**
 * Karpenter's leader-election lease (`karpenter-leader-election`, in the namespace its chart runs in): its controller
 * renews it every few seconds while it runs. `nodewright doctor` reads it to say whether Karpenter still acts.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { makeApis } from './apis';

export const KARPENTER_LEASE = 'karpenter-leader-election';
const NAMESPACES = ['kube-system', 'karpenter'];

export interface KarpenterLease {
  namespace: string;
  holder?: string;
  renewTime?: string;
}

/** The lease in the first namespace that has one; undefined when none has. A 403 is thrown (the caller says so). */
export async function readKarpenterLease(kc: KubeConfig): Promise<KarpenterLease | undefined> {
  const apis = makeApis(kc, { attempts: 2 });
  for (const namespace of NAMESPACES) {
    try {
      const lease = await apis.coordination.readNamespacedLease({ namespace, name: KARPENTER_LEASE });
      const spec = (lease.spec ?? {}) as { holderIdentity?: string; renewTime?: string };
      return { namespace, ...(spec.holderIdentity ? { holder: spec.holderIdentity } : {}), ...(spec.renewTime ? { renewTime: spec.renewTime } : {}) };
    } catch (e) {
      if ((e as { code?: number }).code !== 404) throw e;
    }
  }
  return undefined;
}
