// OWNED BY the manifests work: replace this stub with the real implementation (same signatures).
// Plain Kubernetes JSON (as in manifests, or as @kubernetes/client-node returns it) → normalized objects.
import type { DaemonSet, Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, StorageClass } from './kube';
import type { EC2NodeClass, NodeClaim, NodePool } from './karpenter';

type Json = Record<string, unknown>;
const todo = (): never => { throw new Error('not implemented yet'); };

export const podFromKube = (_o: Json): Pod => todo();
export const nodeFromKube = (_o: Json): Node => todo();
export const daemonSetFromKube = (_o: Json): DaemonSet => todo();
export const pdbFromKube = (_o: Json): PodDisruptionBudget => todo();
export const pvFromKube = (_o: Json): PersistentVolume => todo();
export const pvcFromKube = (_o: Json): PersistentVolumeClaim => todo();
export const storageClassFromKube = (_o: Json): StorageClass => todo();
/** Validates and applies defaults; throws ManifestValidationError-like errors with a field path. */
export const nodePoolFromKube = (_o: Json): NodePool => todo();
export const nodeClassFromKube = (_o: Json): EC2NodeClass => todo();
export const nodeClaimFromKube = (_o: Json): NodeClaim => todo();
/** The inverse, for writing NodeClaims to the API. */
export const nodeClaimToKube = (_c: NodeClaim): Json => todo();
