import { describe, expect, it } from 'vitest';
import { nodePoolFromKube } from '../../../shared/core/model/from-kube';
import { parseManifests } from '../../../shared/core/model/manifests';
import { fixture, nodePoolJson, validationError } from './helpers';

describe('NodePool (karpenter.sh/v1)', () => {
  it('should parse the seed 000 NodePool with its settings and the v1 defaults', () => {
    // Prepare
    const text = fixture('seed-000-getting-started.yaml');

    // Act
    const set = parseManifests(text, 'seed-000.yaml');

    // Assess
    expect(set.nodePools).toHaveLength(1);
    const pool = set.nodePools[0];
    expect(pool.name).toBe('default');
    expect(pool.weight).toBe(0);
    expect(pool.template.expireAfter).toBe(720 * 3600);
    expect(pool.template.terminationGracePeriod).toBeNull();
    expect(pool.template.requirements).toContainEqual({ key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] });
    expect(pool.template.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    expect(pool.disruption).toEqual({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 60, budgets: [{ nodes: '10%' }] });
    expect(pool.limits).toEqual({ cpu: 1_000_000 });
    expect(pool.hash).toMatch(/^\d+$/);
  });

  it('should apply every default when only the required fields are given', () => {
    // Prepare
    const json = nodePoolJson();

    // Act
    const pool = nodePoolFromKube(json);

    // Assess
    expect(pool.weight).toBe(0);
    expect(pool.template.expireAfter).toBe(2_592_000);
    expect(pool.disruption.consolidationPolicy).toBe('WhenEmptyOrUnderutilized');
    expect(pool.disruption.consolidateAfter).toBe(0);
    expect(pool.disruption.budgets).toEqual([{ nodes: '10%' }]);
    expect(pool.limits).toEqual({});
  });

  it('should read Never, budgets with schedules, taints and beta requirement keys', () => {
    // Prepare
    const json = nodePoolJson((np) => {
      np.spec.template.spec.expireAfter = 'Never';
      np.spec.template.spec.terminationGracePeriod = '1h30m';
      np.spec.template.spec.taints = [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }];
      np.spec.template.spec.requirements = [{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['arm64'] }];
      np.spec.disruption = { consolidateAfter: 'Never', budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted'] }] };
      np.spec.weight = 50;
    });

    // Act
    const pool = nodePoolFromKube(json);

    // Assess
    expect(pool.template.expireAfter).toBeNull();
    expect(pool.template.terminationGracePeriod).toBe(5400);
    expect(pool.template.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }]);
    expect(pool.template.requirements[0].key).toBe('kubernetes.io/arch');
    expect(pool.disruption.consolidateAfter).toBeNull();
    expect(pool.disruption.budgets).toEqual([{ nodes: '0', schedule: '0 9 * * mon-fri', duration: 28_800, reasons: ['Drifted'] }]);
    expect(pool.weight).toBe(50);
  });

  const req = (r: Record<string, unknown>) =>
    nodePoolJson((np) => {
      np.spec.template.spec.requirements = [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }, r];
    });
  const rejections: [string, Record<string, unknown>, string, RegExp][] = [
    ['an unknown operator', req({ key: 'a', operator: 'Like', values: ['x'] }), 'spec.template.spec.requirements[1].operator', /must be one of/],
    ['In without values', req({ key: 'a', operator: 'In', values: [] }), 'spec.template.spec.requirements[1].values', /at least one value/],
    ['Exists with values', req({ key: 'a', operator: 'Exists', values: ['x'] }), 'spec.template.spec.requirements[1].values', /must not have values/],
    ['Gt with two values', req({ key: 'a', operator: 'Gt', values: ['1', '2'] }), 'spec.template.spec.requirements[1].values', /exactly one integer/],
    [
      'Lt with a negative value',
      req({ key: 'a', operator: 'Lt', values: ['-1'] }),
      'spec.template.spec.requirements[1].values',
      /exactly one integer value ≥ 0/,
    ],
    ['Gt with a non-integer', req({ key: 'a', operator: 'Gt', values: ['2.5'] }), 'spec.template.spec.requirements[1].values', /integer/],
    ['minValues above 50', req({ key: 'a', operator: 'Exists', minValues: 51 }), 'spec.template.spec.requirements[1].minValues', /between 1 and 50/],
    ['minValues 0', req({ key: 'a', operator: 'Exists', minValues: 0 }), 'spec.template.spec.requirements[1].minValues', /between 1 and 50/],
    [
      'minValues above the number of values',
      req({ key: 'a', operator: 'In', values: ['x', 'y'], minValues: 3 }),
      'spec.template.spec.requirements[1].minValues',
      /must not exceed the number of values \(2\)/,
    ],
    [
      'the restricted nodepool label',
      req({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['x'] }),
      'spec.template.spec.requirements[1].key',
      /restricted/,
    ],
    [
      'the restricted hostname label',
      req({ key: 'kubernetes.io/hostname', operator: 'In', values: ['x'] }),
      'spec.template.spec.requirements[1].key',
      /restricted/,
    ],
    [
      'an unknown karpenter.sh label',
      req({ key: 'karpenter.sh/custom', operator: 'Exists' }),
      'spec.template.spec.requirements[1].key',
      /domain "karpenter.sh" is restricted/,
    ],
    [
      'an unknown karpenter.k8s.aws label',
      req({ key: 'karpenter.k8s.aws/custom', operator: 'Exists' }),
      'spec.template.spec.requirements[1].key',
      /domain "karpenter.k8s.aws" is restricted/,
    ],
    [
      'a karpenter.sh sub-domain label',
      req({ key: 'team.karpenter.sh/custom', operator: 'Exists' }),
      'spec.template.spec.requirements[1].key',
      /domain "karpenter.sh" is restricted/,
    ],
    ['an invalid key', req({ key: 'not a key', operator: 'Exists' }), 'spec.template.spec.requirements[1].key', /qualified name/],
  ];
  for (const [what, json, path, problem] of rejections) {
    it(`should reject a requirement with ${what}, naming the field`, () => {
      // Act
      const err = validationError(() => nodePoolFromKube(json, { file: 'pools.yaml', documentIndex: 2 }));

      // Assess
      expect(err.path).toBe(path);
      expect(err.problem).toMatch(problem);
      expect(err.file).toBe('pools.yaml');
      expect(err.message).toContain('pools.yaml: document 3: ' + path);
    });
  }

  it("should accept kubernetes.io- and k8s.io-style custom labels and sub-domains, as Karpenter v1's CRD does", () => {
    // Prepare
    const json = nodePoolJson((np) => {
      np.spec.template.metadata = { labels: { 'kubernetes.io/team': 'a', 'example.k8s.io/tier': 'b', 'node-role.kubernetes.io/worker': '' } };
      np.spec.template.spec.requirements = [
        { key: 'kubernetes.io/custom', operator: 'Exists' },
        { key: 'sub.kubernetes.io/zone-group', operator: 'In', values: ['x'] },
        { key: 'k8s.io/flavor', operator: 'NotIn', values: ['y'] },
      ];
    });

    // Act
    const pool = nodePoolFromKube(json);

    // Assess
    expect(pool.template.requirements.map((r) => r.key)).toEqual(['kubernetes.io/custom', 'sub.kubernetes.io/zone-group', 'k8s.io/flavor']);
    expect(pool.template.labels).toMatchObject({ 'kubernetes.io/team': 'a', 'example.k8s.io/tier': 'b' });
  });

  it('should accept the well-known capacity-type and AWS instance labels in requirements', () => {
    // Prepare
    const json = nodePoolJson((np) => {
      np.spec.template.spec.requirements = [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4'] },
        { key: 'karpenter.k8s.aws/capacity-reservation-type', operator: 'In', values: ['default'] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'c5.large'], minValues: 2 },
      ];
    });

    // Act
    const pool = nodePoolFromKube(json);

    // Assess
    expect(pool.template.requirements).toHaveLength(4);
    expect(pool.template.requirements[3].minValues).toBe(2);
  });

  const spec = (edit: Parameters<typeof nodePoolJson>[0]) => nodePoolJson(edit);
  const more: [string, Record<string, unknown>, string, RegExp][] = [
    [
      'more than 100 requirements',
      spec((np) => {
        np.spec.template.spec.requirements = Array.from({ length: 101 }, (_, i) => ({ key: `example.com/k${i}`, operator: 'Exists' }));
      }),
      'spec.template.spec.requirements',
      /at most 100/,
    ],
    [
      'missing requirements',
      spec((np) => {
        delete np.spec.template.spec.requirements;
      }),
      'spec.template.spec.requirements',
      /requirements is required/,
    ],
    [
      'a missing nodeClassRef',
      spec((np) => {
        delete np.spec.template.spec.nodeClassRef;
      }),
      'spec.template.spec.nodeClassRef',
      /nodeClassRef is required/,
    ],
    [
      'an empty nodeClassRef name',
      spec((np) => {
        np.spec.template.spec.nodeClassRef = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: '' };
      }),
      'spec.template.spec.nodeClassRef.name',
      /must not be empty/,
    ],
    [
      'a restricted template label',
      spec((np) => {
        np.spec.template.metadata = { labels: { 'karpenter.sh/nodepool': 'x' } };
      }),
      'spec.template.metadata.labels.karpenter.sh/nodepool',
      /restricted/,
    ],
    [
      'an invalid label value',
      spec((np) => {
        np.spec.template.metadata = { labels: { team: 'a b' } };
      }),
      'spec.template.metadata.labels.team',
      /not a valid label value/,
    ],
    [
      'a bad taint effect',
      spec((np) => {
        np.spec.template.spec.taints = [{ key: 'a', effect: 'NoRun' }];
      }),
      'spec.template.spec.taints[0].effect',
      /must be one of "NoSchedule", "PreferNoSchedule", "NoExecute", got "NoRun"/,
    ],
    [
      'the same taint in taints and startupTaints',
      spec((np) => {
        np.spec.template.spec.taints = [{ key: 'a', effect: 'NoSchedule' }];
        np.spec.template.spec.startupTaints = [{ key: 'a', value: 'x', effect: 'NoSchedule' }];
      }),
      'spec.template.spec.startupTaints[0]',
      /duplicate taint a:NoSchedule/,
    ],
    [
      'a bad expireAfter',
      spec((np) => {
        np.spec.template.spec.expireAfter = '30 days';
      }),
      'spec.template.spec.expireAfter',
      /duration/,
    ],
    [
      'a bad consolidation policy',
      spec((np) => {
        np.spec.disruption = { consolidationPolicy: 'WhenUnderutilized' };
      }),
      'spec.disruption.consolidationPolicy',
      /must be one of/,
    ],
    [
      'a bad budget nodes value',
      spec((np) => {
        np.spec.disruption = { budgets: [{ nodes: '101%' }] };
      }),
      'spec.disruption.budgets[0].nodes',
      /count .* or a percentage/,
    ],
    [
      'a schedule without duration',
      spec((np) => {
        np.spec.disruption = { budgets: [{ nodes: '0', schedule: '@daily' }] };
      }),
      'spec.disruption.budgets[0].duration',
      /together with 'duration'/,
    ],
    [
      'a duration without schedule',
      spec((np) => {
        np.spec.disruption = { budgets: [{ nodes: '0', duration: '1h' }] };
      }),
      'spec.disruption.budgets[0].schedule',
      /together with 'duration'/,
    ],
    [
      'a budget duration in seconds',
      spec((np) => {
        np.spec.disruption = { budgets: [{ nodes: '0', schedule: '@daily', duration: '30s' }] };
      }),
      'spec.disruption.budgets[0].duration',
      /hours and\/or minutes/,
    ],
    [
      'an unknown budget reason',
      spec((np) => {
        np.spec.disruption = { budgets: [{ nodes: '1', reasons: ['Expired'] }] };
      }),
      'spec.disruption.budgets[0].reasons[0]',
      /must be one of/,
    ],
    [
      'weight 0',
      spec((np) => {
        np.spec.weight = 0;
      }),
      'spec.weight',
      /between 1 and 100/,
    ],
    [
      'a quoted weight',
      spec((np) => {
        np.spec.weight = '5';
      }),
      'spec.weight',
      /expected number, got "5"/,
    ],
    [
      'weight 101',
      spec((np) => {
        np.spec.weight = 101;
      }),
      'spec.weight',
      /between 1 and 100/,
    ],
    [
      'a bad limit quantity',
      spec((np) => {
        np.spec.limits = { cpu: 'lots' };
      }),
      'spec.limits.cpu',
      /invalid quantity/,
    ],
  ];
  for (const [what, json, path, problem] of more) {
    it(`should reject ${what}, naming the field`, () => {
      // Act
      const err = validationError(() => nodePoolFromKube(json));

      // Assess
      expect(err.path).toBe(path);
      expect(err.problem).toMatch(problem);
    });
  }

  it('should read readiness and deletion of a NodePool read from the cluster', () => {
    // Prepare
    const json: Record<string, unknown> = { ...nodePoolJson(), status: { conditions: [{ type: 'Ready', status: 'False', reason: 'NodeClassNotReady' }] } };
    (json.metadata as Record<string, unknown>).deletionTimestamp = new Date('2025-01-01T00:00:00Z');
    (json.metadata as Record<string, unknown>).uid = 'np-1';

    // Act
    const pool = nodePoolFromKube(json);

    // Assess
    expect(pool.ready).toBe(false);
    expect(pool.deleting).toBe(true);
    expect(pool.uid).toBe('np-1');
  });
});

