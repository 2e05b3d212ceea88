/**
 * Before an instance is terminated, its volumes must be detached (docs/karpenter-reference.md §4.6; Karpenter's
 * termination controller, awaitVolumeDetachment): a volume still attached when the instance goes stays attached in
 * Kubernetes' view until the attach/detach controller gives up on it (6 minutes), and the pod that moved meanwhile
 * waits on a Multi-Attach error. nodewright reads what the node itself says is attached (`status.volumesAttached`,
 * kept by the attach/detach controller, so no cluster-wide VolumeAttachment list), and, as Karpenter, does not wait for
 * the volumes of pods the drain leaves in place (they tolerate the disrupted taint, are stuck terminating, or are
 * static): their PVCs and PVs are read by name.
 */
import { NodeClaimNotFoundError } from '../errors';
import type { Node, PersistentVolume, Pod } from '../model/kube';
import { condition } from './claims';
import type { ScopedClusterReads } from '../ports';
import type { LifecycleDeps } from './deps';
import type { DrainPass } from './drain';
import { recordEvents } from './events';
import type { DrainingTarget } from './termination';

/** The name the attach/detach controller lists a PV under: `kubernetes.io/csi/<driver>^<handle>` (in-tree EBS is migrated to the EBS CSI driver). */
export function attachedVolumeName(pv: Pick<PersistentVolume, 'csiDriver' | 'volumeHandle'>): string | undefined {
  if (!pv.csiDriver || !pv.volumeHandle) return undefined;
  const driver = pv.csiDriver === 'kubernetes.io/aws-ebs' ? 'ebs.csi.aws.com' : pv.csiDriver;
  return `kubernetes.io/csi/${driver}^${pv.volumeHandle}`;
}

/** The node's attached volumes that termination waits for: every one but those of the pods the drain leaves on it. */
async function volumesAwaitingDetachment(deps: { cluster: Pick<ScopedClusterReads, 'volumesOf'> }, node: Node, leftOnNode: readonly Pod[]): Promise<string[]> {
  const attached = node.volumesAttached ?? [];
  if (attached.length === 0) return [];
  const claims = leftOnNode.flatMap((p) => p.volumeClaims.map((c) => ({ namespace: p.namespace, name: c.claimName })));
  if (claims.length === 0) return attached;
  const { persistentVolumes } = await deps.cluster.volumesOf(claims);
  const kept = new Set(persistentVolumes.map(attachedVolumeName).filter((n): n is string => n !== undefined));
  return attached.filter((v) => !kept.has(v));
}

/** What a drain pass uses: the lifecycle's cluster, clock and log, and the PVC/PV reads by name. */
export type DrainDeps = Pick<LifecycleDeps, 'clock' | 'log'> & { cluster: LifecycleDeps['cluster'] & Pick<ScopedClusterReads, 'volumesOf'> };

/** Seconds between passes while volumes detach (Karpenter requeues every second; EBS detaches in seconds)... */
const DETACH_WAIT_SECONDS = 3;
/** ...for this many passes of the drain; then the drain's usual growing waits (drain.ts), so a stuck attachment costs few passes an hour. */
const DETACH_FAST_PASSES = 40;

async function setVolumesDetached(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>,
  claim: string | undefined,
  status: 'True' | 'False' | 'Unknown',
  reason?: string,
) {
  if (!claim) return;
  try {
    await deps.cluster.patchNodeClaimStatus(claim, { conditions: [condition('VolumesDetached', status, deps.clock.now(), reason, reason)] });
  } catch (e) {
    if (!(e instanceof NodeClaimNotFoundError)) throw e;
  }
}

/**
 * The last step of the drain, once no pod is left to evict: drained when the node's volumes are detached; else the
 * pass waits (an AwaitingVolumeDetachment event when the set changes, the claim's VolumesDetached Unknown), until
 * the drain deadline (terminationGracePeriod, or nodewright's 24 h bound without one), when the instance is
 * terminated anyway (VolumesDetached False). Karpenter waits without end when no terminationGracePeriod is set; a
 * node with no pods held for ever by a stuck detachment is a bill without a workload, so nodewright bounds it.
 */
export async function awaitVolumeDetachment<T extends DrainingTarget & DrainPass>(deps: DrainDeps, state: T, leftOnNode: readonly Pod[]): Promise<T> {
  const fields = { node: state.nodeName, nodeclaim: state.nodeClaimName };
  const node = state.nodeName ? await deps.cluster.getNode(state.nodeName) : undefined;
  const waiting = node ? await volumesAwaitingDetachment(deps, node, leftOnNode) : [];
  if (waiting.length === 0) {
    // As Karpenter: every terminated claim says its volumes were detached (one status write per termination).
    await setVolumesDetached(deps, state.nodeClaimName, 'True');
    deps.log.info('drained node', fields);
    const { volumesAwaiting: _v, ...rest } = state;
    return { ...rest, drained: true } as T;
  }
  if (deps.clock.now() >= state.drainDeadlineMs) {
    deps.log.warn('terminating with volumes still attached at the drain deadline', { ...fields, volumes: waiting });
    await setVolumesDetached(deps, state.nodeClaimName, 'False', state.forceAtDeadline ? 'TerminationGracePeriodElapsed' : 'DrainDeadlineElapsed');
    return { ...state, drained: true, volumesAwaiting: waiting };
  }
  if (waiting.join() !== state.volumesAwaiting?.join()) {
    const shown = waiting.length > 5 ? [...waiting.slice(0, 5), `and ${waiting.length - 5} other(s)`] : waiting;
    await recordEvents(deps, [
      {
        object: { kind: 'Node', name: node!.name, ...(node!.uid ? { uid: node!.uid } : {}) },
        type: 'Normal',
        reason: 'AwaitingVolumeDetachment',
        message: `Awaiting detachment of attached volumes (${shown.join(', ')})`,
      },
    ]);
    if (!state.volumesAwaiting?.length) await setVolumesDetached(deps, state.nodeClaimName, 'Unknown', 'AwaitingVolumeDetachment');
  }
  deps.log.info('awaiting volume detachment', { ...fields, volumes: waiting.length });
  return { ...state, drained: false, volumesAwaiting: waiting, waitSeconds: state.passes <= DETACH_FAST_PASSES ? DETACH_WAIT_SECONDS : state.waitSeconds };
}
