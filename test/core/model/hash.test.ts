import { describe, expect, it } from 'vitest';
import { canonicalJson, fnv1a64, nodeClassHash, nodePoolHash } from '../../../shared/core/model/hash';
import { nodeClassFromKube, nodePoolFromKube } from '../../../shared/core/model/from-kube';
import { nodeClassJson, nodePoolJson } from './helpers';

describe('drift hashes', () => {
  it('should compute FNV-1a 64 over canonical JSON independent of key order', () => {
    // Act / Assess
    expect(fnv1a64('')).toBe('14695981039346656037');
    expect(fnv1a64('a')).toBe('12638187200555641996');
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
  });

  it('should hash the UTF-8 bytes of any text as FNV-1a 64 does, so stamped hashes stay the same', () => {
    // Prepare: the reference definition, byte by byte in 64-bit arithmetic.
    const reference = (text: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString();
    };
    const texts = ['foobar', 'uid-1\nuid-2\nuid-3', 'ünïcødé ✓ 😀', '\u0000\u007f\u0080', 'x'.repeat(5000), '{"labels":{"team":"müller"}}'];
    // Act / Assess
    for (const t of texts) expect(fnv1a64(t), JSON.stringify(t.slice(0, 20))).toBe(reference(t));
    expect(fnv1a64('foobar')).toBe('9625390261332436968'); // 0x85944171f73967e8, the published test vector
  });

  it('should give the same NodePool hash for the same template, whatever the key order', () => {
    // Prepare
    const a = nodePoolFromKube(
      nodePoolJson((np) => {
        np.spec.template.metadata = { labels: { a: '1', b: '2' } };
      }),
    );
    const b = nodePoolFromKube(
      nodePoolJson((np) => {
        np.spec.template.metadata = { labels: { b: '2', a: '1' } };
      }),
    );

    // Act / Assess
    expect(nodePoolHash(a)).toBe(nodePoolHash(b));
    expect(a.hash).toBe(nodePoolHash(a));
  });

  const base = nodePoolHash(nodePoolFromKube(nodePoolJson()));
  const drifting: [string, Parameters<typeof nodePoolJson>[0]][] = [
    [
      'labels',
      (np) => {
        np.spec.template.metadata = { labels: { team: 'a' } };
      },
    ],
    [
      'annotations',
      (np) => {
        np.spec.template.metadata = { annotations: { note: 'x' } };
      },
    ],
    [
      'taints',
      (np) => {
        np.spec.template.spec.taints = [{ key: 'a', effect: 'NoSchedule' }];
      },
    ],
    [
      'startupTaints',
      (np) => {
        np.spec.template.spec.startupTaints = [{ key: 'a', effect: 'NoSchedule' }];
      },
    ],
    [
      'nodeClassRef',
      (np) => {
        np.spec.template.spec.nodeClassRef = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'other' };
      },
    ],
    [
      'expireAfter',
      (np) => {
        np.spec.template.spec.expireAfter = '24h';
      },
    ],
    [
      'terminationGracePeriod',
      (np) => {
        np.spec.template.spec.terminationGracePeriod = '1h';
      },
    ],
  ];
  for (const [field, edit] of drifting) {
    it(`should change the NodePool hash when ${field} changes`, () => {
      // Act
      const changed = nodePoolHash(nodePoolFromKube(nodePoolJson(edit)));

      // Assess
      expect(changed).not.toBe(base);
    });
  }

  const stable: [string, Parameters<typeof nodePoolJson>[0]][] = [
    [
      'requirements',
      (np) => {
        np.spec.template.spec.requirements = [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }];
      },
    ],
    [
      'weight',
      (np) => {
        np.spec.weight = 10;
      },
    ],
    [
      'limits',
      (np) => {
        np.spec.limits = { cpu: '100' };
      },
    ],
    [
      'disruption',
      (np) => {
        np.spec.disruption = { consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m', budgets: [{ nodes: '1' }] };
      },
    ],
  ];
  for (const [field, edit] of stable) {
    it(`should keep the NodePool hash when ${field} changes`, () => {
      // Act
      const changed = nodePoolHash(nodePoolFromKube(nodePoolJson(edit)));

      // Assess
      expect(changed).toBe(base);
    });
  }

  const classBase = nodeClassHash(nodeClassFromKube(nodeClassJson()));
  const classDrifting: [string, (s: Record<string, unknown>) => void][] = [
    [
      'userData',
      (s) => {
        s.userData = 'echo hi';
      },
    ],
    [
      'tags',
      (s) => {
        s.tags = { team: 'a' };
      },
    ],
    [
      'blockDeviceMappings',
      (s) => {
        s.blockDeviceMappings = [{ deviceName: '/dev/xvda', ebs: { volumeSize: '30Gi' } }];
      },
    ],
    [
      'metadataOptions',
      (s) => {
        s.metadataOptions = { httpPutResponseHopLimit: 2 };
      },
    ],
    [
      'kubelet',
      (s) => {
        s.kubelet = { maxPods: 50 };
      },
    ],
    [
      'role',
      (s) => {
        s.role = 'OtherRole';
      },
    ],
    [
      'detailedMonitoring',
      (s) => {
        s.detailedMonitoring = true;
      },
    ],
    [
      'associatePublicIPAddress',
      (s) => {
        s.associatePublicIPAddress = false;
      },
    ],
  ];
  for (const [field, edit] of classDrifting) {
    it(`should change the EC2NodeClass hash when ${field} changes`, () => {
      // Act / Assess
      expect(nodeClassHash(nodeClassFromKube(nodeClassJson(edit)))).not.toBe(classBase);
    });
  }

  it('should keep the EC2NodeClass hash when only selector terms change (AMI/subnet/SG drift is checked from status)', () => {
    // Prepare
    const changed = nodeClassFromKube(
      nodeClassJson((s) => {
        s.subnetSelectorTerms = [{ id: 'subnet-1' }];
        s.securityGroupSelectorTerms = [{ name: 'sg' }];
        s.amiSelectorTerms = [{ alias: 'al2023@v20250101' }];
      }),
    );

    // Act / Assess
    expect(nodeClassHash(changed)).toBe(classBase);
  });
});