describe('consolidationPolicy Balanced and its k', () => {
  const balanced = (annotations?: Record<string, string>) =>
    nodePoolJson((np) => {
      (np.spec as Record<string, unknown>).disruption = { consolidationPolicy: 'Balanced' };
      if (annotations) (np as unknown as { metadata: Record<string, unknown> }).metadata.annotations = annotations;
    });

  it("should accept Balanced (Karpenter v1.14) and read a pool's own k from nodewright.io/balanced-k", () => {
    expect(nodePoolFromKube(balanced()).disruption).toMatchObject({ consolidationPolicy: 'Balanced' });
    expect(nodePoolFromKube(balanced()).disruption.balancedK).toBeUndefined();
    expect(nodePoolFromKube(balanced({ 'nodewright.io/balanced-k': '3' })).disruption.balancedK).toBe(3);
  });

  it.each([
    ['0.5', 'must be a number of at least 1'],
    ['lots', 'must be a number of at least 1'],
  ])('should reject balanced-k %j, naming the annotation', (k, problem) => {
    const err = validationError(() => nodePoolFromKube(balanced({ 'nodewright.io/balanced-k': k }), { file: 'pools.yaml', documentIndex: 0 }));
    expect(err.message).toContain('metadata.annotations["nodewright.io/balanced-k"]');
    expect(err.message).toContain(problem);
  });

  it('should reject balanced-k on a pool that is not Balanced (it would do nothing)', () => {
    const json = nodePoolJson();
    (json as { metadata: Record<string, unknown> }).metadata.annotations = { 'nodewright.io/balanced-k': '3' };
    expect(validationError(() => nodePoolFromKube(json)).message).toContain(
      "applies only to consolidationPolicy Balanced; this pool's is WhenEmptyOrUnderutilized",
    );
  });
});
