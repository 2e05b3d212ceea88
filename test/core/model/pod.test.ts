import { describe, expect, it } from 'vitest';
import { podFromKube } from '../../../shared/core/model/from-kube';
import { validationError } from './helpers';

const pod = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1', creationTimestamp: '2025-03-02T06:53:28Z' },
  spec,
  ...extra,
});
const c = (name: string, requests?: Record<string, string>, limits?: Record<string, string>, more: Record<string, unknown> = {}) => ({
  name,
  image: 'pause',
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
  ...more,
});

describe('podFromKube requests', () => {
  it('should sum the containers of a pod', () => {
    // Act
    const p = podFromKube(pod({ containers: [c('a', { cpu: '500m', memory: '1Gi' }), c('b', { cpu: '250m', memory: '512Mi' })] }));

    // Assess
    expect(p.requests).toEqual({ cpu: 750, memory: 1.5 * 2 ** 30 });
  });

  it('should use limits as requests when only limits are given', () => {
    // Act
    const p = podFromKube(pod({ containers: [c('a', { cpu: '100m' }, { cpu: '2', memory: '1Gi' })] }));

    // Assess
    expect(p.requests).toEqual({ cpu: 100, memory: 2 ** 30 });
  });

  it('should size the pod for its largest init container when that is bigger than the containers', () => {
    // Prepare: an init container asks 2 CPU and the main container 1 → sized for 2 (docs/karpenter-reference.md §7 example 8)
    const spec = { initContainers: [c('init', { cpu: '2' })], containers: [c('main', { cpu: '1', memory: '1Gi' })] };

    // Act
    const p = podFromKube(pod(spec));

    // Assess
    expect(p.requests).toEqual({ cpu: 2000, memory: 2 ** 30 });
  });

  it('should add sidecars to the running containers and to the init containers that start after them', () => {
    // Prepare: init-1 (1 CPU) runs before the sidecar; init-2 (1.5 CPU) runs alongside the 0.5 CPU sidecar
    const spec = {
      initContainers: [
        c('init-1', { cpu: '1' }),
        c('proxy', { cpu: '500m', memory: '128Mi' }, undefined, { restartPolicy: 'Always' }),
        c('init-2', { cpu: '1500m' }),
      ],
      containers: [c('main', { cpu: '1', memory: '256Mi' })],
    };

    // Act
    const p = podFromKube(pod(spec));

    // Assess: max(1 + 0.5, 1, 1.5 + 0.5) = 2 CPU; memory = 256Mi + 128Mi
    expect(p.requests).toEqual({ cpu: 2000, memory: 384 * 2 ** 20 });
  });

  it('should add spec.overhead on top of the effective requests', () => {
    // Act
    const p = podFromKube(pod({ containers: [c('main', { cpu: '1' })], overhead: { cpu: '250m', memory: '120Mi' } }));

    // Assess
    expect(p.requests).toEqual({ cpu: 1250, memory: 120 * 2 ** 20 });
  });

  it('should add RuntimeClass overhead from the context when the pod has none of its own', () => {
    // Act
    const p = podFromKube(pod({ runtimeClassName: 'kata', containers: [c('main', { cpu: '1' })] }), { runtimeClassOverhead: { kata: { cpu: 2000 } } });

    // Assess
    expect(p.requests).toEqual({ cpu: 3000 });
  });

  it('should name the container field holding a bad quantity', () => {
    // Act
    const err = validationError(() => podFromKube(pod({ containers: [c('main', { cpu: 'one' })] }), { file: 'app.yaml', documentIndex: 0 }));

    // Assess
    expect(err.path).toBe('spec.containers[0].resources.requests.cpu');
    expect(err.message).toContain('app.yaml: document 1');
  });
});

describe('podFromKube fields', () => {
  it('should read identity, scheduling constraints and status', () => {
    // Prepare
    const json = pod(
      {
        nodeSelector: { 'beta.kubernetes.io/arch': 'arm64', team: 'a' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'In', values: ['us-west-2a'] }] }],
            },
          },
        },
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } },
        ],
        priority: 1000,
        priorityClassName: 'high',
        terminationGracePeriodSeconds: 0,
        containers: [
          c('main', { cpu: '1' }, undefined, {
            ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 53, hostPort: 53, protocol: 'UDP' }, { containerPort: 9000 }],
          }),
        ],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-0' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'gp3' } } } },
        ],
      },
      { status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } },
    );
    (json.metadata as Record<string, unknown>).ownerReferences = [{ kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-1', controller: true }];
    (json.metadata as Record<string, unknown>).annotations = { 'karpenter.sh/do-not-disrupt': 'true' };

    // Act
    const p = podFromKube(json);

    // Assess
    expect(p.uid).toBe('u-1');
    expect(p.creationTimestamp).toBe(Date.parse('2025-03-02T06:53:28Z'));
    expect(p.nodeSelector).toEqual({ 'kubernetes.io/arch': 'arm64', team: 'a' });
    expect(p.affinity?.nodeAffinity?.required?.[0].matchExpressions[0].key).toBe('topology.kubernetes.io/zone');
    expect(p.tolerations).toEqual([{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(p.topologySpreadConstraints[0]).toMatchObject({ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone' });
    expect(p.hostPorts).toEqual([
      { port: 8080, protocol: 'TCP' },
      { port: 53, protocol: 'UDP' },
    ]);
    expect(p.volumeClaims).toEqual([{ claimName: 'data-0' }, { claimName: 'web-scratch', ephemeral: { storageClassName: 'gp3' } }]);
    expect(p.owner).toEqual({ kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-1', controller: true });
    expect(p.priority).toBe(1000);
    expect(p.terminationGracePeriodSeconds).toBe(0);
    expect(p.unschedulable).toBe(true);
    expect(p.annotations['karpenter.sh/do-not-disrupt']).toBe('true');
  });

  it('should accept Date objects as client-node returns them, and default what is missing', () => {
    // Prepare
    const json = {
      metadata: { name: 'p', creationTimestamp: new Date('2025-01-01T00:00:00Z'), deletionTimestamp: new Date('2025-01-01T00:01:00Z') },
      spec: { nodeName: 'node-1', containers: [] },
      status: { phase: 'Running', startTime: new Date('2025-01-01T00:00:10Z'), conditions: [{ type: 'Ready', status: 'True' }] },
    };

    // Act
    const p = podFromKube(json);

    // Assess
    expect(p.namespace).toBe('default');
    expect(p.uid).toBe('default/p');
    expect(p.creationTimestamp).toBe(1_735_689_600_000);
    expect(p.deletionTimestamp).toBe(1_735_689_660_000);
    expect(p.startTime).toBe(1_735_689_610_000);
    expect(p.nodeName).toBe('node-1');
    expect(p.phase).toBe('Running');
    expect(p.ready).toBe(true);
    expect(p.unschedulable).toBeUndefined();
    expect(p.terminationGracePeriodSeconds).toBe(30);
    expect(p.priority).toBe(0);
  });

  it('should resolve priority from a known PriorityClass or the global default', () => {
    // Act
    const named = podFromKube(pod({ priorityClassName: 'batch', containers: [] }), { priorityClasses: { batch: -10 } });
    const system = podFromKube(pod({ priorityClassName: 'system-node-critical', containers: [] }));
    const fallback = podFromKube(pod({ containers: [] }), { defaultPriority: 7 });

    // Assess
    expect(named.priority).toBe(-10);
    expect(system.priority).toBe(2000001000);
    expect(fallback.priority).toBe(7);
  });
});
