import { describe, expect, it } from 'vitest';
import { nodeClassFromKube } from '../../../shared/core/model/from-kube';
import { parseManifests } from '../../../shared/core/model/manifests';
import { fixture, nodeClassJson, validationError } from './helpers';

describe('EC2NodeClass (karpenter.k8s.aws/v1)', () => {
  it('should parse the seed 000 EC2NodeClass, inferring amiFamily from the alias and defaulting metadataOptions', () => {
    // Act
    const set = parseManifests(fixture('seed-000-getting-started.yaml'), 'seed-000.yaml');

    // Assess
    const nc = set.nodeClasses[0];
    expect(nc.name).toBe('default');
    expect(nc.amiFamily).toBe('AL2023');
    expect(nc.amiSelectorTerms).toEqual([{ alias: 'al2023@v20250228' }]);
    expect(nc.role).toBe('KarpenterNodeRole-gasida-karpenter-demo');
    expect(nc.subnetSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': 'gasida-karpenter-demo' } }]);
    expect(nc.metadataOptions).toEqual({ httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' });
    expect(nc.blockDeviceMappings).toEqual([]);
    expect(nc.tags).toEqual({});
  });

  it('should read kubelet settings, block devices and tags', () => {
    // Prepare
    const json = nodeClassJson((s) => {
      s.amiSelectorTerms = [{ alias: 'bottlerocket@latest' }];
      s.kubelet = {
        maxPods: 110,
        systemReserved: { cpu: '100m', memory: '100Mi' },
        evictionHard: { 'memory.available': '5%' },
        evictionSoft: { 'memory.available': '500Mi' },
        evictionSoftGracePeriod: { 'memory.available': '1m' },
      };
      s.blockDeviceMappings = [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true } }];
      s.tags = { team: 'platform', Revision: 3 };
    });

    // Act
    const nc = nodeClassFromKube(json);

    // Assess
    expect(nc.amiFamily).toBe('Bottlerocket');
    expect(nc.kubelet?.maxPods).toBe(110);
    expect(nc.kubelet?.systemReserved).toEqual({ cpu: 100, memory: 100 * 2 ** 20 });
    expect(nc.blockDeviceMappings[0].ebs?.volumeSize).toBe(20 * 2 ** 30);
    expect(nc.tags).toEqual({ team: 'platform', Revision: '3' });
  });

  const rejections: [string, (s: Record<string, unknown>) => void, string, RegExp][] = [
    [
      'an id term with tags',
      (s) => {
        s.subnetSelectorTerms = [{ id: 'subnet-123', tags: { a: 'b' } }];
      },
      'spec.subnetSelectorTerms[0].id',
      /mutually exclusive/,
    ],
    [
      'an empty selector term',
      (s) => {
        s.securityGroupSelectorTerms = [{}];
      },
      'spec.securityGroupSelectorTerms[0]',
      /expected at least one/,
    ],
    [
      'a malformed subnet id',
      (s) => {
        s.subnetSelectorTerms = [{ id: 'sg-123' }];
      },
      'spec.subnetSelectorTerms[0].id',
      /subnet-/,
    ],
    [
      'missing subnetSelectorTerms',
      (s) => {
        delete s.subnetSelectorTerms;
      },
      'spec.subnetSelectorTerms',
      /is required/,
    ],
    [
      'more than 30 terms',
      (s) => {
        s.subnetSelectorTerms = Array.from({ length: 31 }, (_, i) => ({ id: `subnet-${i}` }));
      },
      'spec.subnetSelectorTerms',
      /at most 30/,
    ],
    [
      'an alias with other terms',
      (s) => {
        s.amiSelectorTerms = [{ alias: 'al2023@latest' }, { id: 'ami-123' }];
      },
      'spec.amiSelectorTerms',
      /only term/,
    ],
    [
      'an alias with other fields',
      (s) => {
        s.amiSelectorTerms = [{ alias: 'al2023@latest', owner: 'amazon' }];
      },
      'spec.amiSelectorTerms[0].alias',
      /mutually exclusive/,
    ],
    [
      'an unknown alias family',
      (s) => {
        s.amiSelectorTerms = [{ alias: 'ubuntu@latest' }];
      },
      'spec.amiSelectorTerms[0].alias',
      /family one of/,
    ],
    [
      'an alias without a version',
      (s) => {
        s.amiSelectorTerms = [{ alias: 'al2023' }];
      },
      'spec.amiSelectorTerms[0].alias',
      /family@version/,
    ],
    [
      'a pinned Windows alias',
      (s) => {
        s.amiSelectorTerms = [{ alias: 'windows2022@v20240101' }];
      },
      'spec.amiSelectorTerms[0].alias',
      /only support @latest/,
    ],
    [
      'no alias and no amiFamily',
      (s) => {
        s.amiSelectorTerms = [{ tags: { team: 'a' } }];
      },
      'spec.amiFamily',
      /required when amiSelectorTerms has no alias/,
    ],
    [
      'an amiFamily that contradicts the alias',
      (s) => {
        s.amiFamily = 'Bottlerocket';
      },
      'spec.amiFamily',
      /does not match alias/,
    ],
    [
      'both role and instanceProfile',
      (s) => {
        s.instanceProfile = 'profile';
      },
      'spec.instanceProfile',
      /exactly one of/,
    ],
    [
      'neither role nor instanceProfile',
      (s) => {
        delete s.role;
      },
      'spec.role',
      /exactly one of/,
    ],
    [
      'a restricted tag key',
      (s) => {
        s.tags = { 'kubernetes.io/cluster/demo': 'owned' };
      },
      'spec.tags.kubernetes.io/cluster/demo',
      /restricted/,
    ],
    [
      'the nodepool tag key',
      (s) => {
        s.tags = { 'karpenter.sh/nodepool': 'x' };
      },
      'spec.tags.karpenter.sh/nodepool',
      /restricted/,
    ],
    [
      'an unknown reserved resource',
      (s) => {
        s.kubelet = { kubeReserved: { gpu: '1' } };
      },
      'spec.kubelet.kubeReserved.gpu',
      /must be one of cpu, memory, ephemeral-storage, pid/,
    ],
    [
      'an unknown eviction signal',
      (s) => {
        s.kubelet = { evictionHard: { 'disk.available': '5%' } };
      },
      'spec.kubelet.evictionHard.disk.available',
      /signals must be one of/,
    ],
    [
      'a soft signal without a grace period',
      (s) => {
        s.kubelet = { evictionSoft: { 'memory.available': '5%' } };
      },
      'spec.kubelet.evictionSoft.memory.available',
      /no matching evictionSoftGracePeriod/,
    ],
    [
      'image GC high below low',
      (s) => {
        s.kubelet = { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 };
      },
      'spec.kubelet.imageGCHighThresholdPercent',
      /greater than/,
    ],
    [
      'more than 50 block devices',
      (s) => {
        s.blockDeviceMappings = Array.from({ length: 51 }, (_, i) => ({ deviceName: `/dev/xvd${i}` }));
      },
      'spec.blockDeviceMappings',
      /at most 50/,
    ],
    [
      'two root volumes',
      (s) => {
        s.blockDeviceMappings = [
          { deviceName: '/dev/xvda', rootVolume: true },
          { deviceName: '/dev/xvdb', rootVolume: true },
        ];
      },
      'spec.blockDeviceMappings[1].rootVolume',
      /at most one/,
    ],
    [
      'a hop limit of 0',
      (s) => {
        s.metadataOptions = { httpPutResponseHopLimit: 0 };
      },
      'spec.metadataOptions.httpPutResponseHopLimit',
      /between 1 and 64/,
    ],
    [
      'optional-or-required tokens misspelt',
      (s) => {
        s.metadataOptions = { httpTokens: 'yes' };
      },
      'spec.metadataOptions.httpTokens',
      /must be one of/,
    ],
  ];
  for (const [what, edit, path, problem] of rejections) {
    it(`should reject ${what}, naming the field`, () => {
      // Act
      const err = validationError(() => nodeClassFromKube(nodeClassJson(edit), { file: 'classes.yaml', documentIndex: 0 }));

      // Assess
      expect(err.path).toBe(path);
      expect(err.problem).toMatch(problem);
    });
  }

  it('should accept pinned al2023 and bottlerocket aliases', () => {
    // Act
    const a = nodeClassFromKube(
      nodeClassJson((s) => {
        s.amiSelectorTerms = [{ alias: 'al2023@v20240625' }];
      }),
    );
    const b = nodeClassFromKube(
      nodeClassJson((s) => {
        s.amiSelectorTerms = [{ alias: 'bottlerocket@v1.20.4' }];
      }),
    );

    // Assess
    expect(a.amiFamily).toBe('AL2023');
    expect(b.amiFamily).toBe('Bottlerocket');
  });

  it('should keep resolved status from a cluster object', () => {
    // Prepare
    const json = {
      ...nodeClassJson(),
      status: { subnets: [{ id: 'subnet-1', zone: 'us-west-2a', zoneID: 'usw2-az1' }], securityGroups: [{ id: 'sg-1' }], instanceProfile: 'demo_123' },
    };

    // Act
    const nc = nodeClassFromKube(json);

    // Assess
    expect(nc.status).toEqual({
      subnets: [{ id: 'subnet-1', zone: 'us-west-2a', zoneID: 'usw2-az1' }],
      securityGroups: [{ id: 'sg-1' }],
      instanceProfile: 'demo_123',
    });
  });
});
