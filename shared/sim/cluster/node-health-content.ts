/**
 * What an unhealthy node reports: for each condition a scenario's `unhealthy` event can set, the failure the EKS node
 * monitoring agent writes — one of its Fatal reasons (the ones that set the condition False; its Warning reasons are
 * only Events), with the agent's message — and the kubelet's own Ready messages around a reboot.
 */
import { hashHex } from '../hash';
import type { Json } from '../kube/types';
import { healthyConditions } from './node-content';

/**
 * The conditions an `unhealthy` event can break: the kubelet's Ready (the kubelet stops posting) and the node monitoring
 * agent's conditions the simulated nodes carry. AcceleratedHardwareReady is left out: the agent sets it only on
 * accelerated instances, and the simulated nodes do not carry it.
 */
export const HEALTH_CONDITIONS = ['Ready', 'KernelReady', 'ContainerRuntimeReady', 'NetworkingReady', 'StorageReady'] as const;
export type HealthCondition = (typeof HEALTH_CONDITIONS)[number];
export type FixedBy = 'reboot' | 'replace';

/** The kubelet's node conditions: the node lifecycle controller marks them Unknown when it stops posting. */
export const KUBELET_CONDITIONS = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'] as const;

export interface ConditionValue {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** The MAC address of the instance's primary interface (the agent names the interface it found down). */
const macOf = (instanceId: string): string =>
  `0e:${hashHex('mac', instanceId)
    .slice(0, 10)
    .replace(/(..)(?!$)/g, '$1:')}`;

/** The node monitoring agent's report of a failed condition (reasons from its reasons.yaml, Fatal severity). */
export function monitorFailure(condition: Exclude<HealthCondition, 'Ready'>, instanceId: string): ConditionValue {
  const failures: Record<Exclude<HealthCondition, 'Ready'>, [string, string]> = {
    KernelReady: ['ForkFailedOutOfPIDs', 'A fork or exec call has failed due to the system being out of process IDs or memory'],
    ContainerRuntimeReady: ['PodStuckTerminating', 'A Pod is or was stuck terminating for an excessive amount of time'],
    NetworkingReady: ['InterfaceNotUp', `Interface Name: "eth0", MAC: "${macOf(instanceId)}" is not up`],
    StorageReady: ['InstanceStoreIOError', 'An I/O error was detected on a block device'],
  };
  const [reason, message] = failures[condition];
  return { type: condition, status: 'False', reason, message };
}

/** The condition as a healthy node reports it (the kubelet's or the agent's). */
export function healthyCondition(type: string): ConditionValue {
  const c = healthyConditions('').find((x: Json) => x.type === type) as unknown as ConditionValue | undefined;
  return c ? { type, status: c.status, reason: c.reason, message: c.message } : { type, status: 'True', reason: `${type}`, message: '' };
}

/** Ready as the kubelet posts it while the node shuts down for a reboot (its graceful node shutdown). */
export const SHUTTING_DOWN: ConditionValue = { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'node is shutting down' };

/** What the node lifecycle controller writes once the kubelet has not posted for its grace period. */
export const UNKNOWN = (type: string): ConditionValue => ({
  type,
  status: 'Unknown',
  reason: 'NodeStatusUnknown',
  message: 'Kubelet stopped posting node status.',
});
