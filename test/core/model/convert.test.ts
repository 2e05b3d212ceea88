import { describe, expect, it } from 'vitest';
import { parseManifests, selectorTerms } from '../../../shared/core/model/manifests';
import { fixture, validationError } from './helpers';

describe('v1alpha5 Provisioner / v1alpha1 AWSNodeTemplate conversion', () => {
  it('should convert the seed 001 Provisioner: ttlSecondsAfterEmpty → WhenEmpty, expiry, limits and its inline provider', () => {
    // Act
    const set = parseManifests(fixture('seed-001-provisioner.yaml'), 'seed-001.yaml');

    // Assess
    const pool = set.nodePools[0];
    expect(pool.name).toBe('default');
    expect(pool.disruption.consolidationPolicy).toBe('WhenEmpty');
    expect(pool.disruption.consolidateAfter).toBe(30);
    expect(pool.template.expireAfter).toBe(1800);
    expect(pool.limits).toEqual({ cpu: 1_000_000 });
    expect(pool.template.requirements.map((r) => r.key)).toEqual(['karpenter.sh/capacity-type', 'kubernetes.io/arch']);
    expect(pool.template.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    const nc = set.nodeClasses[0];
    expect(nc.name).toBe('default');
    expect(nc.amiFamily).toBe('AL2');
    expect(nc.amiSelectorTerms).toEqual([{ alias: 'al2@latest' }]);
    expect(nc.subnetSelectorTerms).toEqual([{ tags: { 'kubernetes.io/cluster/$CLUSTER_NAME': '*' } }]);
    expect(nc.metadataOptions.httpPutResponseHopLimit).toBe(2);
    expect(set.warnings.map((w) => w.message).join('\n')).toMatch(/role or spec.instanceProfile/);
  });

  it('should convert the seed 002 Provisioner: consolidation.enabled → WhenEmptyOrUnderutilized, providerRef → nodeClassRef', () => {
    // Act
    const set = parseManifests(fixture('seed-002-provisioner.yaml'), 'seed-002.yaml');

    // Assess
    const pool = set.nodePools[0];
    expect(pool.disruption.consolidationPolicy).toBe('WhenEmptyOrUnderutilized');
    expect(pool.disruption.consolidateAfter).toBe(15);
    expect(pool.template.expireAfter).toBe(1_209_600);
    expect(pool.template.requirements).toHaveLength(6);
    expect(pool.template.nodeClassRef.name).toBe('default');
    expect(set.nodeClasses.map((c) => c.name)).toEqual(['default']);
    expect(set.nodeClasses[0].securityGroupSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': '<YOUR_CLUSTER_NAME_HERE>' } }]);
  });

  it('should convert the seed 004 Provisioners: taints, weight, unset expiry as Never, and kubelet moved to a node class of its own', () => {
    // Act
    const set = parseManifests(fixture('seed-004-provisioners.yaml'), 'seed-004.yaml');

    // Assess
    const byName = Object.fromEntries(set.nodePools.map((p) => [p.name, p]));
    expect(byName.gpu.template.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }]);
    expect(byName.gpu.template.expireAfter).toBeNull();
    expect(byName.gpu.disruption).toMatchObject({ consolidationPolicy: 'WhenEmpty', consolidateAfter: 60 });
    expect(byName['savings-plan-instance'].weight).toBe(50);
    expect(byName['savings-plan-instance'].limits).toEqual({ cpu: 100_000 });
    expect(byName['savings-plan-instance'].disruption).toMatchObject({ consolidationPolicy: 'WhenEmpty', consolidateAfter: null });
    expect(byName.gpu.template.nodeClassRef.name).toBe('al2-workernode');
    expect(byName.default.template.nodeClassRef.name).toBe('al2-workernode-default');
    const classes = Object.fromEntries(set.nodeClasses.map((c) => [c.name, c]));
    expect(classes['al2-workernode'].kubelet).toBeUndefined();
    expect(classes['al2-workernode'].instanceProfile).toBe('KarpenterInstanceNodeRole');
    expect(classes['al2-workernode'].blockDeviceMappings[0]).toEqual({
      deviceName: '/dev/xvda',
      ebs: { volumeSize: 50 * 2 ** 30, volumeType: 'gp3', encrypted: true },
    });
    expect(classes['al2-workernode-default'].kubelet).toMatchObject({
      maxPods: 20,
      podsPerCore: 2,
      clusterDNS: ['10.0.1.100'],
      evictionHard: { 'memory.available': '5%' },
    });
    const messages = set.warnings.map((w) => w.message).join('\n');
    expect(messages).toMatch(/spec.limits should be spec.limits.resources/);
    expect(messages).toMatch(/spec.label is not a Provisioner field/);
    expect(messages).toMatch(/containerRuntime/);
  });

  it('should reject the legacy provisioner-name label once renamed, and otherwise move kubelet onto an unshared node class', () => {
    // Prepare
    const text = `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: only}
spec:
  providerRef: {name: tpl}
  kubeletConfiguration: {maxPods: 30}
  labels: {team: data, karpenter.sh/provisioner-name: x}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: tpl}
spec:
  instanceProfile: p
  subnetSelector: {aws::ids: "subnet-1, subnet-2"}
  securityGroupSelector: {Name: my-sg}
  amiSelector: {aws::name: my-ami-*, aws::owners: "self,amazon", team: data}
`;

    // Act
    const err = validationError(() => parseManifests(text, 'alpha.yaml'));

    // Assess: the provisioner-name label becomes the restricted karpenter.sh/nodepool label
    expect(err.path).toBe('spec.labels.karpenter.sh/nodepool');
    expect(err.problem).toMatch(/converted from karpenter.sh\/v1alpha5 Provisioner/);

    // Act (without the restricted label)
    const set = parseManifests(text.replace(', karpenter.sh/provisioner-name: x', ''), 'alpha.yaml');

    // Assess
    expect(set.nodeClasses).toHaveLength(1);
    expect(set.nodeClasses[0].kubelet).toEqual({ maxPods: 30 });
    expect(set.nodeClasses[0].subnetSelectorTerms).toEqual([{ id: 'subnet-1' }, { id: 'subnet-2' }]);
    expect(set.nodeClasses[0].amiSelectorTerms).toEqual([
      { tags: { team: 'data' }, name: 'my-ami-*', owner: 'self' },
      { tags: { team: 'data' }, name: 'my-ami-*', owner: 'amazon' },
    ]);
    expect(set.nodeClasses[0].amiFamily).toBe('AL2');
    expect(set.nodePools[0].template.labels).toEqual({ team: 'data' });
  });

  it('should turn alpha selector maps into selector terms', () => {
    // Act / Assess
    expect(selectorTerms({ 'aws-ids': 'sg-1,sg-2' }, 'securityGroup')).toEqual([{ id: 'sg-1' }, { id: 'sg-2' }]);
    expect(selectorTerms({ 'aws::ids': 'ami-1' }, 'ami')).toEqual([{ id: 'ami-1' }]);
    expect(selectorTerms({ 'karpenter.sh/discovery': 'demo' }, 'subnet')).toEqual([{ tags: { 'karpenter.sh/discovery': 'demo' } }]);
  });

  const prov = (spec: string) => `apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: ${spec}\n`;
  const rejections: [string, string, string, RegExp][] = [
    [
      'a bad requirement, at the Provisioner field',
      prov('{providerRef: {name: d}, requirements: [{key: a, operator: Gt, values: [x]}]}'),
      'spec.requirements[0].values',
      /exactly one integer.*converted from karpenter.sh\/v1alpha5 Provisioner/,
    ],
    [
      'a bad kubelet block, at the Provisioner field',
      prov('{providerRef: {name: d}, kubeletConfiguration: {evictionSoft: {memory.available: 5%}}}'),
      'spec.kubeletConfiguration.evictionSoft.memory.available',
      /no matching evictionSoftGracePeriod/,
    ],
    [
      'a restricted tag in an inline provider',
      prov('{provider: {subnetSelector: {a: b}, securityGroupSelector: {a: b}, tags: {karpenter.sh/nodepool: x}}}'),
      'spec.provider.tags.karpenter.sh/nodepool',
      /restricted.*converted from the provider of Provisioner p/,
    ],
    ['a bad limit, at limits.resources', prov('{providerRef: {name: d}, limits: {resources: {cpu: lots}}}'), 'spec.limits.resources.cpu', /invalid quantity/],
    [
      'consolidation together with ttlSecondsAfterEmpty',
      'apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {consolidation: {enabled: true}, ttlSecondsAfterEmpty: 30, providerRef: {name: d}}\n',
      'spec.ttlSecondsAfterEmpty',
      /mutually exclusive/,
    ],
    [
      'provider together with providerRef',
      'apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {provider: {subnetSelector: {a: b}, securityGroupSelector: {a: b}}, providerRef: {name: d}}\n',
      'spec.provider',
      /mutually exclusive/,
    ],
    [
      'a launchTemplate',
      'apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: t}\nspec: {launchTemplate: lt, subnetSelector: {a: b}, securityGroupSelector: {a: b}}\n',
      'spec.launchTemplate',
      /not supported in v1/,
    ],
    [
      'a missing subnetSelector',
      'apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: t}\nspec: {securityGroupSelector: {a: b}}\n',
      'spec.subnetSelector',
      /required/,
    ],
    [
      'the Ubuntu family',
      'apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: t}\nspec: {amiFamily: Ubuntu, subnetSelector: {a: b}, securityGroupSelector: {a: b}}\n',
      'spec.amiFamily',
      /Ubuntu/,
    ],
  ];
  for (const [what, text, path, problem] of rejections) {
    it(`should reject ${what}`, () => {
      // Act
      const err = validationError(() => parseManifests(text, 'old.yaml'));

      // Assess
      expect(err.path).toBe(path);
      expect(err.problem).toMatch(problem);
    });
  }
});

