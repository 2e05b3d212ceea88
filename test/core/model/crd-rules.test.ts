/**
 * Rules of Karpenter's v1 NodePool and EC2NodeClass CRDs (OpenAPI patterns and CEL x-kubernetes-validations)
 * that nodewright did not enforce before issue #9 item 6. Each rejects with the field path in the error.
 */
import { describe, expect, it } from 'vitest';
import { nodeClassFromKube, nodePoolFromKube } from '../../../shared/core/model/from-kube';
import { nodeClassJson, nodePoolJson, validationError } from './helpers';

type Case = [what: string, json: Record<string, unknown>, path: string, problem: RegExp];

const pool = (edit: Parameters<typeof nodePoolJson>[0]) => nodePoolJson(edit);
const nodeClass = (edit: Parameters<typeof nodeClassJson>[0]) => nodeClassJson(edit);

const rejected: Case[] = [
  [
    'a negative cpu limit',
    pool((np) => {
      np.spec.limits = { cpu: '-1' };
    }),
    'spec.limits.cpu',
    /must not be negative/,
  ],
  [
    'a negative memory limit as a number',
    pool((np) => {
      np.spec.limits = { memory: -5 };
    }),
    'spec.limits.memory',
    /must not be negative/,
  ],
  [
    "a nodeClassRef to another provider's kind",
    pool((np) => {
      np.spec.template.spec.nodeClassRef = { group: 'karpenter.k8s.aws', kind: 'GCENodeClass', name: 'default' };
    }),
    'spec.template.spec.nodeClassRef.kind',
    /must be "EC2NodeClass"/,
  ],
  [
    'a nodeClassRef to another group',
    pool((np) => {
      np.spec.template.spec.nodeClassRef = { group: 'karpenter.k8s.gcp', kind: 'EC2NodeClass', name: 'default' };
    }),
    'spec.template.spec.nodeClassRef.group',
    /must be "karpenter.k8s.aws"/,
  ],
  [
    'a nodeClassRef group with a version',
    pool((np) => {
      np.spec.template.spec.nodeClassRef = { group: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', name: 'default' };
    }),
    'spec.template.spec.nodeClassRef.group',
    /must be "karpenter.k8s.aws"/,
  ],
  [
    'an In value that is not a label value',
    pool((np) => {
      np.spec.template.spec.requirements = [{ key: 'team', operator: 'In', values: ['a b'] }];
    }),
    'spec.template.spec.requirements[0].values[0]',
    /not a valid label value/,
  ],
  [
    'a NotIn value longer than 63 characters',
    pool((np) => {
      np.spec.template.spec.requirements = [{ key: 'team', operator: 'NotIn', values: ['a'.repeat(64)] }];
    }),
    'spec.template.spec.requirements[0].values[0]',
    /not a valid label value/,
  ],
  [
    'more than 100 template labels',
    pool((np) => {
      np.spec.template.metadata = { labels: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`example.com/l${i}`, 'x'])) };
    }),
    'spec.template.metadata.labels',
    /at most 100 labels/,
  ],
  [
    'a taint value with a space',
    pool((np) => {
      np.spec.template.spec.taints = [{ key: 'dedicated', value: 'gpu jobs', effect: 'NoSchedule' }];
    }),
    'spec.template.spec.taints[0].value',
    /not a valid taint value/,
  ],
  [
    'a startupTaint value with a colon',
    pool((np) => {
      np.spec.template.spec.startupTaints = [{ key: 'x', value: 'a:b', effect: 'NoExecute' }];
    }),
    'spec.template.spec.startupTaints[0].value',
    /not a valid taint value/,
  ],
  [
    'an ebs block without volumeSize or snapshotID',
    nodeClass((s) => {
      s.blockDeviceMappings = [{ deviceName: '/dev/xvda', ebs: { volumeType: 'gp3' } }];
    }),
    'spec.blockDeviceMappings[0].ebs',
    /snapshotID or volumeSize must be defined/,
  ],
  [
    'a capacity reservation term with nothing set',
    nodeClass((s) => {
      s.capacityReservationSelectorTerms = [{}];
    }),
    'spec.capacityReservationSelectorTerms[0]',
    /expected at least one of tags, id/,
  ],
  [
    'a capacity reservation id with tags',
    nodeClass((s) => {
      s.capacityReservationSelectorTerms = [{ id: 'cr-0123456789abcdef0', tags: { a: 'b' } }];
    }),
    'spec.capacityReservationSelectorTerms[0].id',
    /mutually exclusive/,
  ],
  [
    'a capacity reservation id that is not cr-…',
    nodeClass((s) => {
      s.capacityReservationSelectorTerms = [{ id: 'res-1' }];
    }),
    'spec.capacityReservationSelectorTerms[0].id',
    /cr-/,
  ],
  [
    'a capacity reservation ownerID that is not an account id',
    nodeClass((s) => {
      s.capacityReservationSelectorTerms = [{ tags: { a: 'b' }, ownerID: '12' }];
    }),
    'spec.capacityReservationSelectorTerms[0].ownerID',
    /12-digit/,
  ],
];

describe('Karpenter CRD rules', () => {
  it.each(rejected)('should reject %s, naming the field', (_what, json, path, problem) => {
    // Act
    const err = validationError(() => (json.kind === 'NodePool' ? nodePoolFromKube(json) : nodeClassFromKube(json)));

    // Assess
    expect(err.path).toBe(path);
    expect(err.problem).toMatch(problem);
  });

  it('should accept zero limits, a snapshot-only ebs block, a reservation by id and empty taint values', () => {
    // Prepare
    const np = pool((p) => {
      p.spec.limits = { cpu: 0, memory: '0Gi', 'nvidia.com/gpu': '4' };
      p.spec.template.spec.taints = [
        { key: 'a', value: '', effect: 'NoSchedule' },
        { key: 'b', value: 'example.com/x-1', effect: 'NoSchedule' },
      ];
    });
    const nc = nodeClass((s) => {
      s.blockDeviceMappings = [{ deviceName: '/dev/xvdb', ebs: { snapshotID: 'snap-0123' } }];
      s.capacityReservationSelectorTerms = [{ id: 'cr-0123456789abcdef0' }, { tags: { team: 'a' }, ownerID: '123456789012' }];
    });

    // Act
    const p = nodePoolFromKube(np);
    const c = nodeClassFromKube(nc);

    // Assess
    expect(p.limits).toEqual({ cpu: 0, memory: 0, 'nvidia.com/gpu': 4 });
    expect(p.template.taints).toEqual([
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', value: 'example.com/x-1', effect: 'NoSchedule' },
    ]);
    expect(c.blockDeviceMappings).toEqual([{ deviceName: '/dev/xvdb', ebs: { snapshotID: 'snap-0123' } }]);
    expect(c.capacityReservationSelectorTerms).toHaveLength(2);
  });
});
