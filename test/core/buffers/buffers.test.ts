/**
 * CapacityBuffers, with the semantics of kubernetes-sigs/karpenter pkg/controllers/capacitybuffer (helpers_test.go,
 * suite_test.go) and Cluster Autoscaler's: chunks from replicas and percentage (the larger), capped by limits or
 * counted from them alone; virtual pods no one sees; resolution errors as the ReadyForProvisioning condition; the CRD's
 * rules where the buffer is applied and where it is read; a node holding a chunk is not empty to disruption.
 */
import { describe, expect, it } from 'vitest';
import { withBoundBufferPods } from '../../../shared/core/buffers/placement';
import { resolveBuffer } from '../../../shared/core/buffers/resolve';
import { plannedPodsValue } from '../../../shared/core/provisioning/planned-pods';
import { bufferReplicas, isVirtualPod, percentageReplicas, virtualPods } from '../../../shared/core/buffers/virtual-pods';
import { computeDisruption } from '../../../shared/core/disruption';
import { ActiveCapacity, type CapacityBuffer, type ResolvedBuffer } from '../../../shared/core/model/capacity-buffer';
import { capacityBufferFromKube } from '../../../shared/core/model/from-kube';
import { createFakeKubeApi } from '../../../shared/sim/kube';
import { pod } from '../../fixtures/builders';
import { c6g, cluster, input, managed, pool } from '../disruption/builders';

const buffer = (o: Partial<CapacityBuffer> = {}): CapacityBuffer => ({ namespace: 'default', name: 'b', provisioningStrategy: ActiveCapacity, ...o });
const chunk = pod({ name: 'chunk', cpu: '1', memory: '2Gi' });
const resolved = (o: Partial<CapacityBuffer>, scalableReplicas?: number): ResolvedBuffer => ({
  buffer: buffer(o),
  template: chunk,
  ...(scalableReplicas !== undefined ? { scalableReplicas } : {}),
});

describe('CapacityBuffer', () => {
  it('should size a buffer as Cluster Autoscaler does: max(replicas, percentage), capped by limits, or limits alone', () => {
    const ref = { kind: 'Deployment', name: 'web' };
    expect(bufferReplicas(resolved({ replicas: 3 }))).toBe(3);
    expect(bufferReplicas(resolved({ scalableRef: ref, percentage: 20 }, 10))).toBe(2);
    expect(bufferReplicas(resolved({ scalableRef: ref, percentage: 20, replicas: 5 }, 10))).toBe(5);
    expect(bufferReplicas(resolved({ replicas: 10, limits: { cpu: 3500 } }))).toBe(3);
    expect(bufferReplicas(resolved({ limits: { cpu: 4000, memory: 6 * 2 ** 30 } }))).toBe(3);
    expect(bufferReplicas(resolved({ replicas: 4, limits: { 'nvidia.com/gpu': 1 } }))).toBe(4);
    expect(percentageReplicas(3, 10)).toBe(1);
    expect(percentageReplicas(0, 50)).toBe(0);
  });

  it('should make virtual pods of the lowest priority, marked with Karpenter annotations, without the template do-not-disrupt', () => {
    const template = { ...chunk, annotations: { 'karpenter.sh/do-not-disrupt': 'true', team: 'a' } };
    const pods = virtualPods([
      { buffer: buffer({ replicas: 2 }), template },
      { buffer: buffer({ name: 'x', replicas: 1, provisioningStrategy: 'other' }), template },
    ]);
    expect(pods.map((p) => p.name)).toEqual(['b-buffer-0', 'b-buffer-1']);
    expect(pods[0].annotations).toEqual({
      team: 'a',
      'karpenter.sh/capacity-buffer-fake-pod': 'true',
      'karpenter.sh/capacity-buffer-name': 'b',
      'karpenter.sh/capacity-buffer-namespace': 'default',
    });
    expect(pods[0].priority).toBe(-2147483648);
    expect(pods.every(isVirtualPod)).toBe(true);
    expect(isVirtualPod(chunk)).toBe(false);
  });

  it('should say why a buffer cannot be resolved', () => {
    const none = { podTemplate: () => undefined, scalable: () => undefined };
    expect(resolveBuffer(buffer({ podTemplateRef: 'gone', replicas: 1 }), none).unresolved).toEqual({
      reason: 'PodTemplateNotFound',
      message: 'podtemplate default/gone not found',
    });
    expect(resolveBuffer(buffer({ scalableRef: { kind: 'Deployment', name: 'web' } }), none).unresolved?.reason).toBe('ScalableRefNotFound');
    expect(resolveBuffer(buffer({ scalableRef: { kind: 'CronJob', name: 'x' } }), none).unresolved?.message).toMatch(/not supported/);
    expect(resolveBuffer(buffer(), none).unresolved?.message).toBe('Neither podTemplateRef nor scalableRef is set');
  });

  it.each([
    ['podTemplateRef without replicas or limits', { podTemplateRef: { name: 't' } }, 'If podTemplateRef is set, replicas or limits must also be set'],
    [
      'both references',
      { podTemplateRef: { name: 't' }, replicas: 1, scalableRef: { kind: 'Deployment', name: 'w' } },
      'You must define either PodTemplateRef or ScalableRef, but not both',
    ],
    ['negative replicas', { podTemplateRef: { name: 't' }, replicas: -1 }, 'replicas'],
  ])('should refuse %s where it is applied and where it is read', (_what, spec, message) => {
    const o = { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'b', namespace: 'default' }, spec };
    const api = createFakeKubeApi({ clock: () => 0, token: 't' });
    expect(() => api.store.create(api.store.typeOf('autoscaling.x-k8s.io/v1beta1', 'CapacityBuffer'), 'default', structuredClone(o) as never)).toThrow();
    expect(() => capacityBufferFromKube(o)).toThrow(message);
  });

  it('should keep a node holding a chunk: not empty to disruption, and its chunk must find room before it goes', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: 0 });
    const a = managed('a', { pool: p, type: c6g.xlarge });
    const snapshot = { ...cluster({ pools: [p], nodes: [a] }), capacityBuffers: [resolved({ replicas: 2 })] };
    const types = [c6g.large, c6g.xlarge];
    const bound = withBoundBufferPods(snapshot, { default: types });
    expect(bound.pods.filter(isVirtualPod).map((x) => x.nodeName)).toEqual(['a', 'a']);
    expect(computeDisruption(input(snapshot, types)).command?.method).toBe('emptiness');
    const d = computeDisruption(input(bound, types));
    expect(d.command?.method).not.toBe('emptiness');
  });

  it("should plan at most 1,000 chunks across all buffers, and name no chunk in a claim's planned pods", () => {
    const huge = virtualPods([
      { buffer: buffer({ limits: { cpu: 1_000_000 } }), template: { ...chunk, requests: { cpu: 10 } } },
      resolved({ name: 'x', replicas: 5 }),
    ]);
    expect(huge).toHaveLength(1_000);
    expect(plannedPodsValue([...huge.slice(0, 2), chunk])).toBe(`default/chunk/${chunk.uid}`);
    expect(
      resolveBuffer(buffer({ scalableRef: { apiGroup: 'example.com', kind: 'Deployment', name: 'w' } }), {
        podTemplate: () => undefined,
        scalable: () => undefined,
      }).unresolved?.message,
    ).toBe('scalableRef apiGroup example.com is not supported (apps)');
  });
});
