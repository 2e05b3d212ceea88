import { describe, expect, it } from 'vitest';
import { isProvisionable } from '../../../shared/adapters/kubernetes';
import { podFromKube } from '../../../shared/core/model/from-kube';
import { podJson } from '../../sim/kube/fixtures';

const pod = (o: Parameters<typeof podJson>[1], extra: Record<string, unknown> = {}) => {
  const json = podJson('p', o);
  return podFromKube({
    ...json,
    ...extra,
    metadata: { ...json.metadata, ...((extra.metadata as object) ?? {}) },
    status: { ...json.status, ...((extra.status as object) ?? {}) },
  });
};

describe('isProvisionable (Karpenter docs/karpenter-reference.md §2.1)', () => {
  it('should accept a pending pod the scheduler marked Unschedulable', () => {
    // Prepare, Act & Assess: one pod shape per case
    expect(isProvisionable(pod({ unschedulable: true }))).toBe(true);
  });

  it('should reject a pending pod the scheduler has not looked at yet', () => {
    // Prepare, Act & Assess: one pod shape per case
    expect(isProvisionable(pod({}))).toBe(false);
  });

  it('should reject a pod already bound to a node', () => {
    // Prepare, Act & Assess: one pod shape per case
    expect(isProvisionable(pod({ unschedulable: true, nodeName: 'n1' }))).toBe(false);
  });

  it('should reject a pod nominated to a node by preemption', () => {
    // Prepare, Act & Assess: one pod shape per case
    expect(isProvisionable(pod({ unschedulable: true }, { status: { nominatedNodeName: 'n1' } }))).toBe(false);
  });

  it('should reject DaemonSet- and Node-owned pods', () => {
    // Prepare, Act & Assess: one pod shape per case
    expect(isProvisionable(pod({ unschedulable: true, owner: { kind: 'DaemonSet', name: 'ds' } }))).toBe(false);
    expect(isProvisionable(pod({ unschedulable: true, owner: { kind: 'Node', name: 'n1' } }))).toBe(false);
  });

  it('should reject a terminating pod', () => {
    // Prepare, Act & Assess: one pod shape per case
    expect(isProvisionable(pod({ unschedulable: true }, { metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' } }))).toBe(false);
  });
});