describe('v1beta1 conversion', () => {
  it('should convert a v1beta1 NodePool and EC2NodeClass', () => {
    // Prepare
    const text = `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: beta}
spec:
  template:
    spec:
      nodeClassRef: {name: beta}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
      kubelet: {maxPods: 50}
  disruption: {consolidationPolicy: WhenUnderutilized, expireAfter: 168h}
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: beta}
spec:
  amiFamily: Bottlerocket
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`;

    // Act
    const set = parseManifests(text, 'beta.yaml');

    // Assess
    const pool = set.nodePools[0];
    expect(pool.template.expireAfter).toBe(168 * 3600);
    expect(pool.disruption.consolidationPolicy).toBe('WhenEmptyOrUnderutilized');
    expect(pool.template.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'beta' });
    const nc = set.nodeClasses[0];
    expect(nc.amiSelectorTerms).toEqual([{ alias: 'bottlerocket@latest' }]);
    expect(nc.kubelet).toEqual({ maxPods: 50 });
    expect(nc.metadataOptions.httpPutResponseHopLimit).toBe(2);
  });

  it('should reject an unknown apiVersion for a known kind', () => {
    // Act
    const err = validationError(() => parseManifests('apiVersion: karpenter.sh/v2\nkind: NodePool\nmetadata: {name: x}\n', 'x.yaml'));

    // Assess
    expect(err.path).toBe('apiVersion');
    expect(err.problem).toMatch(/supported: karpenter.sh\/v1, karpenter.sh\/v1beta1/);
  });
});
